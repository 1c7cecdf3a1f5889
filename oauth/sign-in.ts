// Signing in to a remote MCP server with OAuth, on the SDK's auth(): it discovers the protected
// resource and authorization server metadata (RFC 9728, RFC 8414, OpenID, the 2025-03-26
// fallbacks), registers or identifies the client (a Client ID Metadata Document, dynamic
// registration, or a pre-registered client), builds the PKCE S256 request with the resource
// indicator, and exchanges the code. This module adds what a user needs around it: a loopback
// callback on 127.0.0.1 that checks `state` (and `iss`, RFC 9207), the URL shown (and a browser
// opened) so it works over SSH too, a pasted redirect URL as another way back, a deadline.

import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
	OAuthClientInformationMixed,
	OAuthClientMetadata,
	OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CLIENT_INFO } from "../transport/client-info.ts";
import { describeError } from "../transport/errors.ts";
import type { HttpServerEntry } from "../types.ts";
import { isWebAddress, openSystemBrowser } from "./open-browser.ts";
import { type SignIn, SignInStore } from "./store.ts";

/** Pi's Client ID Metadata Document: its redirect URIs are http://127.0.0.1:<any port>/callback. */
export const DEFAULT_CLIENT_METADATA_URL = "https://pi.dev/oauth/client.json";
const SIGN_IN_TIMEOUT_MS = 300_000;

/** The `oauth` settings of an entry (Pi 1.5's names), read leniently. */
export interface OAuthSettings {
	readonly clientId?: string;
	readonly clientSecret?: string;
	readonly scope?: string;
	readonly callbackPort?: number;
	readonly clientName?: string;
	readonly clientRegistration?: "auto" | "dcr" | "cimd";
	readonly clientMetadataUrl?: string;
	/** A registered redirect URI other than http://127.0.0.1:<port>/callback (loopback HTTP only). */
	readonly callbackUrl?: string;
	/** The right authorization server's metadata, for servers that advertise a wrong one or none. */
	readonly authServerMetadataUrl?: string;
}

export function oauthSettings(entry: HttpServerEntry): OAuthSettings {
	const raw = (entry.oauth ?? {}) as Record<string, unknown>;
	const text = (key: string) => (typeof raw[key] === "string" && raw[key] !== "" ? (raw[key] as string) : undefined);
	const registration = text("clientRegistration");
	return {
		clientId: text("clientId"),
		clientSecret: text("clientSecret"),
		scope: text("scope"),
		callbackPort: typeof raw.callbackPort === "number" ? raw.callbackPort : undefined,
		clientName: text("clientName"),
		clientRegistration: registration === "dcr" || registration === "cimd" ? registration : "auto",
		clientMetadataUrl: text("clientMetadataUrl"),
		callbackUrl: text("callbackUrl"),
		authServerMetadataUrl: text("authServerMetadataUrl"),
	};
}

/** Where the authorization redirect comes back: a loopback address, a port (0 = any free one), a path. */
interface CallbackTarget {
	readonly host: "localhost" | "127.0.0.1" | "[::1]";
	readonly port: number;
	readonly path: string;
	/** The redirect URI exactly as written, with the port added when it had none (RFC 8252 7.3). */
	url(port: number): string;
}

/** The callback the settings ask for, or an error saying what is wrong with `callbackUrl` and how to fix it. */
function callbackTarget(settings: OAuthSettings): CallbackTarget {
	if (!settings.callbackUrl) {
		const port = settings.callbackPort ?? 0;
		return { host: "127.0.0.1", port, path: "/callback", url: (actual) => `http://127.0.0.1:${actual}/callback` };
	}
	let parsed: URL;
	try {
		parsed = new URL(settings.callbackUrl);
	} catch {
		throw new Error("oauth.callbackUrl is not a URL: write it like http://127.0.0.1:8765/callback");
	}
	const host = parsed.hostname;
	if (parsed.protocol !== "http:" || (host !== "localhost" && host !== "127.0.0.1" && host !== "[::1]")) {
		throw new Error(
			"oauth.callbackUrl must use http on localhost, 127.0.0.1 or [::1] (the sign-in listens on this machine only)",
		);
	}
	const written = settings.callbackUrl;
	const port = parsed.port ? Number(parsed.port) : (settings.callbackPort ?? 0);
	return {
		host,
		port,
		path: parsed.pathname,
		url: (actual) => {
			if (parsed.port) return written;
			const withPort = new URL(written);
			withPort.port = String(actual);
			return withPort.toString();
		},
	};
}

