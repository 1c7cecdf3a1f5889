// Tasks on the 2026-07-28 wire (the tasks extension, SEP-2663) in the real Pi on both lines (rpc),
// with tests/fixtures/server-2026.ts over HTTP configured with a 1 s request timeout: a
// task-required tool that works 3 s returns its result, its steps shown as the call's progress;
// Esc cancels its task on the server (which the server tells); a task that asks the user asks
// through Pi's dialogs once and finishes with the answer.
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpServerManager } from "../../server-manager.ts";
import { configOf, entryOf, freePort, ROOT, stopChild, TSX, waitForPort } from "../support/helpers.ts";
import { createPiHome, type PiHome, type PiRpc, type RpcEvent, startPiRpc } from "../support/pi-cli-harness.ts";
import { converse, steps, toolResults } from "../support/pi-conversation.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const FIXTURE = join(ROOT, "tests", "fixtures", "server-2026.ts");

describe.each(PI_HOSTS)("a 2026-07-28 server's tasks in the real $name", (host) => {
	let server: ChildProcess | undefined;
	let url = "";
	let home: PiHome;
	let pi: PiRpc;
	/** The test's own session with the server, to ask it what happened to its tasks. */
	const probe = new McpServerManager();

	beforeAll(async () => {
		const port = await freePort();
		server = spawn(process.execPath, [TSX, FIXTURE, "http", String(port)], { stdio: "ignore" });
		await waitForPort(port, server);
		url = `http://127.0.0.1:${port}/mcp`;
		home = await createPiHome({ mcpConfig: { mcpServers: { jobs: { url, timeout: 1 } } } });
		pi = await startPiRpc({ home, host, steps });
	}, 60_000);
	afterAll(async () => {
		await pi?.close();
		await probe.closeAll();
		if (server) await stopChild(server);
		await home?.dispose();
	});

	const serverTasks = async () => {
		await probe.connect(entryOf(configOf({ jobs: { url } }), "jobs"));
		return JSON.stringify((await probe.callTool("jobs", "tasks", {})).content);
	};
	const progress = (events: RpcEvent[]) =>
		events.filter((e) => e.type === "tool_execution_update").map((e) => JSON.stringify(e.partialResult));

	it("a task-required tool working 3 s past the 1 s request timeout returns its result, its steps shown as progress", async () => {
		const { events } = await converse(pi, 'call {"tool":"jobs_research","args":{"topic":"tides","ms":3000}}', () => ({
			cancelled: true,
		}));
		expect(toolResults(events)).toContain("Research on tides: done");
		expect(progress(events).some((u) => u.includes("researching tides: step"))).toBe(true);
	}, 60_000);

	it("Esc cancels the task on the server", async () => {
		const from = pi.events.length;
		const call = 'call {"tool":"jobs_research","args":{"topic":"forever","ms":600000}}';
		pi.send({ id: "long", type: "prompt", message: call });
		// Esc once the task is running and reporting, not after a guessed delay.
		await pi.waitFor((e) => progress([e]).some((u) => u.includes("researching forever: step")), from, 30_000);
		pi.send({ id: "esc", type: "abort" });
		await pi.waitFor((e) => e.type === "agent_end", from, 30_000);
		await vi.waitFor(async () => expect(await serverTasks()).toContain(", 1 cancelled"), { timeout: 20_000 });
	}, 60_000);

	it("a task that asks the user asks once, through Pi's dialogs, and finishes with the answer", async () => {
		const answer = (dialog: RpcEvent) => {
			const options = (dialog.options ?? []) as string[];
			if (options.includes("Send")) return { value: "Send" };
			return { value: options.find((o) => o.startsWith("Yes")) ?? options[0] };
		};
		const { dialogs, events } = await converse(pi, 'call {"tool":"jobs_approve","args":{"change":"v2"}}', answer);
		const asked = dialogs.filter((d) => String(d.title).includes("Apply v2?"));
		expect(String(asked[0]?.title)).toContain('MCP server "jobs" asks: Apply v2?');
		expect(asked).toHaveLength(1);
		expect(toolResults(events)).toContain("applied v2");
	}, 60_000);
});
