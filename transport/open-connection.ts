// Opening one MCP connection: which transport a server is reached over (stdio here or through the
// broker, streamable HTTP with SSE as the fallback), all under one deadline that covers every
// transport tried and closes whatever it opened when it fails or is cancelled. The SDK is imported on
// first use, and asked for once a stdio server's process has begun (the server starts meanwhile).
// Each transport kind is its own module (open-stdio.ts, open-shared.ts, open-http.ts, and
// http-fallback.ts for the choice between HTTP kinds); the pool around connections is server-manager.ts.
// No value of the SDK's is imported here: loading this module must not wait for the SDK (see openStdio).
import { untilAborted } from "../bounds/waits.ts";
import type { HttpServerEntry, ServerEntry } from "../types.ts";
import type { Opened, OpenOptions } from "./connection-types.ts";
import { httpFailure } from "./failure-words.ts";
import { openWithFallback } from "./http-fallback.ts";
import type { McpSdk } from "./mcp-sdk.lazy.ts";
import { httpRoute, openHttpAs } from "./open-http.ts";
import { openStdio } from "./open-stdio.ts";

export type {
	Challenge,
	ClientRequests,
	Launch,
	Launcher,
	Opened,
	OpenOptions,
	ServerConnection,
	SharedLaunch,
	SharedServers,
	SharedTransport,
} from "./connection-types.ts";
export { type ListedMetadata, listMetadata } from "./list-metadata.ts";
export { declaredCapabilities } from "./mcp-client.ts";
export { loadSdk, type McpSdk } from "./mcp-sdk.lazy.ts";
export { STDERR_TAIL_BYTES } from "./open-stdio.ts";
export { headerSource } from "./param-headers.ts";
export { explainRequestError, withStderr } from "./request-errors.ts";
export { advertisesTasks, taskRoute } from "./task-route.ts";

/** Thrown when connecting did not finish within connectTimeoutMs. */
export class ConnectTimeoutError extends Error {
	constructor(server: string, ms: number) {
		super(
			`Server "${server}" did not finish connecting within ${Math.round(ms / 1000)} s. Raise settings.connectTimeoutMs if it needs longer.`,
		);
		this.name = "ConnectTimeoutError";
	}
}

/**
 * Opens a connection within connectTimeoutMs (covering every transport tried), or fails and
 * leaves nothing behind. `signal` cancels it (shutdown, close), with the same cleanup. A stdio
 * server's launch comes first, outside that deadline: it may wait for a package install, which has
 * its own budget (the npx resolver's). `sdk` loads the SDK: a stdio server's process is started
 * before it is asked (loading the SDK holds the event loop, ~100-700 ms, and the spawn waited behind it).
 */
export async function openConnection(
	sdk: () => Promise<McpSdk>,
	entry: ServerEntry,
	options: OpenOptions,
	signal?: AbortSignal,
): Promise<Opened> {
	signal?.throwIfAborted();
	const launch =
		entry.transport === "stdio" ? ((await options.launch?.(entry, signal, options.onInstall)) ?? entry) : undefined;
	const deadline = new AbortController();
	const timer = setTimeout(
		() => deadline.abort(new ConnectTimeoutError(entry.name, options.connectTimeoutMs)),
		options.connectTimeoutMs,
	);
	const cancel = () => deadline.abort(signal?.reason ?? new Error(`Connecting to "${entry.name}" was cancelled`));
	if (signal?.aborted) cancel();
	signal?.addEventListener("abort", cancel, { once: true });
	try {
		// Cancelled before it began (shutdown right after a start): nothing is spawned or fetched.
		if (deadline.signal.aborted) throw deadline.signal.reason;
		return entry.transport === "stdio"
			? await openStdio(sdk, entry, launch ?? entry, options, deadline.signal)
			: await openHttp(await untilAborted(sdk(), deadline.signal), entry, options, deadline.signal);
	} finally {
		clearTimeout(timer);
		signal?.removeEventListener("abort", cancel);
	}
}

/** Streamable HTTP first, SSE as the fallback (or SSE only for `type: "sse"`), within one deadline. */
async function openHttp(
	sdk: McpSdk,
	entry: HttpServerEntry,
	options: OpenOptions,
	signal: AbortSignal,
): Promise<Opened> {
	options.onLaunched?.();
	const route = await httpRoute(sdk, entry, options, signal);
	return openWithFallback(
		entry,
		(kind) => openHttpAs(sdk, entry, route, kind, options, signal),
		signal,
		(streamableError, sseError) => httpFailure(route.url, entry.source.path, streamableError, sseError),
	);
}