/** A Client ID Metadata Document fits only Pi's redirect URIs: /callback on localhost or 127.0.0.1. */
function documentFits(target: CallbackTarget): boolean {
	return target.path === "/callback" && target.host !== "[::1]";
}

/** Pi 1.5's rule: `cimd` cannot be combined with a client of one's own or a redirect the document does not list. */
function checkRegistration(settings: OAuthSettings, target: CallbackTarget): void {
	if (settings.clientRegistration !== "cimd") return;
	if (settings.clientId || settings.clientName)
		throw new Error(
			'oauth.clientRegistration "cimd" cannot be combined with clientId or clientName: remove one of them',
		);
	if (!documentFits(target))
		throw new Error(
			'oauth.clientRegistration "cimd" needs a callbackUrl on localhost or 127.0.0.1 with the path /callback',
		);
}

export interface SignInOptions {
	readonly agentDir: string;
	readonly entry: HttpServerEntry;
	/** Shows the authorization URL to the user; always called, browser or not. */
	readonly show: (url: string) => void;
	/** Opens a browser on the URL; default: the system's (none when BROWSER=none). */
	readonly openBrowser?: (url: string) => void;
	/** Asks for the redirected URL (from a browser on another machine); resolves undefined when the user will not paste. */
	readonly askPaste?: (signal: AbortSignal) => Promise<string | undefined>;
	readonly fetchFn?: FetchLike;
	readonly signal?: AbortSignal;
	readonly timeoutMs?: number;
	/** A scope to ask for beyond what the server advertises (step-up). */
	readonly scope?: string;
}

/**
 * Runs the whole sign-in and stores the tokens. Throws an error that says what went wrong (the
 * server refused, the state did not match, the user did not finish in time); never a token.
 */
export async function signIn(options: SignInOptions): Promise<void> {
	const { entry } = options;
	const settings = oauthSettings(entry);
	const store = new SignInStore(options.agentDir, entry.name, entry.url);
	const raw = options.fetchFn ?? fetch;
	const fetchFn = boundedFetch(raw);
	// A config mistake is told before anything is sent.
	const target = callbackTarget(settings);
	checkRegistration(settings, target);
	const sdk = await import("@modelcontextprotocol/sdk/client/auth.js");
	// The probe reads only the status and headers (an MCP server may answer with an endless stream).
	const challenge = await probe(entry.url, raw, sdk.extractWWWAuthenticateParams);
	const scope = options.scope ?? store.read().stepUpScope ?? challenge.scope;
	if (settings.authServerMetadataUrl) await pinAuthorizationServer(store, settings.authServerMetadataUrl, fetchFn);
	const callback = await listen(target);
	const stop = new AbortController();
	const onAbort = () => stop.abort(options.signal?.reason);
	options.signal?.addEventListener("abort", onAbort, { once: true });
	const timer = setTimeout(
		() => stop.abort(new Error("sign-in was not finished in time")),
		options.timeoutMs ?? SIGN_IN_TIMEOUT_MS,
	);
	try {
		const provider = new SignInProvider(store, settings, callback.url, documentFits(target), (url) => {
			options.show(url);
			(options.openBrowser ?? openSystemBrowser)(url);
		});
		const first = await sdk.auth(provider, {
			serverUrl: entry.url,
			scope,
			resourceMetadataUrl: challenge.resourceMetadataUrl,
			fetchFn,
		});
		if (first === "AUTHORIZED") return;
		const redirected = await Promise.race([
			callback.next(stop.signal, (url) => provider.answersThisSignIn(url)),
			pasted(options.askPaste, stop.signal),
		]);
		const code = provider.checkRedirect(redirected);
		await sdk.auth(provider, {
			serverUrl: entry.url,
			authorizationCode: code,
			resourceMetadataUrl: challenge.resourceMetadataUrl,
			scope,
			fetchFn,
		});
	} catch (error) {
		if (stop.signal.aborted)
			throw new Error(`Sign-in to "${entry.name}" stopped: ${describeError(stop.signal.reason)}`, { cause: error });
		throw new Error(`Sign-in to "${entry.name}" failed: ${describeError(error)}`, { cause: error });
	} finally {
		clearTimeout(timer);
		options.signal?.removeEventListener("abort", onAbort);
		stop.abort();
		callback.close();
	}
}

