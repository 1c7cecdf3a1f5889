// A tool call through the tasks extension of the 2026-07-28 wire (SEP-2663,
// `io.modelcontextprotocol/tasks`): the call declares the extension in its own capabilities, and
// the server answers with the result or with a task (`resultType: "task"`, handed over by the HTTP
// guard: task-route.ts). A task is polled with tasks/get, which inlines the result once completed,
// the JSON-RPC error once failed, and what it asks while input_required (answered with
// tasks/update through the session's own dialogs and model); tasks/cancel acknowledges a cancel.
// Every step is a request of the SDK's Client (tasks/get and tasks/cancel with our schemas, which
// SDK 2.4.0 allows for the extension's names); the loop is tool-tasks.ts's, shared with 2025.

import type { CallToolResult, Client, ClientCapabilities, RequestOptions, Tool } from "@modelcontextprotocol/client";
import type { ServerEntry } from "../types.ts";
import type { ExtensionTask } from "./mcp-sdk.ts";
import type { ClientRequests, McpSdk } from "./open-connection.ts";
import { answeredTask, CLIENT_CAPABILITIES_META, withTasksDeclared } from "./task-route.ts";
import {
	CANCEL_TIMEOUT_MS,
	runTask,
	type TaskCallOptions,
	type TaskState,
	type TaskWire,
	taskEnded,
} from "./tool-tasks.ts";

export interface ExtensionCallOptions extends TaskCallOptions {
	/** The call's own request options: a server may answer it at once, reporting progress as it works. */
	readonly call: Omit<RequestOptions, "signal"> & { readonly toolDefinition?: Tool };
	/** What the client declared when it connected; each request adds the tasks extension to it. */
	readonly declared: ClientCapabilities;
	/** The server called, and the session's answers to what its task asks. */
	readonly entry: ServerEntry;
	readonly requests?: ClientRequests;
}

type Params = { name: string; arguments: Record<string, unknown> };

/**
 * How long a call given up still waits for a task's id: a server that makes a task answers the
 * creating call at once, while one running the call itself hears the give-up only when its stream
 * closes, after this.
 */
export const LATE_TASK_GRACE_MS = 2000;

type ExtensionState = ExtensionTask & TaskState;

/** A tool on a 2026-07-28 server that offers the tasks extension: its result, at once or through a task. */
export function callToolThroughExtension(
	sdk: McpSdk,
	client: Client,
	params: Params,
	options: ExtensionCallOptions,
): Promise<CallToolResult> {
	return runTask(extensionWire(sdk, client, params, options), params.name, options);
}

export function extensionWire(
	sdk: McpSdk,
	client: Client,
	params: Params,
	options: ExtensionCallOptions,
): TaskWire<ExtensionState> {
	// Caller `_meta` keys win over the SDK's envelope: this replaces the declared capabilities for one request.
	const _meta = { [CLIENT_CAPABILITIES_META]: withTasksDeclared(options.declared) };
	const answered = new Set<string>();
	const state = (task: unknown): ExtensionState => {
		const parsed = sdk.ExtensionTaskSchema.safeParse(task);
		if (!parsed.success) throw new Error(`${params.name}: the server's task is malformed: ${parsed.error.message}`);
		return { ...parsed.data, pollMs: parsed.data.pollIntervalMs };
	};
	return {
		lateTaskGraceMs: LATE_TASK_GRACE_MS,
		create: async (signal) => {
			try {
				return { result: await client.callTool({ ...params, _meta }, { ...options.call, signal }) };
			} catch (error) {
				const task = answeredTask(error);
				if (!task) throw error;
				return { task: state(task) };
			}
		},
		get: async (taskId, signal) =>
			state(
				await client.request({ method: "tasks/get", params: { taskId, _meta } }, sdk.ExtensionTaskSchema, {
					signal,
					timeout: options.timeout,
				}),
			),
		finish: async (task) => {
			if (task.status === "completed") return toolResult(sdk, params.name, task.result);
			if (task.status === "failed" && task.error) throw new Error(`${params.name} failed: ${task.error.message}`);
			throw taskEnded(params.name, task);
		},
		answer: async (task, signal) => {
			const inputResponses: Record<string, unknown> = {};
			// A poll shows every request still open, answered or not: each is answered once.
			for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
				if (answered.has(key)) continue;
				answered.add(key);
				inputResponses[key] = await fulfil(sdk, request, options, signal);
			}
			if (Object.keys(inputResponses).length === 0) return;
			const update = { method: "tasks/update", params: { taskId: task.taskId, inputResponses, _meta } };
			await client.request(update, sdk.TaskAckSchema, { signal, timeout: options.timeout });
		},
		cancel: async (taskId) => {
			await client.request({ method: "tasks/cancel", params: { taskId, _meta } }, sdk.TaskAckSchema, {
				timeout: CANCEL_TIMEOUT_MS,
			});
		},
	};
}

/** A completed task's inlined result, as a tool result. */
function toolResult(sdk: McpSdk, name: string, result: Record<string, unknown> | undefined): CallToolResult {
	const { resultType: _wireOnly, ...rest } = result ?? {};
	const parsed = sdk.CallToolResultSchema.safeParse(rest);
	if (!result || !parsed.success) throw new Error(`${name} completed without a tool result the client can read`);
	return parsed.data;
}

/** One thing a task asks (SEP-2322's input requests), answered as the session answers a server's request. */
async function fulfil(
	sdk: McpSdk,
	request: { method: string; params?: unknown },
	options: ExtensionCallOptions,
	signal: AbortSignal,
): Promise<unknown> {
	const server = options.entry.name;
	const { elicit, sample, roots } = options.requests ?? {};
	switch (request.method) {
		case "elicitation/create": {
			// Declined where the client declares no elicitation, as a server is told that it cannot ask.
			if (!elicit) return { action: "decline" };
			return elicit(server, sdk.ElicitRequestParamsSchema.parse(request.params), signal);
		}
		case "sampling/createMessage": {
			if (!sample) throw new Error(`"${server}" asked for the session's model, which this client does not offer it`);
			return sample(server, sdk.CreateMessageRequestParamsSchema.parse(request.params), signal);
		}
		case "roots/list":
			return { roots: roots?.(options.entry) ?? [] };
		default:
			throw new Error(`"${server}" asked for ${request.method}, which this client does not answer`);
	}
}
