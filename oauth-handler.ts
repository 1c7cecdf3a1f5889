// Credentials for HTTP servers, as each connection opens: a static `Authorization` (headers,
// `bearerToken`, `bearerTokenEnv`), the access token of an OAuth sign-in (refreshed before it
// expires, and once more after the server rejects it, always under the store's cross-process
// lock), or the hand-made token file of `auth: "oauth"`. Also: what "needs sign-in" says, and
// the text of /mcp-auth. Tokens are never written to a message or a log.
import { statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import type { FetchLike } from "@modelcontextprotocol/client";
import type { OAuthConfig } from "./config/schema.ts";
import { AuthRequiredError, describeError, unknownServerMessage } from "./errors.ts";
import { describeSource, idTokenSource, readToken, workloadTokenSource } from "./oauth/credential-sources.ts";
import { dpopSession, isDpopBound, type StoredDpopKey } from "./oauth/dpop.ts";
import { OAUTH_DIR, type SignIn, SignInStore, stillValid, withExpiry } from "./oauth/store.ts";
import { parseJson, readTextFile } from "./storage/file-guard.ts";

/** Where it was always imported from; it lives in errors.ts so lower layers (oauth/) can raise it. */
export { AuthRequiredError };

import { loadClientSdk } from "./oauth/sdk.lazy.ts";
import { maskUrl } from "./trust/redaction.ts";
import type { HttpServerEntry, ServerEntry } from "./types.ts";

export interface AuthContext {
	readonly agentDir: string;
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly now?: () => number;
	readonly fetchFn?: FetchLike;
}

/** OAuth sign-in applies to HTTP servers that are not given an Authorization of their own (as in Pi 1.5). */
export function usesOAuth(entry: ServerEntry): entry is HttpServerEntry {
	if (entry.transport === "stdio" || entry.bearerToken !== undefined || entry.bearerTokenEnv !== undefined)
		return false;
	return !Object.keys(entry.headers).some((h) => h.toLowerCase() === "authorization");
}

/** The grants a server's `oauth` may ask for; all but `authorization_code` need no user (no browser). */
export type GrantType = "authorization_code" | "client_credentials" | "jwt_bearer" | "enterprise";

/** Which grant a server's `oauth` asks for (config/oauth-fields.ts checked the value). */
export function grantType(entry: HttpServerEntry): GrantType {
	const value = (entry.oauth as { grantType?: unknown } | undefined)?.grantType;
	return value === "client_credentials" || value === "jwt_bearer" || value === "enterprise"
		? value
		: "authorization_code";
}

/** Whether the server signs in with a browser (`/mcp-auth login`), rather than by a grant that needs no user. */
export function signsInWithBrowser(entry: ServerEntry): entry is HttpServerEntry {
	return usesOAuth(entry) && grantType(entry) === "authorization_code";
}

/**
 * Headers for an HTTP server, and the OAuth access token among them (to know later which one a
 * server refused). A DPoP-bound token is not among the headers: it goes with its key, and the
 * connection presents it with a fresh proof per request (oauth/dpop.ts).
 */
export async function requestHeaders(
	entry: HttpServerEntry,
	ctx: AuthContext,
): Promise<{ headers: Record<string, string>; oauthToken?: string; dpopKey?: StoredDpopKey }> {
	const headers: Record<string, string> = { ...entry.headers };
	const token = entry.bearerToken ?? (entry.bearerTokenEnv ? ctx.env[entry.bearerTokenEnv] : undefined);
	if (entry.bearerTokenEnv && !token && entry.bearerToken === undefined) {
		throw new AuthRequiredError(
			entry.name,
			`the environment variable ${entry.bearerTokenEnv} (bearerTokenEnv) is not set`,
			"token",
		);
	}
	if (token) headers.Authorization = `Bearer ${token}`;
	if (!signsInWithBrowser(entry)) return { headers };
	const signedIn = await accessToken(entry, ctx);
	if (signedIn?.dpopKey) return { headers, oauthToken: signedIn.token, dpopKey: signedIn.dpopKey };
	const access = signedIn?.token ?? piSignInToken(ctx.agentDir, entry.name, entry.url);
	if (access) return { headers: { ...headers, Authorization: `Bearer ${access}` }, oauthToken: access };
	// The hand-made token file of earlier versions keeps working, for the user's own servers only:
	// it is keyed by name alone, and a project server may reuse that name for another URL.
	if (entry.auth === "oauth" && entry.source.scope === "user") {
		const file = readOAuthToken(ctx.agentDir, entry.name, ctx.now?.() ?? Date.now());
		if (file.kind !== "ok") throw new AuthRequiredError(entry.name, file.message);
		headers.Authorization = `Bearer ${file.token}`;
	}
	return { headers };
}

/**
 * The signed-in access token, refreshed first when it expires within a minute; with the key it
 * is bound to when it is DPoP-bound.
 */
async function accessToken(
	entry: HttpServerEntry,
	ctx: AuthContext,
): Promise<{ token: string; dpopKey?: StoredDpopKey } | undefined> {
	const store = new SignInStore(ctx.agentDir, entry.name, entry.url);
	const now = ctx.now?.() ?? Date.now();
	const signIn = store.read();
	let tokens = signIn.tokens;
	if (!tokens) return undefined;
	if (!stillValid(tokens, now)) {
		if (!tokens.refresh_token) tokens = stillValid(tokens, now, 0) ? tokens : undefined;
		else tokens = await refreshUnlessDone(store, tokens.access_token, ctx);
	}
	if (!tokens) return undefined;
	if (!isDpopBound(tokens)) return { token: tokens.access_token };
	const dpopKey = store.read().dpopKey;
	if (!dpopKey)
		throw new AuthRequiredError(
			entry.name,
			"its tokens are bound to a DPoP key that is no longer stored beside them; sign in again",
		);
	return { token: tokens.access_token, dpopKey };
}

/**
 * The access token Pi 1.5's own sign-in stored (`pi mcp login`, its `/mcp`) in
 * `<agentDir>/mcp-auth.json`, keyed like Pi 1.5 keys it: `mcp__<server>|<url>`, or the URL alone
 * (older versions). Used when this adapter holds no sign-in of its own for the server: a user who
 * signed in with Pi is signed in here too. Refreshing it stays Pi's (a refused token asks for a
 * sign-in through /mcp-auth).
 */
export function piSignInToken(agentDir: string, server: string, url: string, now = Date.now()): string | undefined {
	const read = readTextFile(join(agentDir, PI_AUTH_FILE));
	if (read.kind !== "ok") return undefined;
	try {
		const states = parseJson(read.text) as Record<string, { tokens?: { access_token?: unknown } } | undefined>;
		const href = new URL(url).href;
		const state = states[`mcp__${server.replace(/[^A-Za-z0-9_]/g, "_")}|${href}`] ?? states[href];
		const token = state?.tokens?.access_token;
		// Pi keeps when the access token expires; an expired one would only be refused.
		const expires = (state as { tokensExpireAt?: unknown } | undefined)?.tokensExpireAt;
		if (typeof expires === "number" && (expires > 1e12 ? expires : expires * 1000) <= now) return undefined;
		return typeof token === "string" && token !== "" ? token : undefined;
	} catch {
		return undefined; // not Pi's format, or damaged: Pi itself reports it
	}
}

/** Pi 1.5's store of its own MCP sign-ins, in the agent dir. */
export const PI_AUTH_FILE = "mcp-auth.json";

/**
 * For the approval question: a sign-in the user stored for this server's name and URL would be
 * sent to it (the token is bound to both, so a project server of another URL gets none).
 */
export function storedSignInNote(agentDir: string): (entry: ServerEntry) => string | undefined {
	return (entry) => {
		if (!signsInWithBrowser(entry)) return undefined;
		return new SignInStore(agentDir, entry.name, entry.url).read().tokens ||
			piSignInToken(agentDir, entry.name, entry.url)
			? "sends your stored OAuth sign-in for this name and URL"
			: undefined;
	};
}

/** What a server's 401/403 said (WWW-Authenticate), as the manager passes it on. */
interface RefusalChallenge {
	readonly status: number;
	readonly error?: string;
	readonly scope?: string;
}

/**
 * The manager's `renewCredentials`: a refused OAuth token is refreshed once (under the lock); a
 * 403 asking for more scope (step-up) is kept for the next sign-in, which needs the user.
 */
export function credentialRenewal(ctx: AuthContext) {
	return async (
		entry: ServerEntry,
		refused: string | undefined,
		challenge: RefusalChallenge | undefined,
	): Promise<boolean> => {
		if (!usesOAuth(entry)) return false;
		if (challenge?.status === 403 && challenge.error === "insufficient_scope" && challenge.scope) {
			// The wider sign-in keeps what the token already had (SEP-2350): the server names only what
			// this request lacks, and a token of that scope alone may lose what the rest of the session needs.
			const wanted = challenge.scope;
			await new SignInStore(ctx.agentDir, entry.name, entry.url).update((s) => ({
				...s,
				stepUpScope: unionOfScopes(s.tokens?.scope, s.stepUpScope, wanted),
			}));
			return false;
		}
		return renewRejected(entry, refused, ctx);
	};
}

/**
 * After a server refused the access token it was sent: refresh once (under the lock; if another
 * session already did, its new token is used as is). True when there is a new token to try.
 */
export async function renewRejected(
	entry: ServerEntry,
	rejected: string | undefined,
	ctx: AuthContext,
): Promise<boolean> {
	if (!usesOAuth(entry) || !rejected) return false;
	const store = new SignInStore(ctx.agentDir, entry.name, entry.url);
	const renewed = await refreshUnlessDone(store, rejected, ctx);
	return renewed !== undefined && renewed.access_token !== rejected;
}

/**
 * Refreshes with the SDK's refreshAuthorization, unless the tokens on disk moved on since `stale`
 * was read (another Pi session refreshed): so a rotating refresh token is used exactly once.
 */
async function refreshUnlessDone(store: SignInStore, stale: string, ctx: AuthContext): Promise<SignIn["tokens"]> {
	const now = () => ctx.now?.() ?? Date.now();
	const done = await store.update(async (current) => {
		const tokens = current.tokens;
		if (!tokens?.refresh_token) return undefined;
		if (tokens.access_token !== stale && stillValid(tokens, now(), 0)) return undefined;
		const discovery = current.discovery;
		if (!discovery?.authorizationServerUrl || !current.client) return undefined;
		const { refreshAuthorization } = await loadClientSdk();
		try {
			const fresh = await refreshAuthorization(discovery.authorizationServerUrl, {
				metadata: discovery.authorizationServerMetadata,
				clientInformation: current.client,
				refreshToken: tokens.refresh_token,
				resource: discovery.resourceMetadata?.resource ? new URL(discovery.resourceMetadata.resource) : undefined,
				// A public client's refresh token is bound to the sign-in's DPoP key too (RFC 9449 section 5).
				dpop: current.dpopKey ? await dpopSession(current.dpopKey) : undefined,
				fetchFn: ctx.fetchFn,
			});
			// A server that does not rotate keeps the refresh token it gave before.
			return {
				...current,
				tokens: withExpiry({ ...fresh, refresh_token: fresh.refresh_token ?? tokens.refresh_token }, now()),
			};
		} catch {
			// Refused (revoked, expired): the sign-in is over; the user signs in again.
			return { ...current, tokens: undefined };
		}
	});
	return done.tokens;
}

/** The token file of a server; a name that could leave the folder is refused. */
export function tokenPath(agentDir: string, server: string): string {
	if (!/^[A-Za-z0-9._-]+$/.test(server) || server === "." || server === "..") {
		throw new Error(
			`Server name "${server}" cannot name an OAuth token folder: use letters, digits, ".", "_" and "-" only.`,
		);
	}
	const base = resolve(agentDir, OAUTH_DIR);
	const path = resolve(base, server, "tokens.json");
	const rel = relative(base, path);
	if (rel.startsWith("..") || rel.startsWith(sep))
		throw new Error(`Server name "${server}" leaves the OAuth token folder.`);
	return path;
}

export type TokenState =
	| { readonly kind: "ok"; readonly token: string; readonly expiresAt?: number }
	| { readonly kind: "missing" | "invalid" | "expired"; readonly message: string };

interface TokenFile {
	access_token?: unknown;
	expires_at?: unknown;
}

/** Reads a hand-made token file; `expires_at` is epoch seconds (or milliseconds, if that large). */
export function readOAuthToken(agentDir: string, server: string, now: number = Date.now()): TokenState {
	const path = tokenPath(agentDir, server);
	const read = readTextFile(path);
	if (read.kind === "missing") return { kind: "missing", message: `no OAuth token at ${path}` };
	if (read.kind === "error") return { kind: "invalid", message: `the OAuth token file ${path} ${read.message}` };
	const exposed = readableByOthers(path);
	if (exposed)
		return {
			kind: "invalid",
			message: `the OAuth token file ${path} is readable by other users (mode ${exposed}); run: chmod 600 ${path}`,
		};
	let data: TokenFile;
	try {
		data = parseJson(read.text) as TokenFile;
	} catch {
		return { kind: "invalid", message: `the OAuth token file ${path} is not valid JSON` };
	}
	if (typeof data?.access_token !== "string" || data.access_token.length === 0) {
		return { kind: "invalid", message: `the OAuth token file ${path} has no "access_token"` };
	}
	const raw = typeof data.expires_at === "number" ? data.expires_at : undefined;
	const expiresAt = raw === undefined ? undefined : raw > 1e12 ? raw : raw * 1000;
	if (expiresAt !== undefined && expiresAt <= now) {
		return {
			kind: "expired",
			message: `the OAuth token for "${server}" expired at ${new Date(expiresAt).toISOString()}`,
		};
	}
	return { kind: "ok", token: data.access_token, expiresAt };
}

/** The file's mode (e.g. "644") when group or others may read it; undefined when private (or on Windows). */
function readableByOthers(path: string): string | undefined {
	if (process.platform === "win32") return undefined;
	const mode = statSync(path).mode & 0o777;
	return mode & 0o077 ? mode.toString(8) : undefined;
}

/** What /mcp-auth <server> says: how the server authenticates, and the state of its sign-in or token. */
export function authHelp(entry: ServerEntry | undefined, name: string, ctx: AuthContext): string {
	if (!entry) return unknownServerMessage(name);
	if (entry.transport === "stdio") {
		return `"${name}" is a local (stdio) server: it gets credentials from its "env" in the config, not from /mcp-auth.`;
	}
	const lines = [`"${name}" (${maskUrl(entry.url)})`];
	if (entry.bearerTokenEnv) {
		const set = Boolean(ctx.env[entry.bearerTokenEnv]);
		lines.push(
			`Sends a bearer token from the environment variable ${entry.bearerTokenEnv} (${set ? "set" : "not set"}).`,
		);
	} else if (entry.bearerToken !== undefined || !usesOAuth(entry)) {
		lines.push(
			'Sends the Authorization of its config ("bearerToken" or "headers"). If the server rejects it, replace it (use ${VAR} to keep it out of the file).',
		);
	} else if (!signsInWithBrowser(entry)) {
		lines.push(machineGrantHelp(entry, ctx.env));
	} else {
		const signIn = new SignInStore(ctx.agentDir, entry.name, entry.url).read();
		const tokens = signIn.tokens;
		const now = ctx.now?.() ?? Date.now();
		if (tokens && (stillValid(tokens, now, 0) || tokens.refresh_token)) {
			const until = tokens.expires_at ? `, access valid until ${new Date(tokens.expires_at).toISOString()}` : "";
			const bound = isDpopBound(tokens) ? " (DPoP-bound: the token works only with the key kept beside it)" : "";
			lines.push(
				`Signed in with OAuth${until}${tokens.refresh_token ? " (refreshed automatically)" : ""}${tokens.scope ? `; scope: ${tokens.scope}` : ""}${bound}.`,
			);
			lines.push(`/mcp-auth ${name} again signs in anew; /mcp-auth ${name} logout signs out.`);
		} else {
			lines.push(
				`Not signed in. /mcp-auth ${name} login opens the sign-in page (the URL is shown too, for a browser on another machine).`,
			);
		}
		if (signIn.stepUpScope)
			lines.push(`The server asked for more access: the next sign-in requests scope "${signIn.stepUpScope}".`);
		if (entry.auth === "oauth") lines.push(...handMadeToken(name, ctx));
	}
	return lines.join("\n");
}

/** How a server that needs no user signs in, for /mcp-auth: the grant, and whether its token source is there. */
function machineGrantHelp(entry: HttpServerEntry, env: Readonly<Record<string, string | undefined>>): string {
	const oauth = (entry.oauth ?? {}) as OAuthConfig;
	const grant = grantType(entry);
	if (grant === "client_credentials")
		return "Signs in with OAuth client credentials from its config (no user sign-in).";
	const source = grant === "jwt_bearer" ? workloadTokenSource(oauth) : idTokenSource(oauth);
	let state = "present";
	try {
		readToken(source, env, () => undefined);
	} catch (error) {
		state = describeError(error);
	}
	const how =
		grant === "jwt_bearer"
			? `Signs in as a workload (no user sign-in): the workload token from ${describeSource(source)} is exchanged for an access token (JWT bearer grant).`
			: `Signs in through your enterprise IdP ${oauth.idp?.tokenEndpoint ?? oauth.idp?.issuer}: the ID token from ${describeSource(source)} is exchanged there for a grant to this server (ID-JAG), then for an access token.`;
	return `${how}\nToken: ${state}.`;
}

/** The state of the hand-made token file of `auth: "oauth"` (earlier versions' way), for /mcp-auth. */
function handMadeToken(name: string, ctx: AuthContext): string[] {
	let path: string;
	try {
		path = tokenPath(ctx.agentDir, name);
	} catch (error) {
		return [(error as Error).message];
	}
	const state = readOAuthToken(ctx.agentDir, name, ctx.now?.() ?? Date.now());
	const token =
		state.kind === "ok"
			? `present${state.expiresAt ? `, valid until ${new Date(state.expiresAt).toISOString()}` : ""}`
			: state.message;
	return [
		`A hand-made token file also works: ${path} (mode 600), { "access_token": "...", "expires_at": <epoch seconds> }.`,
		`Token: ${token}.`,
	];
}

/** Space-separated OAuth scopes, each once, in the order first seen. */
export function unionOfScopes(...scopes: (string | undefined)[]): string {
	return [...new Set(scopes.flatMap((scope) => scope?.split(/\s+/).filter(Boolean) ?? []))].join(" ");
}
