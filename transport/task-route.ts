// Which way a tool call goes: plainly, through the 2025-11-25 task API (SEP-1686: a tool listed
// `execution.taskSupport: "required"`), or through the tasks extension of the 2026-07-28 wire
// (SEP-2663, `io.modelcontextprotocol/tasks`), where tasks left the core protocol and tools no
// longer list their task support: the client declares the extension in the call's own
// capabilities, and the server decides whether to answer at once or with a task to poll.
// Also the one piece of the extension below the SDK: SDK 2.4.0 refuses a `resultType: "task"`
// answer (UnsupportedResultType, dropping the task's id), so the HTTP guard hands a declared
// call's task answer to the SDK as an error that keeps it whole (`asTaskAnswer`, `answeredTask`).
// Kept small: the HTTP guard loads it with every connection; the task calls load on first use.
import type { ClientCapabilities, JSONRPCMessage } from "@modelcontextprotocol/client";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** Where a 2026-07-28 request carries the client's capabilities (SEP-2575's per-request `_meta`). */
export const CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities";
/**
 * The code of the error a declared call's task answer is handed to the SDK as; made up here and
 * never sent (JSON-RPC leaves -32000..-32099 to implementations; -32000 is the closed connection's).
 */
export const TASK_ANSWER_CODE = -32099;

export type TaskRoute = "plain" | "task-api" | "tasks-extension";

export interface RouteInput {
	/** The connection's wire: "modern" is 2026-07-28, anything else the 2025 handshake. */
	readonly era: string | undefined;
	/** The server advertises the tasks extension in its capabilities (2026-07-28). */
	readonly serverTasks: boolean;
	/** What the tool's listing said (2025 listings only: 2026 listings carry no `execution`). */
	readonly taskSupport?: "required" | "optional";
}

/**
 * 2026 wire: through the extension wherever it is negotiated (the server picks per call, so every
 * tool of such a server may answer with a task), and for a tool once listed as task-capable.
 * 2025 wire: through the task API for a tool that requires it; an optional one is called plainly.
 */
export function taskRoute(call: RouteInput): TaskRoute {
	if (call.era === "modern") return call.serverTasks || call.taskSupport ? "tasks-extension" : "plain";
	return call.taskSupport === "required" ? "task-api" : "plain";
}

/** Whether the server's capabilities advertise the tasks extension. */
export function advertisesTasks(capabilities: { extensions?: Record<string, unknown> } | undefined): boolean {
	const declared = capabilities?.extensions?.[TASKS_EXTENSION];
	return typeof declared === "object" && declared !== null;
}

/** The client's capabilities with the tasks extension added, for one request's `_meta`. */
export function withTasksDeclared(capabilities: ClientCapabilities): ClientCapabilities {
	return { ...capabilities, extensions: { ...capabilities.extensions, [TASKS_EXTENSION]: {} } };
}

/** Whether an outgoing message is a tool call that declares the tasks extension. */
export function declaresTasks(message: JSONRPCMessage): boolean {
	const request = message as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
	if (request.method !== "tools/call") return false;
	const declared = request.params?._meta?.[CLIENT_CAPABILITIES_META] as ClientCapabilities | undefined;
	return declared?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** A `resultType: "task"` answer as an error response whose data is the answer; other messages as they are. */
export function asTaskAnswer(message: JSONRPCMessage): JSONRPCMessage {
	const { id, result } = message as { id?: string | number; result?: { resultType?: unknown } };
	if (id === undefined || result?.resultType !== "task") return message;
	return {
		jsonrpc: "2.0",
		id,
		error: { code: TASK_ANSWER_CODE, message: "The server answered with a task", data: result },
	};
}

/** The task answer an error carries (see `asTaskAnswer`), if it is one. */
export function answeredTask(error: unknown): Record<string, unknown> | undefined {
	const { code, data } = (error ?? {}) as { code?: unknown; data?: { resultType?: unknown; taskId?: unknown } };
	if (code !== TASK_ANSWER_CODE || data?.resultType !== "task" || typeof data.taskId !== "string") return undefined;
	return data as Record<string, unknown>;
}
