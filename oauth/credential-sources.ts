// Where a sign-in without a user finds the JWT it presents: the workload's own token (workload
// identity, SEP-1933) or the user's ID token (enterprise-managed authorization, SEP-990), from a
// file the platform keeps current (read afresh at every token request: platforms rotate it) or an
// environment variable. Each read value goes to `onSecret` (the redactor) before anything else
// sees it; a missing, empty, malformed or expired token is an error that says where and how to fix
// it, and names the source, never the value.
import type { OAuthConfig } from "../config/schema.ts";
import { readTextFile } from "../storage/file-guard.ts";

/** A token source as configured: a file path or an environment variable's name (one of them). */
export interface TokenSource {
	readonly file?: string;
	readonly env?: string;
	/** What the token is, for messages: "workload token", "ID token". */
	readonly what: string;
	/** The config keys, for messages: "oauth.assertionFile" / "oauth.assertionEnv". */
	readonly keys: { readonly file: string; readonly env: string };
}

/** The workload token a grant sends (workload identity), as `oauth.assertionFile` / `oauth.assertionEnv` say. */
export function workloadTokenSource(oauth: OAuthConfig): TokenSource {
	return {
		file: oauth.assertionFile,
		env: oauth.assertionEnv,
		what: "workload token",
		keys: { file: "oauth.assertionFile", env: "oauth.assertionEnv" },
	};
}

/** The user's ID token the enterprise grant exchanges, as `oauth.idp.idTokenFile` / `idTokenEnv` say. */
export function idTokenSource(oauth: OAuthConfig): TokenSource {
	return {
		file: oauth.idp?.idTokenFile,
		env: oauth.idp?.idTokenEnv,
		what: "ID token",
		keys: { file: "oauth.idp.idTokenFile", env: "oauth.idp.idTokenEnv" },
	};
}

/** A token that could not be read (not a server's refusal): its message says what to fix. */
export class CredentialSourceError extends Error {
	override name = "CredentialSourceError";
}

/** Where the token comes from, in words. */
export function describeSource(source: TokenSource): string {
	return source.file ? `the file ${source.file} (${source.keys.file})` : `$${source.env} (${source.keys.env})`;
}

/** The JWT the source holds now; throws why there is none usable. */
export function readToken(
	source: TokenSource,
	env: Readonly<Record<string, string | undefined>>,
	onSecret: (value: string) => void,
	now = Date.now(),
): string {
	const where = describeSource(source);
	let token: string;
	if (source.file) {
		const read = readTextFile(source.file, { maxBytes: 64 * 1024 });
		if (read.kind === "missing")
			throw new CredentialSourceError(
				`the ${source.what} file ${source.file} does not exist: check ${source.keys.file}`,
			);
		if (read.kind === "error")
			throw new CredentialSourceError(`the ${source.what} file ${source.file} ${read.message}`);
		token = read.text.trim();
	} else {
		token = (env[source.env ?? ""] ?? "").trim();
		if (!token)
			throw new CredentialSourceError(`the environment variable ${source.env} (${source.keys.env}) is not set`);
	}
	onSecret(token);
	if (!token) throw new CredentialSourceError(`${where} is empty: it should hold the ${source.what} (a JWT)`);
	const expiry = jwtExpiry(token);
	if (expiry === null) throw new CredentialSourceError(`${where} does not hold a JWT (three dot-separated parts)`);
	if (expiry !== undefined && expiry <= now)
		throw new CredentialSourceError(
			`the ${source.what} in ${where} expired at ${new Date(expiry).toISOString()}: whatever provides it should renew it`,
		);
	return token;
}

/**
 * When a JWT expires (epoch ms), undefined when it does not say, null when it is no JWT. Read
 * only to tell the user early; the authorization server checks the token itself.
 */
export function jwtExpiry(token: string): number | undefined | null {
	const parts = token.split(".");
	if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]*$/.test(part))) return null;
	try {
		const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as { exp?: unknown };
		return typeof claims?.exp === "number" ? claims.exp * 1000 : undefined;
	} catch {
		return null;
	}
}
