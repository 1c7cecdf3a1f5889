// Tool calls run as tasks, on both wires. 2025 (the task API): a call given up (Esc) while the
// server is still answering the call that creates its task cancels the task once its id arrives,
// not left running to its TTL. 2026 (the tasks extension, SEP-2663): the call declares the
// extension; a task answer is polled past the request timeout (each poll is progress) to its
// inlined result or error; what it asks is asked once; Esc, a late id and the time cap cancel it.
import type { Client } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as sdk from "../../transport/mcp-sdk.ts";
import type { McpSdk } from "../../transport/open-connection.ts";
import { CLIENT_CAPABILITIES_META, TASK_ANSWER_CODE, TASKS_EXTENSION } from "../../transport/task-route.ts";
import { callToolAsTask, runTask } from "../../transport/tool-tasks.ts";
import { callToolThroughExtension, type ExtensionCallOptions } from "../../transport/tool-tasks-2026.ts";
import type { ServerEntry } from "../../types.ts";

describe("callToolAsTask", () => {
	it("cancels a task whose creation was still answering when the call was given up", async () => {
		let answerCreate: (value: unknown) => void = () => undefined;
		const cancelled: string[] = [];
		const client = {
			// Like the SDK: a request given an abort signal rejects when it aborts.
			request: (
				request: { method: string; params: { taskId?: string } },
				_schema: unknown,
				options?: { signal?: AbortSignal },
			) => {
				if (request.method === "tasks/cancel") {
					cancelled.push(request.params.taskId ?? "");
					return Promise.resolve({});
				}
				return new Promise((resolve, reject) => {
					answerCreate = resolve;
					options?.signal?.addEventListener("abort", () => reject(options.signal?.reason));
				});
			},
		};
		const sdk = { CreateTaskResultSchema: {}, CallToolResultSchema: {}, GetTaskResultSchema: {} } as unknown as McpSdk;
		const controller = new AbortController();
		const call = callToolAsTask(
			sdk,
			client as never,
			{ name: "research", arguments: {} },
			{
				signal: controller.signal,
				timeout: 60_000,
				maxTotalTimeout: 60_000,
			},
		);
		controller.abort(new Error("the user pressed Esc"));
		await expect(call).rejects.toThrow("the user pressed Esc");
		// The server's answer comes after the user gave up: the task it names is cancelled.
		answerCreate({ task: { taskId: "t-1", status: "working" } });
		await vi.waitFor(() => expect(cancelled).toEqual(["t-1"]));
	});
});

/** A 2026-07-28 server's side of a task call: how the call is answered, then each tasks/get in turn. */
function extensionServer(answerCall: () => Promise<unknown>, polls: Record<string, unknown>[]) {
	const sent: { method: string; params: Record<string, unknown> }[] = [];
	const client = {
		callTool: (params: Record<string, unknown>, options?: { signal?: AbortSignal }) => {
			sent.push({ method: "tools/call", params });
			return new Promise((resolve, reject) => {
				options?.signal?.addEventListener("abort", () => reject(options.signal?.reason));
				answerCall().then(resolve, reject);
			});
		},
		request: async (request: { method: string; params: Record<string, unknown> }) => {
			sent.push(request);
			if (request.method !== "tasks/get") return {};
			return polls.length > 1 ? polls.shift() : polls[0];
		},
	};
	return { client: client as unknown as Client, sent };
}

/** The error the HTTP guard hands the SDK for a task answer (what `callTool` then rejects with). */
const taskAnswer = (taskId: string) => ({
	code: TASK_ANSWER_CODE,
	data: {
		resultType: "task",
		taskId,
		status: "working",
		createdAt: "",
		lastUpdatedAt: "",
		ttlMs: null,
		pollIntervalMs: 1,
	},
});
const task = (status: string, extra: Record<string, unknown> = {}) => ({
	taskId: "t-9",
	status,
	createdAt: "",
	lastUpdatedAt: "",
	ttlMs: null,
	pollIntervalMs: 1,
	...extra,
});
const options = (extra: Partial<ExtensionCallOptions> = {}): ExtensionCallOptions => ({
	timeout: 50,
	maxTotalTimeout: 60_000,
	call: {},
	declared: { elicitation: {} },
	entry: { name: "jobs" } as ServerEntry,
	...extra,
});
const params = { name: "research", arguments: { topic: "tides" } };
const cancels = (sent: { method: string; params: Record<string, unknown> }[]) =>
	sent.filter((r) => r.method === "tasks/cancel").map((r) => r.params.taskId);

