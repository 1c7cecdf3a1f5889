// Where OAuth sign-ins live: one file per server name and URL, <agentDir>/mcp-oauth/<name>-<hash>.json
// (folder 0700, files 0600), holding what the SDK's auth flow produced: the client identity, the
// tokens (with the time they expire) and the discovery results. Every write is locked across
// processes, so two Pi sessions refreshing at once rotate a refresh token exactly once. A sign-in
// whose tokens are DPoP-bound keeps its signing key here too: the tokens are useless without it.
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { OAuthClientInformationMixed, OAuthDiscoveryState, OAuthTokens } from "@modelcontextprotocol/client";
import { readJsonFile, updateJsonFile } from "../storage/locked-json.ts";
import type { StoredDpopKey } from "./dpop.ts";

export const OAUTH_DIR = "mcp-oauth";

/** Tokens as stored: the SDK's, plus when they were obtained and when the access token expires (epoch ms). */
export type StoredTokens = OAuthTokens & { readonly expires_at?: number; readonly obtained_at?: number };

export interface SignIn {
	readonly version: 1;
	readonly server: string;
	readonly url: string;
	readonly client?: OAuthClientInformationMixed;
	readonly tokens?: StoredTokens;
	readonly discovery?: OAuthDiscoveryState;
	/** A scope the server asked for (403 insufficient_scope) that the next sign-in requests. */
	readonly stepUpScope?: string;
	/** The DPoP signing key the tokens are bound to (RFC 9449), kept until sign-out. */
	readonly dpopKey?: StoredDpopKey;
}

/** The sign-in file of a server: its name (made safe) and a hash of its URL, so an account per URL stays apart. */
export function signInPath(agentDir: string, server: string, url: string): string {
	const safe =
		server
			.replace(/[^A-Za-z0-9._-]+/g, "_")
			.replace(/^\.+/, "_")
			.slice(0, 60) || "server";
	const hash = createHash("sha256").update(url).digest("hex").slice(0, 12);
	return join(agentDir, OAUTH_DIR, `${safe}-${hash}.json`);
}

function parse(raw: unknown, server: string, url: string): SignIn {
	const value = raw as Partial<SignIn> | null;
	const usable =
		value && typeof value === "object" && value.version === 1 && value.server === server && value.url === url;
	return usable ? (value as SignIn) : { version: 1, server, url };
}

/** One server's sign-in, read and written through the locked file. */
export class SignInStore {
	readonly path: string;

	constructor(
		agentDir: string,
		readonly server: string,
		readonly url: string,
	) {
		this.path = signInPath(agentDir, server, url);
	}

	read(): SignIn {
		return parse(readJsonFile(this.path), this.server, this.url);
	}

	/** Changes the sign-in under the lock; `change` sees what is on disk now and may be async. */
	update(change: (current: SignIn) => SignIn | undefined | Promise<SignIn | undefined>): Promise<SignIn> {
		return updateJsonFile(this.path, (raw) => parse(raw, this.server, this.url), change);
	}

	/** Saves tokens as the SDK returned them, with their expiry made absolute. */
	saveTokens(tokens: OAuthTokens, now = Date.now()): Promise<SignIn> {
		return this.update((current) => ({ ...current, tokens: withExpiry(tokens, now), stepUpScope: undefined }));
	}

	/** Sign out: the file goes, with everything in it. */
	remove(): void {
		rmSync(this.path, { force: true });
	}
}

export function withExpiry(tokens: OAuthTokens, now = Date.now()): StoredTokens {
	return typeof tokens.expires_in === "number"
		? { ...tokens, obtained_at: now, expires_at: now + tokens.expires_in * 1000 }
		: { ...tokens, obtained_at: now };
}

/**
 * Whether an access token is usable for at least `marginMs` more (no expiry known: yes). The
 * margin is at most a quarter of the token's life, so a short-lived token is not refreshed at once.
 */
export function stillValid(tokens: StoredTokens | undefined, now = Date.now(), marginMs = 60_000): boolean {
	if (!tokens?.access_token) return false;
	if (tokens.expires_at === undefined) return true;
	const life = tokens.obtained_at === undefined ? Number.POSITIVE_INFINITY : tokens.expires_at - tokens.obtained_at;
	return tokens.expires_at - Math.min(marginMs, life / 4) > now;
}
