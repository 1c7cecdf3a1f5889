// A tool call run as a task: the call creates it, it is polled with tasks/get until it is no
// longer working, then its result is fetched. Each poll's status becomes the call's progress;
// giving up (Esc, the time cap) cancels the task on the server, also one given up while the call
// creating it was still being answered. The loop is shared by both wires; what differs is a
// `TaskWire`: the 2025-11-25 task API (SEP-1686: here, `taskApiWire`) and the 2026-07-28 tasks
// extension (SEP-2663: tool-tasks-2026.ts). The loop is ours, not the SDK's, so that a server's
// poll interval can never stall an abort or keep Pi alive: every wait is capped and abortable.

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

/** A task as a poll shows it. */
export interface TaskState {
	readonly taskId: string;
	readonly status: string;
	readonly statusMessage?: string;
	/** How long the server asks to wait between polls (ms). */
	readonly pollMs?: number;
}

/** One wire's requests for a task. */
export interface TaskWire<T extends TaskState> {
	/**
	 * Sends the call that creates the task, with its own signal: a call given up keeps waiting for
	 * the task's id a while, to cancel it. A server may answer with the tool's result at once.
	 */
	create(signal: AbortSignal): Promise<{ readonly task: T } | { readonly result: CallToolResult }>;
	get(taskId: string, signal: AbortSignal): Promise<T>;
	/** The result of a task no longer working (completed, failed, cancelled, or asking what `answer` does not). */
	finish(task: T, signal: AbortSignal): Promise<CallToolResult>;
	/** Answers what an input_required task asks; without it such a task goes to `finish`. */
	answer?(task: T, signal: AbortSignal): Promise<void>;
	/** Asks the server to cancel the task; resolves when it acknowledged (or could not). */
	cancel(taskId: string): Promise<void>;
	/** How long a call given up still waits for its creation's answer, to cancel the task it names. */
	readonly lateTaskGraceMs: number;
}

const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5000;
/** How long cancelling a task may take before it is left to expire (its TTL). */
export const CANCEL_TIMEOUT_MS = 5000;

export async function runTask<T extends TaskState>(
	wire: TaskWire<T>,
	name: string,
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
					`${name} did not finish within ${Math.round(options.maxTotalTimeout / 1000)} s; its task was cancelled (settings.maxTotalTimeoutMs).`,
				),
			),
		options.maxTotalTimeout,
	);
	const creating = startCreation(wire, stop.signal);
	let taskId: string | undefined;
	try {
		const answer = await untilAborted(creating, stop.signal);
		if ("result" in answer) return answer.result;
		let task = answer.task;
		taskId = task.taskId;
		let polls = 0;
		for (;;) {
			if (task.status === "input_required" && wire.answer) await wire.answer(task, stop.signal);
			else if (task.status !== "working") break;
			await sleep(Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollMs ?? 1000)), stop.signal);
			task = await wire.get(taskId, stop.signal);
			options.onProgress?.({ progress: ++polls, message: task.statusMessage ?? task.status });
		}
		return await wire.finish(task, stop.signal);
	} catch (error) {
		if (!stop.signal.aborted) throw error;
		// Best effort: the caller already gave up; a server that cannot cancel lets the task finish alone.
		const cancel = (id: string) => wire.cancel(id).catch(() => undefined);
		if (taskId) await cancel(taskId);
		// Given up while the task was being created: cancelled when (if) its id comes; not waited for.
		else void creating.then((late) => ("task" in late ? cancel(late.task.taskId) : undefined)).catch(() => undefined);
		throw stop.signal.reason ?? error;
	} finally {
		clearTimeout(cap);
		options.signal?.removeEventListener("abort", abort);
	}
}

/**
 * Sends the call that creates the task. It is not stopped with the task: stopped with its answer
 * on the way, it would leave a task running on the server that nobody can name. Once `stop`
 * aborts, it is waited for a while (the wire says how long), then stopped.
 */
function startCreation<T extends TaskState>(wire: TaskWire<T>, stop: AbortSignal) {
	const creation = new AbortController();
	const creating = wire.create(creation.signal);
	let grace: ReturnType<typeof setTimeout> | undefined;
	const giveUp = () => {
		grace = setTimeout(() => creation.abort(stop.reason), wire.lateTaskGraceMs);
	};
	stop.addEventListener("abort", giveUp, { once: true });
	const settled = () => {
		stop.removeEventListener("abort", giveUp);
		clearTimeout(grace);
	};
	creating.then(settled, settled);
	return creating;
}

/** A task that ended without a result, in words. */
export function taskEnded(name: string, task: TaskState): Error {
	const why = task.statusMessage ? `: ${task.statusMessage}` : "";
	return new Error(task.status === "cancelled" ? `${name} was cancelled by the server${why}` : `${name} failed${why}`);
}

type LegacyTask = TaskState & { readonly pollInterval?: number };

/**
 * The 2025-11-25 task API (`execution.taskSupport: "required"`): the call carries `task: {}`;
 * tasks/result gives the result, and delivers the server's queued questions (elicitation) of an
 * input_required task while it waits for the end. SDK v2 keeps this wire only as schemas (its task
 * helpers were dropped), so each step is a plain request with its schema.
 */
export function taskApiWire(
	sdk: McpSdk,
	client: Client,
	params: { name: string; arguments: Record<string, unknown> },
	options: TaskCallOptions,
): TaskWire<LegacyTask> {
	const { timeout } = options;
	const state = (task: LegacyTask): LegacyTask => ({ ...task, pollMs: task.pollInterval });
	return {
		// The creating call answers only with a task: waited for as long as any request.
		lateTaskGraceMs: timeout,
		create: async (signal) => {
			const created = await client.request(
				{ method: "tools/call", params: { ...params, task: {} } },
				sdk.CreateTaskResultSchema,
				{ signal, timeout },
			);
			return { task: state(created.task) };
		},
		get: async (taskId, signal) =>
			state(
				await client.request({ method: "tasks/get", params: { taskId } }, sdk.GetTaskResultSchema, { signal, timeout }),
			),
		finish: async (task, signal) => {
			if (task.status === "failed" || task.status === "cancelled") throw taskEnded(params.name, task);
			const request = { method: "tasks/result", params: { taskId: task.taskId } } as const;
			return client.request(request, sdk.CallToolResultSchema, { signal, timeout });
		},
		cancel: async (taskId) => {
			await client.request({ method: "tasks/cancel", params: { taskId } }, sdk.GetTaskResultSchema, {
				timeout: CANCEL_TIMEOUT_MS,
			});
		},
	};
}

/** A task-only tool on the 2025-11-25 wire, called through the task API. */
export function callToolAsTask(
	sdk: McpSdk,
	client: Client,
	params: { name: string; arguments: Record<string, unknown> },
	options: TaskCallOptions,
): Promise<CallToolResult> {
	return runTask(taskApiWire(sdk, client, params, options), params.name, options);
}
