// Opening a stdio server through the per-user broker, which runs it once for every session that
// shares it: the client here speaks over the broker's transport.

import type { StdioServerEntry } from "../types.ts";
import type { Opened, OpenOptions, SharedLaunch, SharedServers } from "./connection-types.ts";
import { connectClient, newClient } from "./mcp-client.ts";
import type { McpSdk } from "./mcp-sdk.lazy.ts";

/** The server through the per-user broker; undefined when the broker cannot serve it (then it runs here). */
export async function openShared(
	sdk: McpSdk,
	entry: StdioServerEntry,
	launch: SharedLaunch,
	options: OpenOptions & { broker: SharedServers },
	signal: AbortSignal,
): Promise<Opened | undefined> {
	const limits = { maxMessageBytes: options.maxMessageBytes, connectTimeoutMs: options.connectTimeoutMs };
	const transport = await options.broker.open(entry, launch, limits, sdk.deserializeMessage, signal);
	if (!transport) return undefined;
	const client = newClient(sdk, entry, options.requests);
	const close = async () => {
		client.onclose = undefined;
		await client.close().catch(() => undefined); // the transport below ends the process whatever the client says
		await transport.close();
	};
	await connectClient(client, transport, options, signal, close);
	return {
		client,
		kind: "stdio",
		shared: true,
		stderrTail: () => "",
		transportFailure: () => transport.failure,
		close,
		killSync: () => transport.destroy(),
	};
}
