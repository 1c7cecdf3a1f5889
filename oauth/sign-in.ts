// Signing in to a remote MCP server with OAuth, on the SDK's auth(): it discovers the protected
// resource and authorization server metadata (RFC 9728, RFC 8414, OpenID, the 2025-03-26
// fallbacks), registers or identifies the client (a Client ID Metadata Document, dynamic
// registration, or a pre-registered client), builds the PKCE S256 request with the resource
// indicator, and exchanges the code. This module adds what a user needs around it: a loopback
// callback on 127.0.0.1 that checks `state` (and `iss`, RFC 9207), the URL shown (and a browser
// opened) so it works over SSH too, a pasted redirect URL as another way back, a deadline. A token
// endpoint may echo what it was sent (the client secret, the code, the PKCE verifier): every
// secret the sign-in handles goes to the redactor, and its errors are masked with it. Where the
// authorization server takes DPoP proofs (or `oauth.dpop` says so), the tokens are bound to a key
// kept with them (oauth/dpop.ts); the SDK signs the token request and answers its nonce.

import { randomBytes } from "node:crypto";
import type {
	DpopSession,
	FetchLike,
	OAuthClientInformationMixed,
	OAuthClientMetadata,
	OAuthClientProvider,
	OAuthDiscoveryState,
	OAuthTokens,
} from "@modelcontextprotocol/client";
import { describeError } from "../errors.ts";
import { Redactor } from "../trust/redaction.ts";
import type { HttpServerEntry } from "../types.ts";
import { type Callback, type CallbackTarget, callbackTarget, listen, pasted } from "./callback.ts";
import { boundedFetch, pinAuthorizationServer, probe } from "./discovery.ts";
import { dpopAlg, dpopSession, newDpopKey } from "./dpop.ts";
import { isWebAddress, openSystemBrowser } from "./open-browser.ts";
import { loadClientSdk } from "./sdk.lazy.ts";
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
	/** DPoP: true always, false never, unset when the authorization server advertises it. */
	readonly dpop?: boolean;
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
		dpop: typeof raw.dpop === "boolean" ? raw.dpop : undefined,
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
	/**
	 * Shows the authorization URL to the user; always called, browser or not. `shortUrl` leads to it
	 * from a browser on this machine (one line to copy; the whole URL is for a browser elsewhere).
	 */
	readonly show: (url: string, shortUrl: string) => void;
	/** Opens a browser on the URL; default: the system's (none when BROWSER=none). */
	readonly openBrowser?: (url: string) => void;
	/** Asks for the redirected URL (from a browser on another machine); resolves undefined when the user will not paste. */
	readonly askPaste?: (signal: AbortSignal) => Promise<string | undefined>;
	readonly fetchFn?: FetchLike;
	readonly signal?: AbortSignal;
	readonly timeoutMs?: number;
	/** A scope to ask for beyond what the server advertises (step-up). */
	readonly scope?: string;
	/**
	 * The scope the server's last refusal named: asked for when the sign-in's own probe meets no
	 * challenge (a server may let `initialize` through and refuse only what comes after).
	 */
	readonly refusedScope?: string;
	/** Hears every secret the sign-in handles and masks its errors (the session's, so later text is masked too). */
	readonly redactor?: Redactor;
}

/**
 * Runs the whole sign-in and stores the tokens. Throws an error that says what went wrong (the
 * server refused, the state did not match, the user did not finish in time); never a token.
 */