/** The largest OAuth document (metadata, registration, token answer) read; real ones are a few KB. */
const MAX_OAUTH_DOCUMENT_BYTES = 1024 * 1024;
/** How long one OAuth request may take, its body included (a server trickling bytes cannot hang `login`). */
const OAUTH_REQUEST_MS = 15_000;

/**
 * Every request of the sign-in (discovery, registration, the code exchange) ends within
 * OAUTH_REQUEST_MS, body included, and its body is read whole up to MAX_OAUTH_DOCUMENT_BYTES:
 * the documents come from servers the user has not vetted.
 */
function boundedFetch(inner: FetchLike): FetchLike {
	return async (url, init) => {
		const deadline = AbortSignal.timeout(OAUTH_REQUEST_MS);
		const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
		try {
			const response = await inner(url, { ...init, signal });
			const declared = Number(response.headers.get("content-length"));
			if (declared > MAX_OAUTH_DOCUMENT_BYTES)
				throw new Error(
					`${String(url)} answered ${declared} bytes, over the ${MAX_OAUTH_DOCUMENT_BYTES} an OAuth document may have`,
				);
			const chunks: Uint8Array[] = [];
			let size = 0;
			for await (const chunk of response.body ?? []) {
				size += chunk.byteLength;
				if (size > MAX_OAUTH_DOCUMENT_BYTES)
					throw new Error(
						`${String(url)} sent more than the ${MAX_OAUTH_DOCUMENT_BYTES} bytes an OAuth document may have`,
					);
				chunks.push(chunk);
			}
			const body = [101, 204, 205, 304].includes(response.status) ? null : Buffer.concat(chunks);
			return new Response(body, {
				status: response.status,
				statusText: response.statusText,
				headers: response.headers,
			});
		} catch (error) {
			if (deadline.aborted && !init?.signal?.aborted)
				throw new Error(`${String(url)} did not answer within ${OAUTH_REQUEST_MS / 1000} s`, { cause: error });
			throw error;
		}
	};
}

/**
 * Uses the authorization server whose metadata document the config names, instead of the one the
 * MCP server advertises (some advertise a wrong one or none): the document is fetched, checked
 * with the SDK's schema and against the issuer its URL implies (RFC 8414 section 3), and stored as
 * the discovery the SDK's auth() then starts from.
 */
async function pinAuthorizationServer(store: SignInStore, metadataUrl: string, fetchFn: FetchLike): Promise<void> {
	const { OAuthMetadataSchema, OpenIdProviderDiscoveryMetadataSchema } = await import(
		"@modelcontextprotocol/sdk/shared/auth.js"
	);
	const expected = issuerOf(metadataUrl);
	let body: unknown;
	try {
		const response = await fetchFn(metadataUrl, {
			headers: { accept: "application/json" },
			signal: AbortSignal.timeout(15_000),
		});
		if (!response.ok) throw new Error(`HTTP ${response.status}`);
		body = await response.json();
	} catch (error) {
		throw new Error(`oauth.authServerMetadataUrl could not be read (${describeError(error)}): check the URL`, {
			cause: error,
		});
	}
	const parsed = OAuthMetadataSchema.safeParse(body);
	const metadata = parsed.success ? parsed.data : OpenIdProviderDiscoveryMetadataSchema.safeParse(body).data;
	if (!metadata)
		throw new Error(
			"oauth.authServerMetadataUrl does not point to authorization server metadata (no issuer, authorization_endpoint or token_endpoint)",
		);
	if (metadata.issuer.replace(/\/$/, "") !== expected) {
		throw new Error(
			`the metadata at oauth.authServerMetadataUrl names issuer ${metadata.issuer}, but its URL implies ${expected} (refused: RFC 8414)`,
		);
	}
	await store.update((s) => ({
		...s,
		discovery: { authorizationServerUrl: metadata.issuer, authorizationServerMetadata: metadata },
	}));
}

