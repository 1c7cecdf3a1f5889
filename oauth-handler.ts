// Auth for HTTP servers: the Authorization header from `bearerToken`, `bearerTokenEnv`, or an
// OAuth token file at <agentDir>/mcp-oauth/<server>/tokens.json; and the explanation /mcp-auth
// gives. Tokens are read when a connection opens and never written to a message or a log.
import { readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { maskUrl } from "./redaction.ts";
import type { HttpServerEntry, ServerEntry } from "./types.ts";

export const OAUTH_DIR = "mcp-oauth";

/** The token file of a server; a name that could leave the folder is refused. */
export function tokenPath(agentDir: string, server: string): string {
	if (!/^[A-Za-z0-9._-]+$/.test(server) || server === "." || server === "..") {
		throw new Error(`Server name "${server}" cannot name an OAuth token folder: use letters, digits, ".", "_" and "-" only.`);
	}
	const base = resolve(agentDir, OAUTH_DIR);
	const path = resolve(base, server, "tokens.json");
	const rel = relative(base, path);
	if (rel.startsWith("..") || rel.startsWith(sep)) throw new Error(`Server name "${server}" leaves the OAuth token folder.`);
	return path;
}

export type TokenState =
	| { readonly kind: "ok"; readonly token: string; readonly expiresAt?: number }
	| { readonly kind: "missing" | "invalid" | "expired"; readonly message: string };

interface TokenFile {
	access_token?: unknown;
	expires_at?: unknown;
}

/** Reads a server's OAuth token; `expires_at` is epoch seconds (or milliseconds, if that large). */
export function readOAuthToken(agentDir: string, server: string, now: number = Date.now()): TokenState {
	const path = tokenPath(agentDir, server);
	let data: TokenFile;
	try {
		const exposed = readableByOthers(path);
		if (exposed) return { kind: "invalid", message: `the OAuth token file ${path} is readable by other users (mode ${exposed}); run: chmod 600 ${path}` };
		data = JSON.parse(readFileSync(path, "utf8")) as TokenFile;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing", message: `no OAuth token at ${path}` };
		return { kind: "invalid", message: `the OAuth token file ${path} is not valid JSON` };
	}
	if (typeof data?.access_token !== "string" || data.access_token.length === 0) {
		return { kind: "invalid", message: `the OAuth token file ${path} has no "access_token"` };
	}
	const raw = typeof data.expires_at === "number" ? data.expires_at : undefined;
	const expiresAt = raw === undefined ? undefined : raw > 1e12 ? raw : raw * 1000;
	if (expiresAt !== undefined && expiresAt <= now) {
		return { kind: "expired", message: `the OAuth token for "${server}" expired at ${new Date(expiresAt).toISOString()}` };
	}
	return { kind: "ok", token: data.access_token, expiresAt };
}

/** The file's mode (e.g. "644") when group or others may read it; undefined when private (or on Windows). */
function readableByOthers(path: string): string | undefined {
	if (process.platform === "win32") return undefined;
	const mode = statSync(path).mode & 0o777;
	return mode & 0o077 ? mode.toString(8) : undefined;
}

export interface AuthContext {
	readonly agentDir: string;
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly now?: () => number;
}

/** Headers for an HTTP server: its `headers`, plus Authorization from bearer settings or OAuth. */
export function requestHeaders(entry: HttpServerEntry, ctx: AuthContext): Record<string, string> {
	const headers: Record<string, string> = { ...entry.headers };
	if (entry.auth === "oauth") {
		const state = readOAuthToken(ctx.agentDir, entry.name, ctx.now?.() ?? Date.now());
		if (state.kind !== "ok") throw new AuthRequiredError(entry.name, state.message);
		headers.Authorization = `Bearer ${state.token}`;
		return headers;
	}
	const token = entry.bearerToken ?? (entry.bearerTokenEnv ? ctx.env[entry.bearerTokenEnv] : undefined);
	if (entry.bearerTokenEnv && !token && entry.bearerToken === undefined) {
		throw new AuthRequiredError(entry.name, `the environment variable ${entry.bearerTokenEnv} (bearerTokenEnv) is not set`);
	}
	if (token) headers.Authorization = `Bearer ${token}`;
	return headers;
}

/** Raised before connecting when the credentials a server needs are missing or expired. */
export class AuthRequiredError extends Error {
	constructor(
		readonly server: string,
		detail: string,
	) {
		super(`Server "${server}" needs authentication: /mcp-auth ${server} (${detail})`);
		this.name = "AuthRequiredError";
	}
}

/** What /mcp-auth <server> says: what the server needs, where its token goes, and its state now. */
export function authHelp(entry: ServerEntry | undefined, name: string, ctx: AuthContext): string {
	if (!entry) return `Unknown server "${name}".`;
	if (entry.transport === "stdio") {
		return `"${name}" is a local (stdio) server: it gets credentials from its "env" in the config, not from /mcp-auth.`;
	}
	const lines = [`"${name}" (${maskUrl(entry.url)})`];
	if (entry.auth === "oauth") {
		let path: string;
		try {
			path = tokenPath(ctx.agentDir, name);
		} catch (error) {
			return `${lines[0]}: ${(error as Error).message}`;
		}
		const state = readOAuthToken(ctx.agentDir, name, ctx.now?.() ?? Date.now());
		lines.push(
			`Uses OAuth. Put its token in ${path} (mode 600):`,
			'  { "access_token": "<token>", "expires_at": <epoch seconds, optional> }',
			state.kind === "ok"
				? `Token: present${state.expiresAt ? `, valid until ${new Date(state.expiresAt).toISOString()}` : ""}.`
				: `Token: ${state.message}.`,
			"The browser sign-in flow is not built yet; get the token from the service and save it there.",
		);
	} else if (entry.bearerTokenEnv) {
		const set = Boolean(ctx.env[entry.bearerTokenEnv]);
		lines.push(`Sends a bearer token from the environment variable ${entry.bearerTokenEnv} (${set ? "set" : "not set"}).`);
	} else if (entry.bearerToken !== undefined) {
		lines.push('Sends the bearer token from its "bearerToken" setting. If the server rejects it, replace it (use ${VAR} to keep it out of the file).');
	} else {
		lines.push(
			'Sends no credentials. If it needs a token, add to its entry "bearerTokenEnv": "<ENV VAR>", or "bearerToken": "${VAR}",',
			`or "auth": "oauth" with the token in ${join(ctx.agentDir, OAUTH_DIR, name, "tokens.json")}.`,
		);
	}
	return lines.join("\n");
}
