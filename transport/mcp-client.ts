// The MCP client of one connection: what it declares (a capability for each handler it is given,
// the skills extension always), and connecting it over a transport within the connect's deadline.
import type { Client, ClientCapabilities, Transport } from "@modelcontextprotocol/client";
import { untilAborted } from "../bounds/waits.ts";
import { CLIENT_INFO } from "../client-info.ts";
import type { ServerEntry } from "../types.ts";
import type { ClientRequests, OpenOptions } from "./connection-types.ts";
import type { McpSdk } from "./mcp-sdk.lazy.ts";
import { SKILLS_EXTENSION } from "./skill-client.ts";

/** What each client declared when it was made (the SDK keeps it private). */
const declared = new WeakMap<Client, ClientCapabilities>();

/** The capabilities a client declared: a 2026 request that declares more (the tasks extension) restates them. */
export function declaredCapabilities(client: Client): ClientCapabilities {
	return declared.get(client) ?? {};
}

/** A client that declares (and answers) the server-to-client requests it was given handlers for. */
export function newClient(sdk: McpSdk, entry: ServerEntry, requests: ClientRequests = {}, negotiate = false) {
	const server = entry.name;
	const { elicit, sample, log } = requests;
	const roots = requests.roots?.(entry) === undefined ? undefined : requests.roots;
	const capabilities: ClientCapabilities = {
		...(elicit ? { elicitation: { form: { applyDefaults: true }, url: {} } } : {}),
		...(sample ? { sampling: {} } : {}),
		...(roots ? { roots: { listChanged: true } } : {}),
		// SEP-2133: extensions are declared by both sides; skills are listed only from a server that declares them too.
		extensions: { [SKILLS_EXTENSION]: {}, ...requests.extensions },
	};
	const client = new sdk.Client(CLIENT_INFO, {
		// Streamable HTTP asks the server which revision it speaks (server/discover, one round trip;
		// a 2025 server gets the initialize handshake). stdio stays on the 2025 handshake: some stdio
		// servers exit on any request before initialize.
		...(negotiate ? { versionNegotiation: { mode: "auto" as const } } : {}),
		capabilities,
	});
	declared.set(client, capabilities);
	if (elicit)
		client.setRequestHandler("elicitation/create", (request, ctx) => elicit(server, request.params, ctx.mcpReq.signal));
	if (sample)
		client.setRequestHandler("sampling/createMessage", (request, ctx) =>
			sample(server, request.params, ctx.mcpReq.signal),
		);
	if (roots) client.setRequestHandler("roots/list", () => ({ roots: roots(entry) ?? [] }));
	if (log) client.setNotificationHandler("notifications/message", (notification) => log(server, notification.params));
	return client;
}

/** Connects a client over a transport, giving up when `signal` aborts; on any failure `cleanup` runs before the error is thrown. */
export async function connectClient(
	client: Client,
	transport: Transport,
	options: OpenOptions,
	signal: AbortSignal,
	cleanup: () => Promise<void>,
): Promise<void> {
	try {
		await untilAborted(client.connect(transport, { timeout: options.connectTimeoutMs, signal }), signal);
	} catch (error) {
		await cleanup();
		throw signal.aborted ? (signal.reason ?? error) : error;
	}
}

/** The environment without its unset names: what a process or a `!command` value is given. */
export function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
	return out;
}
