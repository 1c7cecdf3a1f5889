// Which route a tool call takes to the wire: a plain tools/call, the 2025 task API (a tool that
// requires a task), or the 2026 tasks extension (every call to a server offering it): see
// transport/task-route.ts. The task code loads only with the first call that needs it.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { loadConnections } from "../transport/open-connection.lazy.ts";
import type { ServerConnection } from "../transport/open-connection.ts";
import { loadExtensionTasks, loadTasks } from "../transport/tool-tasks.lazy.ts";
import type { CallOptions, ServerManagerOptions } from "./pool-types.ts";
import { requestOptions } from "./request-options.ts";

/** Sends one tools/call to the server of `connection` by the route its era and tasks support decide. */
export async function sendToolCall(
	connection: ServerConnection,
	params: { readonly name: string; readonly arguments: Record<string, unknown> },
	options: CallOptions,
	settings: ServerManagerOptions,
): Promise<CallToolResult> {
	const { loadSdk, headerSource, taskRoute, advertisesTasks, declaredCapabilities } = await loadConnections();
	const sdk = await loadSdk();
	const client = connection.client;
	const { signal, ...request } = requestOptions(connection, options, settings);
	// The listed schema lets the SDK send the tool's SEP-2243 `Mcp-Param-*` headers.
	const toolDefinition = headerSource(connection.tools.find((t) => t.name === params.name));
	const serverTasks = advertisesTasks(client.getServerCapabilities());
	const route = taskRoute({ era: client.getProtocolEra(), serverTasks, taskSupport: options.taskSupport });
	if (route === "plain") return client.callTool(params, { ...request, signal, toolDefinition });
	const { timeout, maxTotalTimeout } = request;
	const task = { signal, timeout, maxTotalTimeout, onProgress: options.onProgress };
	if (route === "task-api") return (await loadTasks()).callToolAsTask(sdk, client, params, task);
	return (await loadExtensionTasks()).callToolThroughExtension(sdk, client, params, {
		...task,
		call: { ...request, toolDefinition },
		declared: declaredCapabilities(client),
		entry: connection.entry,
		requests: settings.requests,
	});
}