export async function signIn(options: SignInOptions): Promise<void> {
	const { entry } = options;
	const settings = oauthSettings(entry);
	const redactor = options.redactor ?? new Redactor();
	redactor.add(settings.clientSecret);
	const store = new SignInStore(options.agentDir, entry.name, entry.url);
	const raw = options.fetchFn ?? fetch;
	const fetchFn = boundedFetch(raw);
	// A config mistake is told before anything is sent.
	const target = callbackTarget(settings);
	checkRegistration(settings, target);
	const sdk = await loadClientSdk();
	// The probe reads only the status and headers (an MCP server may answer with an endless stream).
	const challenge = await probe(entry.url, raw, sdk.extractWWWAuthenticateParams);
	const scope = options.scope ?? store.read().stepUpScope ?? challenge.scope ?? options.refusedScope;
	// Each sign-in reads the server's metadata afresh: it may have moved to another authorization
	// server (SEP-2352), and the SDK trusts a stored discovery over the server's current one. The
	// stored client stays; the SDK drops it itself when it was registered with another issuer.
	if (settings.authServerMetadataUrl) await pinAuthorizationServer(store, settings.authServerMetadataUrl, fetchFn);
	else await store.update((s) => ({ ...s, discovery: undefined }));
	const callback = await listenForRegisteredClient(store, target);
	const stop = new AbortController();
	const onAbort = () => stop.abort(options.signal?.reason);
	options.signal?.addEventListener("abort", onAbort, { once: true });
	const timer = setTimeout(
		() => stop.abort(new Error("sign-in was not finished in time")),
		options.timeoutMs ?? SIGN_IN_TIMEOUT_MS,
	);
	try {
		const provider = new SignInProvider(store, settings, callback.url, documentFits(target), redactor, (url) => {
			options.show(url, callback.shortLink(url));
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
		const { code, iss } = provider.checkRedirect(redirected);
		await sdk.auth(provider, {
			serverUrl: entry.url,
			authorizationCode: code,
			iss, // SDK v2 checks it too (RFC 9207), and refuses a code without it where the server sends one
			resourceMetadataUrl: challenge.resourceMetadataUrl,
			scope,
			fetchFn,
		});
	} catch (error) {
		const why = redactor.scrub(describeError(stop.signal.aborted ? stop.signal.reason : error));
		throw new Error(`Sign-in to "${entry.name}" ${stop.signal.aborted ? "stopped" : "failed"}: ${why}`, {
			cause: error,
		});
	} finally {
		clearTimeout(timer);
		options.signal?.removeEventListener("abort", onAbort);
		stop.abort();
		callback.close();
	}
}

/** Sign out: the stored client, tokens and discovery of this server go. */
export function signOut(agentDir: string, entry: HttpServerEntry): boolean {
	const store = new SignInStore(agentDir, entry.name, entry.url);
	const had = store.read().tokens !== undefined;
	store.remove();
	return had;
}

/** The SDK's view of one sign-in: client identity, tokens, PKCE verifier, discovery, kept in the store. */
class SignInProvider implements OAuthClientProvider {
	private verifier = "";
	private readonly expectedState = randomBytes(24).toString("hex");
	private current: SignIn;
	private session?: Promise<DpopSession>;

	constructor(
		private readonly store: SignInStore,
		private readonly settings: OAuthSettings,
		private readonly callbackUrl: string,
		private readonly documentFits: boolean,
		private readonly secrets: Redactor,
		private readonly present: (url: string) => void,
	) {
		this.current = store.read();
		this.heard(this.current);
	}

	/** The secrets of a stored sign-in (a registered client's secret, tokens, the DPoP key) go to the redactor. */
	private heard(signIn: SignIn): SignIn {
		this.secrets.add(signIn.client?.client_secret, signIn.tokens?.access_token, signIn.tokens?.refresh_token);
		this.secrets.add(signIn.dpopKey?.privateJwk.d);
		return signIn;
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
		this.current = this.heard(await this.store.update((s) => ({ ...s, client })));
	}

	tokens(): OAuthTokens | undefined {
		return this.current.tokens;
	}

	/**
	 * The SDK asks before the token request (discovery is done by then): DPoP when the metadata or
	 * `oauth.dpop` call for it, with the key this server's sign-in keeps (made and stored at first use).
	 */
	dpop(): Promise<DpopSession> | undefined {
		const { discovery } = this.current;
		const alg = dpopAlg(this.settings.dpop, discovery?.authorizationServerMetadata, discovery?.resourceMetadata);
		if (!alg) return undefined;
		this.session ??= (async () => {
			const key = this.current.dpopKey ?? (await newDpopKey(alg));
			this.current = this.heard(await this.store.update((s) => ({ ...s, dpopKey: s.dpopKey ?? key })));
			return dpopSession(this.current.dpopKey ?? key);
		})();
		return this.session;
	}

	async saveTokens(tokens: OAuthTokens): Promise<void> {
		this.current = this.heard(await this.store.saveTokens(tokens));
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
		this.secrets.add(verifier);
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
	checkRedirect(redirected: string): { code: string; iss?: string } {
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
		this.secrets.add(code);
		return { code, iss: iss ?? undefined };
	}
}

/**
 * The callback listener for this sign-in. A client registered (DCR) by an earlier sign-in is
 * registered for the exact redirect URI it sent, port included, and servers match it exactly (the
 * SDK's own authorization router does): that port is listened on again. When it cannot be had,
 * the stored registration is dropped and the SDK registers a client for the new port.
 */
async function listenForRegisteredClient(store: SignInStore, target: CallbackTarget): Promise<Callback> {
	if (target.port !== 0) return listen(target);
	const client = store.read().client as { redirect_uris?: unknown; client_id?: unknown } | undefined;
	const registered = Array.isArray(client?.redirect_uris) ? String(client.redirect_uris[0] ?? "") : "";
	const port = /^http:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):(\d+)\//.exec(registered)?.[1];
	if (!port) return listen(target);
	try {
		return await listen({ ...target, port: Number(port) });
	} catch {
		// The port is taken now: a client registered for it would be refused by the server.
		await store.update((s) => ({ ...s, client: undefined }));
		return listen(target);
	}
}
