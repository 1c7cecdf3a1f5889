// Calling a tool that requires tasks (`execution.taskSupport: "required"`, SEP-1686): the call
// creates a task, which is polled with tasks/get until it ends, then tasks/result gives the tool's
// result. Status messages become progress; cancelling (Esc, the time cap) sends tasks/cancel.
// Tasks are 2025-11-25 wire vocabulary that SDK v2 keeps only as schemas (SEP-2663 removed its
// task helpers), so each step is a plain request with its schema. The loop is ours, so that a
// server's pollInterval can never stall an abort or keep Pi alive: every wait is capped and abortable.

import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { sleep, untilAborted } from "../bounds/waits.ts";
import type { Progress } from "../types.ts";
import type { McpSdk } from "./open-connection.ts";

export interface TaskCallOptions {
	readonly signal?: AbortSignal;
	/** Timeout of each request (create, poll, result). */
	readonly timeout: number;
	/** The longest the whole task may run before it is cancelled. */
	readonly maxTotalTimeout: number;
	readonly onProgress?: (progress: Progress) => void;
}

const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5000;
/** How long cancelling a task may take before it is left to expire (its TTL). */
const CANCEL_TIMEOUT_MS = 5000;
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

export async function callToolAsTask(
	sdk: McpSdk,
	client: Client,
	params: { name: string; arguments: Record<string, unknown> },
	options: TaskCallOptions,
): Promise<CallToolResult> {
	const stop = new AbortController();
	const abort = () => stop.abort(options.signal?.reason);
	if (options.signal?.aborted) abort();
	options.signal?.addEventListener("abort", abort, { once: true });
	const cap = setTimeout(
		() =>
			stop.abort(
				new Error(
					`${params.name} did not finish within ${Math.round(options.maxTotalTimeout / 1000)} s; its task was cancelled (settings.maxTotalTimeoutMs).`,
				),
			),
		options.maxTotalTimeout,
	);
	const request = { signal: stop.signal, timeout: options.timeout };
	let taskId: string | undefined;
	// The creating request is not aborted with the call: aborted with its answer on the way, it would
	// leave a task running on the server that nobody can name. A call given up meanwhile cancels the
	// task once its id arrives (below), bounded by the request timeout.
	const creating = client.request(
		{ method: "tools/call", params: { ...params, task: {} } },
		sdk.CreateTaskResultSchema,
		{ timeout: options.timeout },
	);
	try {
		const created = await untilAborted(creating, stop.signal);
		taskId = created.task.taskId;
		let task = created.task;
		let polls = 0;
		while (!TERMINAL.has(task.status)) {
			// input_required: tasks/result delivers the server's queued questions (elicitation) and waits for the end.
			if (task.status === "input_required") break;
			await sleep(Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollInterval ?? 1000)), stop.signal);
			task = await client.request({ method: "tasks/get", params: { taskId } }, sdk.GetTaskResultSchema, request);
			options.onProgress?.({ progress: ++polls, message: task.statusMessage ?? task.status });
		}
		if (task.status === "failed")
			throw new Error(`${params.name} failed${task.statusMessage ? `: ${task.statusMessage}` : ""}`);
		if (task.status === "cancelled")
			throw new Error(
				`${params.name} was cancelled by the server${task.statusMessage ? `: ${task.statusMessage}` : ""}`,
			);
		return await client.request({ method: "tasks/result", params: { taskId } }, sdk.CallToolResultSchema, request);
	} catch (error) {
		if (!stop.signal.aborted) throw error;
		// Best effort: the caller already gave up; a server that cannot cancel lets the task finish alone.
		const cancel = (id: string) =>
			client
				.request({ method: "tasks/cancel", params: { taskId: id } }, sdk.GetTaskResultSchema, {
					timeout: CANCEL_TIMEOUT_MS,
				})
				.catch(() => undefined);
		if (taskId) await cancel(taskId);
		// Given up while the task was being created: cancelled when (if) its id comes; not waited for.
		else void creating.then((created) => cancel(created.task.taskId)).catch(() => undefined);
		throw stop.signal.reason ?? error;
	} finally {
		clearTimeout(cap);
		options.signal?.removeEventListener("abort", abort);
	}
}
