// The HTTP guard around the SDK's transport: a 2026-07-28 result without `resultType` is taken as
// complete (the conformance suite's SEP-2322 rule; the SDK alone refuses it), and nothing else is
// touched: a 2025 answer, or a 2026 one that says its type. A call that declared the tasks
// extension gets its task answer (`resultType: "task"`, which SDK 2.4.0 refuses) as an error
// carrying the task.
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { HttpGuard } from "../../transport/http-guard.ts";
import { answeredTask, TASKS_EXTENSION } from "../../transport/task-route.ts";

/** A transport that records what is sent and lets the test deliver answers. */
function fakeTransport() {
	const sent: JSONRPCMessage[] = [];
	const transport: Transport = {
		start: async () => undefined,
		close: async () => undefined,
		send: async (message) => void sent.push(message),
	};
	return { transport, sent, answer: (message: JSONRPCMessage) => transport.onmessage?.(message) };
}

const call = (id: number, revision?: string) =>
	({
		jsonrpc: "2.0",
		id,
		method: "tools/call",
		params: {
			name: "echo",
			arguments: {},
			...(revision ? { _meta: { "io.modelcontextprotocol/protocolVersion": revision } } : {}),
		},
	}) as JSONRPCMessage;

describe("the HTTP guard's transport", () => {
	it("takes a 2026-07-28 result without resultType as complete, and leaves other answers as they are", async () => {
		const inner = fakeTransport();
		const guarded = new HttpGuard({ maxMessageBytes: 1_000_000 }).wrap(inner.transport);
		const received: JSONRPCMessage[] = [];
		guarded.onmessage = (message) => void received.push(message);
		await guarded.send(call(1, "2026-07-28"));
		await guarded.send(call(2));
		await guarded.send(call(3, "2026-07-28"));
		const content = [{ type: "text", text: "ok" }];
		inner.answer({ jsonrpc: "2.0", id: 1, result: { content } } as JSONRPCMessage);
		inner.answer({ jsonrpc: "2.0", id: 2, result: { content } } as JSONRPCMessage);
		inner.answer({ jsonrpc: "2.0", id: 3, result: { content, resultType: "input_required" } } as JSONRPCMessage);
		expect(received).toEqual([
			{ jsonrpc: "2.0", id: 1, result: { content, resultType: "complete" } },
			{ jsonrpc: "2.0", id: 2, result: { content } },
			{ jsonrpc: "2.0", id: 3, result: { content, resultType: "input_required" } },
		]);
	});
});

describe("a 2026-07-28 call that declared the tasks extension", () => {
	it("gets a task answer as an error carrying the task; a call that declared nothing gets it as it came", async () => {
		const inner = fakeTransport();
		const guarded = new HttpGuard({ maxMessageBytes: 1_000_000 }).wrap(inner.transport);
		const received: JSONRPCMessage[] = [];
		guarded.onmessage = (message) => void received.push(message);
		const declared = call(1, "2026-07-28") as { params: { _meta: Record<string, unknown> } };
		declared.params._meta["io.modelcontextprotocol/clientCapabilities"] = { extensions: { [TASKS_EXTENSION]: {} } };
		await guarded.send(declared as unknown as JSONRPCMessage);
		await guarded.send(call(2, "2026-07-28"));
		const task = {
			resultType: "task",
			taskId: "t-1",
			status: "working",
			createdAt: "",
			lastUpdatedAt: "",
			ttlMs: null,
		};
		inner.answer({ jsonrpc: "2.0", id: 1, result: task } as JSONRPCMessage);
		inner.answer({ jsonrpc: "2.0", id: 2, result: task } as JSONRPCMessage);
		const [handed, untouched] = received as { error?: { code: number; data: unknown } }[];
		expect(answeredTask(handed.error)).toEqual(task);
		expect(untouched).toEqual({ jsonrpc: "2.0", id: 2, result: task });
	});
});