/**
 * The issuer a metadata URL implies: the well-known segment removed (RFC 8414 inserts it after the
 * host; OpenID appends it). As in Pi 1.5, the URL must be HTTPS except on this machine.
 */
function issuerOf(metadataUrl: string): string {
	let url: URL;
	try {
		url = new URL(metadataUrl);
	} catch {
		throw new Error("oauth.authServerMetadataUrl is not a URL");
	}
	const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
	if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
		throw new Error("oauth.authServerMetadataUrl must use https (http only on localhost, 127.0.0.1 or [::1])");
	}
	const path = url.pathname;
	for (const known of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
		if (path.startsWith(known)) return `${url.origin}${path.slice(known.length)}`.replace(/\/$/, "");
		if (path.endsWith(known)) return `${url.origin}${path.slice(0, -known.length)}`.replace(/\/$/, "");
	}
	throw new Error(
		"oauth.authServerMetadataUrl must end in /.well-known/oauth-authorization-server or /.well-known/openid-configuration",
	);
}

/** Sign out: the stored client, tokens and discovery of this server go. */
export function signOut(agentDir: string, entry: HttpServerEntry): boolean {
	const store = new SignInStore(agentDir, entry.name, entry.url);
	const had = store.read().tokens !== undefined;
	store.remove();
	return had;
}

/** What the server says when asked without credentials: the scope and metadata URL it names (RFC 9728, SEP-835). */
async function probe(
	url: string,
	fetchFn: FetchLike,
	extract: (res: Response) => { resourceMetadataUrl?: URL; scope?: string },
): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
	try {
		const response = await fetchFn(url, {
			method: "POST",
			headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
			body: JSON.stringify({
				jsonrpc: "2.0",
				id: 0,
				method: "initialize",
				params: {
					protocolVersion: "2025-11-25",
					capabilities: {},
					clientInfo: CLIENT_INFO,
				},
			}),
			signal: AbortSignal.timeout(15_000),
		});
		// Only the status and challenge were wanted: a body that cannot be cancelled cleanly is dropped.
		await response.body?.cancel().catch(() => undefined);
		return response.status === 401 || response.status === 403 ? extract(response) : {};
	} catch {
		return {}; // discovery by well-known paths will say more
	}
}

/** The SDK's view of one sign-in: client identity, tokens, PKCE verifier, discovery, kept in the store. */
class SignInProvider implements OAuthClientProvider {
	private verifier = "";
	private readonly expectedState = randomBytes(24).toString("hex");
	private current: SignIn;

	constructor(
		private readonly store: SignInStore,
		private readonly settings: OAuthSettings,
		private readonly callbackUrl: string,
		private readonly documentFits: boolean,
		private readonly present: (url: string) => void,
	) {
		this.current = store.read();
	}

	get redirectUrl(): string {
		return this.callbackUrl;
	}

	/** A Client ID Metadata Document is used where the server supports it, unless the config says otherwise. */
	get clientMetadataUrl(): string | undefined {
		if (
			this.settings.clientId ||
			this.settings.clientRegistration === "dcr" ||
			this.settings.clientName ||
			!this.documentFits
		)
			return undefined;
		return this.settings.clientMetadataUrl ?? DEFAULT_CLIENT_METADATA_URL;
	}

