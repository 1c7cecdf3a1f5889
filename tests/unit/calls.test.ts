// proxy/calls.ts, the call path, over the servers' interface (`Servers`: a real lifecycle over a
// typed fake of the pool, tests/support/fake-pool.ts): what a call by name or by a Pi tool's
// reference comes to, as the model reads it. Real servers: tests/e2e/calls.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { callMode, planToolRef, runPlan } from "../../proxy/calls.ts";
import { contentText } from "../../proxy/tool-results.ts";
import type { GateState } from "../../trust/project-approval.ts";
import { type FakeEntries, fakeLifecycle } from "../support/fake-pool.ts";

const TOOL = {
	name: "t",
	description: "a tool",
	inputSchema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
};

let running: { shutdown(): Promise<void> } | undefined;

/** Servers over fake ones: each a stdio entry of the config (plus `entry`'s fields) and what it does. */
function serversOver(entries: FakeEntries, options: { gate?: () => GateState } = {}) {
	const { pool, lifecycle } = fakeLifecycle(entries, TOOL, options);
	running = lifecycle;
	return { pool, servers: lifecycle };
}

const answerOf = (result: { content: Parameters<typeof contentText>[0]; isError: boolean }) => ({
	text: contentText(result.content),
	isError: result.isError,
});

afterEach(async () => {
	await running?.shutdown();
	running = undefined;
});

describe("a call (proxy/calls.ts over the servers' interface)", () => {
	it("by name: resolved, its arguments parsed from JSON, the tool called with them", async () => {
		const { pool, servers } = serversOver({ x: {} });
		const result = await callMode(servers, "x_t", { args: '{"a": 1}' }, {});
		expect(answerOf(result)).toEqual({ text: "t done", isError: false });
		expect(pool.calls).toEqual([{ server: "x", tool: "t", args: { a: 1 } }]);
	});

	it("with arguments that are not JSON: says so with the tool's parameters, and calls nothing", async () => {
		const { pool, servers } = serversOver({ x: {} });
		const { text, isError } = answerOf(await callMode(servers, "x_t", { args: '{"a":' }, {}));
		expect(isError).toBe(true);
		expect(text).toMatch(/^args is not valid JSON \(.+\)\. Pass an object, e\.g\. args: \{"path": "README\.md"\}\.\n/);
		expect(text).toContain("\nParameters:\n- a (number, required)");
		expect(pool.calls).toEqual([]);
	});

	it("to an unknown tool names the closest; to an unknown server, the configured ones", async () => {
		const { servers } = serversOver({ x: {} });
		expect(answerOf(await callMode(servers, "x_tt", {}, {})).text).toBe('Unknown tool "x_tt". Did you mean: x_t?');
		expect(answerOf(await callMode(servers, "t", { server: "nope" }, {})).text).toBe(
			'Unknown server "nope". Configured servers: x',
		);
	});

	it("from a Pi tool: exactly its server's tool, where the bare name is on two servers", async () => {
		const { pool, servers } = serversOver({ a: {}, b: {} });
		expect(answerOf(await callMode(servers, "t", { args: { a: 1 } }, {})).text).toBe(
			'"t" exists on several servers: a_t, b_t. Use one of these names.',
		);
		const plan = await planToolRef(servers, { server: "b", name: "t", qualifiedName: "t" }, { a: 2 }, {});
		expect(answerOf(await runPlan(servers, plan, {}))).toEqual({ text: "t done", isError: false });
		expect(pool.calls).toEqual([{ server: "b", tool: "t", args: { a: 2 } }]);
	});

	it("to a tool approveTools names, with no one to ask: refused, and the tool never runs", async () => {
		const { pool, servers } = serversOver({ x: { entry: { approveTools: true } } });
		const { text, isError } = answerOf(await callMode(servers, "x_t", { args: { a: 1 } }, {}));
		expect({ text, isError }).toEqual({
			text: 't on "x" needs the user\'s approval ("approveTools"), and no one can be asked here.',
			isError: true,
		});
		expect(pool.calls).toEqual([]);
	});

	it("that the server refuses as invalid params: its error, then the tool's parameters", async () => {
		const refusal = Object.assign(new Error("MCP error -32602: a must be a number"), { code: -32602 });
		const { servers } = serversOver({ x: { server: { answer: () => Promise.reject(refusal) } } });
		const { text } = answerOf(await callMode(servers, "x_t", { args: { a: "one" } }, {}));
		expect(text).toBe(
			"x_t failed: MCP error -32602: a must be a number\nExpected by x_t:\nParameters:\n- a (number, required)",
		);
	});

	it("refused for its credentials: the server needs authentication, and says how", async () => {
		const refused = Object.assign(new Error("Unauthorized"), { status: 401 });
		const { servers } = serversOver({ x: { server: { answer: () => Promise.reject(refused) } } });
		const { text } = answerOf(await callMode(servers, "x_t", { args: { a: 1 } }, {}));
		expect(text).toBe('Server "x" needs authentication: /mcp-auth x explains (the server answered HTTP 401)');
	});

	it("to a server awaiting approval says so, and starts nothing", async () => {
		const { pool, servers } = serversOver({ x: {} }, { gate: () => "pending" });
		expect(answerOf(await callMode(servers, "x_t", { args: { a: 1 } }, {})).text).toBe(
			'Server "x" is awaiting approval: ask the user to run /mcp approve x',
		);
		expect(pool.connects).toEqual([]);
	});
});