describe("callToolThroughExtension (2026-07-28)", () => {
	it("declares the extension on every request, polls the task the call is answered with, each poll as progress, to its inlined result", async () => {
		const done = { content: [{ type: "text", text: "Research on tides: done" }] };
		const polls = [task("working", { statusMessage: "step 1" }), task("working", { statusMessage: "step 2" })];
		const server = extensionServer(
			() => Promise.reject(taskAnswer("t-9")),
			[...polls, task("completed", { result: done })],
		);
		const progress: string[] = [];
		const result = await callToolThroughExtension(sdk, server.client, params, {
			...options(),
			onProgress: (p) => progress.push(p.message ?? ""),
		});
		expect(result).toEqual(done);
		expect(progress).toEqual(["step 1", "step 2", "completed"]);
		// Every request restates what the client declared, with the extension added (per-request capabilities).
		const declared = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } };
		for (const request of server.sent)
			expect((request.params._meta as Record<string, unknown>)[CLIENT_CAPABILITIES_META]).toEqual(declared);
	});

	it("returns a result the server gave at once, without polling", async () => {
		const now = { content: [{ type: "text", text: "at once" }] };
		const server = extensionServer(() => Promise.resolve(now), []);
		expect(await callToolThroughExtension(sdk, server.client, params, options())).toEqual(now);
		expect(server.sent.map((r) => r.method)).toEqual(["tools/call"]);
	});

	it("fails with a failed task's JSON-RPC error", async () => {
		const failed = task("failed", { error: { code: -32603, message: "rate limit exceeded" } });
		const server = extensionServer(() => Promise.reject(taskAnswer("t-9")), [failed]);
		await expect(callToolThroughExtension(sdk, server.client, params, options())).rejects.toThrow(
			"research failed: rate limit exceeded",
		);
	});

	it("asks what an input_required task asks once, through the session's handler, and answers with tasks/update", async () => {
		const question = {
			method: "elicitation/create",
			params: { message: "Apply?", requestedSchema: { type: "object", properties: {} } },
		};
		const asking = task("input_required", { inputRequests: { ok: question } });
		const done = { content: [{ type: "text", text: "applied" }] };
		const server = extensionServer(
			() => Promise.reject(taskAnswer("t-9")),
			[asking, asking, task("completed", { result: done })],
		);
		const asked: string[] = [];
		const elicit = async (server: string, request: { message: string }) => {
			asked.push(`${server}: ${request.message}`);
			return { action: "accept" as const, content: {} };
		};
		const result = await callToolThroughExtension(sdk, server.client, params, options({ requests: { elicit } }));
		expect(result).toEqual(done);
		expect(asked).toEqual(["jobs: Apply?"]); // the second poll shows the same question: not asked again
		const updates = server.sent.filter((r) => r.method === "tasks/update").map((r) => r.params.inputResponses);
		expect(updates).toEqual([{ ok: { action: "accept", content: {} } }]);
	});

	it("cancels the task on the server when the call is given up (Esc)", async () => {
		const server = extensionServer(() => Promise.reject(taskAnswer("t-9")), [task("working")]);
		const controller = new AbortController();
		const call = callToolThroughExtension(sdk, server.client, params, {
			...options(),
			signal: controller.signal,
			onProgress: () => controller.abort(new Error("the user pressed Esc")),
		});
		await expect(call).rejects.toThrow("the user pressed Esc");
		expect(cancels(server.sent)).toEqual(["t-9"]);
	});

	it("cancels a task whose id arrives after the call was given up", async () => {
		let answer: (error: unknown) => void = () => undefined;
		const server = extensionServer(() => new Promise((_resolve, reject) => (answer = reject)), [task("working")]);
		const controller = new AbortController();
		const call = callToolThroughExtension(sdk, server.client, params, { ...options(), signal: controller.signal });
		controller.abort(new Error("the user pressed Esc"));
		await expect(call).rejects.toThrow("the user pressed Esc");
		expect(cancels(server.sent)).toEqual([]);
		answer(taskAnswer("t-late"));
		await vi.waitFor(() => expect(cancels(server.sent)).toEqual(["t-late"]));
	});

	it("cancels a task still working at the time cap, naming the setting", async () => {
		const server = extensionServer(() => Promise.reject(taskAnswer("t-9")), [task("working")]);
		await expect(
			callToolThroughExtension(sdk, server.client, params, { ...options(), maxTotalTimeout: 300 }),
		).rejects.toThrow("settings.maxTotalTimeoutMs");
		expect(cancels(server.sent)).toEqual(["t-9"]);
	});
});

describe("a call given up while its creation is unanswered", () => {
	afterEach(() => vi.useRealTimers());

	it("stops waiting for the creation after a grace, so a call the server runs at once ends there too", async () => {
		vi.useFakeTimers();
		let creation: AbortSignal | undefined;
		const wire = {
			create: (signal: AbortSignal) => {
				creation = signal;
				return new Promise<never>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
			},
			get: async () => ({ taskId: "t", status: "working" }),
			finish: async () => ({ content: [] }),
			cancel: async () => undefined,
			lateTaskGraceMs: 2000,
		};
		const controller = new AbortController();
		const call = runTask(wire, "research", { signal: controller.signal, timeout: 1000, maxTotalTimeout: 60_000 });
		controller.abort(new Error("the user pressed Esc"));
		await expect(call).rejects.toThrow("the user pressed Esc");
		expect(creation?.aborted).toBe(false); // its task's id may still come, to be cancelled
		await vi.advanceTimersByTimeAsync(1999);
		expect(creation?.aborted).toBe(false);
		await vi.advanceTimersByTimeAsync(1);
		expect(creation?.aborted).toBe(true);
	});
});