	get clientMetadata(): OAuthClientMetadata {
		return {
			client_name: this.settings.clientName ?? "pi",
			redirect_uris: [this.callbackUrl],
			grant_types: ["authorization_code", "refresh_token"],
			response_types: ["code"],
			token_endpoint_auth_method: this.settings.clientSecret ? "client_secret_basic" : "none",
			...(this.settings.scope ? { scope: this.settings.scope } : {}),
		};
	}

	state(): string {
		return this.expectedState;
	}

	clientInformation(): OAuthClientInformationMixed | undefined {
		if (this.settings.clientId)
			return {
				client_id: this.settings.clientId,
				...(this.settings.clientSecret ? { client_secret: this.settings.clientSecret } : {}),
			};
		return this.current.client;
	}

	async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
		if (this.settings.clientRegistration === "cimd" && client.client_id !== this.clientMetadataUrl) {
			throw new Error(
				'the authorization server does not accept Client ID Metadata Documents from public clients (oauth.clientRegistration is "cimd"): use "dcr" or "auto"',
			);
		}
		this.current = await this.store.update((s) => ({ ...s, client }));
	}

	tokens(): OAuthTokens | undefined {
		return this.current.tokens;
	}

	async saveTokens(tokens: OAuthTokens): Promise<void> {
		this.current = await this.store.saveTokens(tokens);
	}

	redirectToAuthorization(authorizationUrl: URL): void {
		// PKCE is required: a server whose metadata does not list S256 is refused, not tried. (With no
		// metadata at all, the 2025-03-26 fallback endpoints, PKCE S256 is what that spec required.)
		if (!isWebAddress(authorizationUrl.href)) {
			throw new Error(
				`the authorization server's sign-in page is not a web address (${authorizationUrl.protocol}); it was not opened`,
			);
		}
		const metadata = this.current.discovery?.authorizationServerMetadata;
		if (metadata && !metadata.code_challenge_methods_supported?.includes("S256")) {
			throw new Error(
				"the authorization server does not advertise PKCE with S256 (code_challenge_methods_supported); signing in to it is not safe",
			);
		}
		this.present(authorizationUrl.toString());
	}

	saveCodeVerifier(verifier: string): void {
		this.verifier = verifier;
	}

	codeVerifier(): string {
		return this.verifier;
	}

	async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
		if (
			this.settings.clientRegistration === "cimd" &&
			discovery.authorizationServerMetadata?.client_id_metadata_document_supported !== true
		) {
			throw new Error(
				'the authorization server does not accept Client ID Metadata Documents from public clients (oauth.clientRegistration is "cimd"): use "dcr" or "auto"',
			);
		}
		this.current = await this.store.update((s) => ({ ...s, discovery }));
	}

	discoveryState(): OAuthDiscoveryState | undefined {
		return this.current.discovery;
	}

	async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
		if (scope === "verifier") this.verifier = "";
		this.current = await this.store.update((s) => ({
			...s,
			client: scope === "all" || scope === "client" ? undefined : s.client,
			tokens: scope === "all" || scope === "tokens" ? undefined : s.tokens,
			discovery: scope === "all" || scope === "discovery" ? undefined : s.discovery,
		}));
	}

	/** Whether a request to the callback carries this sign-in's state (anything else is someone else's). */
	answersThisSignIn(redirected: string): boolean {
		return new URL(redirected).searchParams.get("state") === this.expectedState;
	}

	/** The code from the redirect, once it is proven to answer this request: state, then iss (RFC 9207). */
	checkRedirect(redirected: string): string {
		const params = new URL(redirected).searchParams;
		if (params.get("state") !== this.expectedState)
			throw new Error("the redirect's state does not match this sign-in (refused: it may come from another site)");
		const error = params.get("error");
		if (error)
			throw new Error(
				`the authorization server said ${error}${params.get("error_description") ? `: ${params.get("error_description")}` : ""}`,
			);
		const metadata = this.current.discovery?.authorizationServerMetadata as
			| { issuer?: string; authorization_response_iss_parameter_supported?: boolean }
			| undefined;
		const iss = params.get("iss");
		if (iss !== null && metadata?.issuer && iss !== metadata.issuer)
			throw new Error(`the redirect names issuer ${iss}, not ${metadata.issuer} (refused)`);
		if (iss === null && metadata?.authorization_response_iss_parameter_supported)
			throw new Error("the redirect has no iss although the authorization server sends one (refused)");
		const code = params.get("code");
		if (!code) throw new Error("the redirect carries no authorization code");
		return code;
	}
}

