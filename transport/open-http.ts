// Opening an HTTP server over one transport kind: streamable HTTP, or the legacy HTTP+SSE transport
// (they differ in the SDK transport made and in whether the client negotiates the revision). Both
// go through an HttpGuard (message limit, the 401/403 challenge, every fetch aborted at close).
// Which kind is tried, and the fallback from one to the other: http-fallback.ts.
import type { AuthProvider, FetchLike } from "@modelcontextprotocol/client";
import { resolveCommandValues } from "../config/command-values.ts";
import { resolvedSecrets } from "../config/entry-secrets.ts";
import { requestHeaders } from "../oauth-handler.ts";
import type { HttpServerEntry } from "../types.ts";
import type { Opened, OpenOptions } from "./connection-types.ts";
import { authorization } from "./http-authorization.ts";
import { HttpGuard } from "./http-guard.ts";
import { connectClient, definedOnly, newClient } from "./mcp-client.ts";
import type { McpSdk } from "./mcp-sdk.lazy.ts";

export type HttpKind = "streamable-http" | "sse";

/** Where and how an HTTP server is reached: the same for every kind tried. */
export interface HttpRoute {
	readonly url: URL;
	readonly requestInit: RequestInit;
	readonly authProvider?: AuthProvider;
	readonly fetch?: FetchLike;
	/** Tells the connect's `onChallenge` what a 401/403 asked for. */
	readonly onRefused: (response: Response) => void;
	readonly oauthToken?: string;
}

/** The server's URL, its headers (`!command` values resolved, every secret told to the redactor) and its authorization. */
export async function httpRoute(
	sdk: McpSdk,
	entry: HttpServerEntry,
	options: OpenOptions,
	signal: AbortSignal,
): Promise<HttpRoute> {
	const url = new URL(entry.url);
	const credentials = await requestHeaders(entry, options.auth);
	if (credentials.oauthToken) options.onCredential?.(credentials.oauthToken);
	const headers = await resolveCommandValues(credentials.headers, "headers", definedOnly(options.env));
	options.redactor.add(...resolvedSecrets(entry, headers));
	if (signal.aborted) throw signal.reason;
	const { authProvider, fetch } = await authorization(entry, credentials, options);
	const onRefused = (response: Response) => {
		const { scope, error, resourceMetadataUrl } = sdk.extractWWWAuthenticateParams(response);
		options.onChallenge?.({
			status: response.status as 401 | 403,
			scope,
			error,
			resourceMetadataUrl: resourceMetadataUrl?.toString(),
		});
	};
	return { url, requestInit: { headers }, authProvider, fetch, onRefused, oauthToken: credentials.oauthToken };
}

/** A client connected over `kind`; on failure everything it opened is closed before the error is thrown. */
export async function openHttpAs(
	sdk: McpSdk,
	entry: HttpServerEntry,
	route: HttpRoute,
	kind: HttpKind,
	options: OpenOptions,
	signal: AbortSignal,
): Promise<Opened> {
	const { url, requestInit, authProvider } = route;
	// A DPoP proof is made under the guard: a request it sends again gets a fresh one.
	const guard = new HttpGuard({
		maxMessageBytes: options.maxMessageBytes,
		onRefused: route.onRefused,
		fetch: route.fetch,
	});
	const inner =
		kind === "sse"
			? new sdk.SSEClientTransport(url, { requestInit, fetch: guard.fetch, authProvider })
			: new sdk.StreamableHTTPClientTransport(url, { requestInit, fetch: guard.fetch, authProvider });
	const client = newClient(sdk, entry, options.requests, kind === "streamable-http");
	const close = async () => {
		client.onclose = undefined;
		await client.close().catch(() => undefined); // the transport below ends the process whatever the client says
		guard.abort(); // no fetch, stream or EventSource retry outlives the connection
	};
	await connectClient(client, guard.wrap(inner), options, signal, close);
	return {
		client,
		kind,
		stderrTail: () => "",
		transportFailure: () => undefined,
		close,
		killSync: () => guard.abort(),
		oauthToken: route.oauthToken,
	};
}
