// What a sign-in fetches before the user sees a page: the server's challenge (probe), the
// authorization server the config pins (checked against its issuer, RFC 8414), and every OAuth
// document read within a size and time bound, since they come from servers the user has not vetted.
import type { FetchLike } from "@modelcontextprotocol/client";
import { CLIENT_INFO } from "../client-info.ts";
import { describeError } from "../errors.ts";
import { loadCoreSdk } from "./sdk.lazy.ts";
import type { SignInStore } from "./store.ts";

/** The largest OAuth document (metadata, registration, token answer) read; real ones are a few KB. */
const MAX_OAUTH_DOCUMENT_BYTES = 1024 * 1024;
/** How long one OAuth request may take, its body included (a server trickling bytes cannot hang `login`). */
const OAUTH_REQUEST_MS = 15_000;

/**
 * Every request of the sign-in (discovery, registration, the code exchange) ends within
 * OAUTH_REQUEST_MS, body included, and its body is read whole up to MAX_OAUTH_DOCUMENT_BYTES:
 * the documents come from servers the user has not vetted.
 */
export function boundedFetch(inner: FetchLike): FetchLike {
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
export async function pinAuthorizationServer(
	store: SignInStore,
	metadataUrl: string,
	fetchFn: FetchLike,
): Promise<void> {
	const { OAuthMetadataSchema, OpenIdProviderDiscoveryMetadataSchema } = await loadCoreSdk();
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

/** What the server says when asked without credentials: the scope and metadata URL it names (RFC 9728, SEP-835). */
export async function probe(
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