interface Callback {
	readonly url: string;
	/** Resolves with the first request to the callback path that `accept` takes, as a full URL; others are answered 400 and ignored. */
	next(signal: AbortSignal, accept: (url: string) => boolean): Promise<string>;
	close(): void;
}

/**
 * A one-shot HTTP listener on the loopback address of the redirect URI. "localhost" listens on
 * 127.0.0.1 and, where the machine has IPv6, on ::1 with the same port: a browser may try either.
 */
async function listen(target: CallbackTarget): Promise<Callback> {
	let deliver: ((url: string) => void) | undefined;
	const arrived = new Promise<string>((resolve) => (deliver = resolve));
	// A request without this sign-in's state (a forged or stale callback) must not end the sign-in.
	let accept: (url: string) => boolean = () => false;
	const servers: Server[] = [];
	const open = async (host: string, port: number): Promise<number> => {
		const server: Server = createServer((req, res) => {
			const url = new URL(req.url ?? "/", "http://callback");
			if (url.pathname !== target.path) {
				res.writeHead(404).end();
				return;
			}
			const full = new URL(req.url ?? "/", redirect).toString();
			if (!accept(full)) {
				res
					.writeHead(400, { "content-type": "text/plain; charset=utf-8" })
					.end("This does not answer the sign-in Pi is waiting for.");
				return;
			}
			res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
			res.end("<!doctype html><title>Signed in</title><p>Pi received the sign-in. You can close this tab.</p>");
			deliver?.(full);
		});
		servers.push(server);
		await new Promise<void>((resolve, reject) => {
			server.once("error", (error: NodeJS.ErrnoException) =>
				reject(
					error.code === "EADDRINUSE"
						? new Error(`the callback port ${port} is in use (oauth.callbackPort or oauth.callbackUrl)`)
						: error,
				),
			);
			server.listen({ port, host, ipv6Only: host === "::1" }, resolve);
		});
		return (server.address() as { port: number }).port;
	};
	const close = () => {
		for (const server of servers) {
			server.closeAllConnections();
			server.close();
		}
	};
	let redirect = "";
	try {
		const port = await open(target.host === "[::1]" ? "::1" : "127.0.0.1", target.port);
		if (target.host === "localhost") await open("::1", port).catch(() => undefined); // no IPv6 here: 127.0.0.1 serves
		redirect = target.url(port);
	} catch (error) {
		close();
		throw error;
	}
	return {
		url: redirect,
		next: (signal, accepts) =>
			new Promise((resolve, reject) => {
				accept = accepts;
				if (signal.aborted) return reject(signal.reason);
				signal.addEventListener("abort", () => reject(signal.reason), { once: true });
				void arrived.then(resolve);
			}),
		close,
	};
}

/** The user's pasted redirect URL, if they paste one before the callback arrives. */
async function pasted(ask: SignInOptions["askPaste"], signal: AbortSignal): Promise<string> {
	// A dialog that failed or was dismissed means "no paste": the callback may still come.
	const answer = ask ? await ask(signal).catch(() => undefined) : undefined;
	if (answer && /^https?:\/\//.test(answer.trim())) return answer.trim();
	// No paste: wait for the callback (this promise settles only when the sign-in is stopped).
	return new Promise((_, reject) => {
		if (signal.aborted) return reject(signal.reason);
		signal.addEventListener("abort", () => reject(signal.reason), { once: true });
	});
}
