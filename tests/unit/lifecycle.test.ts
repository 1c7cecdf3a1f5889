// lifecycle.ts over a typed fake of the pool (tests/support/fake-pool.ts) and a clock the test
// moves: when servers run and when they fail fast, as a user sees it. The same rules with real
// processes: tests/e2e/lifecycle.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import type { GateState } from "../../trust/project-approval.ts";
import { type FakeEntries, fakeLifecycle } from "../support/fake-pool.ts";

const SECOND = 1000;
const TOOL = { name: "t", description: "a tool", inputSchema: { type: "object" } };

let now = 1_000_000_000;
const clock = () => now;
let running: { shutdown(): Promise<void> } | undefined;

/** A lifecycle over fake servers named by `entries` (each a stdio entry of the config, plus what it does). */
function lifecycleOver(entries: FakeEntries, options: { gate?: () => GateState } = {}) {
	const { pool, lifecycle } = fakeLifecycle(entries, TOOL, {
		now: clock,
		backoffMs: 60 * SECOND,
		tickMs: 3_600 * SECOND, // the test ticks by hand
		fillKeepMs: 1,
		...options,
	});
	running = lifecycle;
	return { pool, lifecycle };
}

afterEach(async () => {
	await running?.shutdown();
	running = undefined;
});

describe("when servers run (lifecycle.ts over a fake pool)", () => {
	it("a server that failed to connect fails fast for the backoff, saying when and why, then is tried again", async () => {
		const { pool, lifecycle } = lifecycleOver({ x: { server: { failConnect: new Error("spawn fake ENOENT") } } });
		await expect(lifecycle.ensureConnected("x")).rejects.toThrow("spawn fake ENOENT");
		now += 12 * SECOND;
		await expect(lifecycle.ensureConnected("x")).rejects.toThrow(
			'Server "x" not available (failed 12s ago): spawn fake ENOENT',
		);
		expect(lifecycle.state("x")).toBe("failed");
		expect(lifecycle.unlisted()).toEqual([]); // backing off: no answer waits for it
		expect(pool.connects).toEqual(["x"]);

		pool.servers.x.failConnect = undefined;
		now += 60 * SECOND;
		expect(lifecycle.unlisted()).toEqual(["x"]);
		await lifecycle.ensureConnected("x");
		expect(pool.connects).toEqual(["x", "x"]);
		expect(lifecycle.state("x")).toBe("connected");
	});

	it("a start ahead of a call that failed is told to that call as its own failure, then the backoff speaks", async () => {
		const { lifecycle } = lifecycleOver({ x: { server: { failConnect: new Error("exited (exit code 3)") } } });
		await lifecycle.ensureConnected("x", undefined, true).catch(() => undefined);
		await expect(lifecycle.ensureConnected("x")).rejects.toThrow(/^exited \(exit code 3\)$/);
		await expect(lifecycle.ensureConnected("x")).rejects.toThrow('Server "x" not available (failed 0s ago)');
	});

	it("a project server awaiting approval never starts; approved it starts, denied it closes and its tools go", async () => {
		let gate: GateState = "pending";
		const { pool, lifecycle } = lifecycleOver({ x: {} }, { gate: () => gate });
		lifecycle.start();
		await lifecycle.startup;
		expect(lifecycle.state("x")).toBe("awaiting-approval");
		await expect(lifecycle.ensureConnected("x")).rejects.toThrow(
			'Server "x" is awaiting approval: ask the user to run /mcp approve x',
		);
		expect(await lifecycle.ensureMetadata(["x"])).toEqual([]);
		expect(pool.connects).toEqual([]);

		gate = "allowed";
		await lifecycle.gateChanged(["x"]);
		expect(pool.connects).toEqual(["x"]);
		expect(lifecycle.catalog.forServer("x").map((t) => t.name)).toEqual(["t"]);

		gate = "denied";
		await lifecycle.gateChanged(["x"]);
		expect(lifecycle.state("x")).toBe("denied");
		expect(lifecycle.catalog.has("x")).toBe(false);
		expect(pool.connectedNames()).toEqual([]);
	});

	it("closes a lazy server idle for its idleTimeout, never one with a call in flight", async () => {
		let answer: (() => void) | undefined;
		const { lifecycle } = lifecycleOver({
			x: {
				entry: { idleTimeout: 2 },
				server: { answer: () => new Promise((done) => (answer = () => done({ content: [] }))) },
			},
		});
		await lifecycle.ensureConnected("x");
		const call = lifecycle.callTool("x", "t", {});
		now += 5 * 60 * SECOND;
		await lifecycle.tick();
		expect(lifecycle.state("x")).toBe("connected"); // the call holds it open
		answer?.();
		await call;
		now += 119 * SECOND;
		await lifecycle.tick();
		expect(lifecycle.state("x")).toBe("connected");
		now += 1 * SECOND;
		await lifecycle.tick();
		expect(lifecycle.state("x")).toBe("idle");
	});

	it("connects a keep-alive server again when it stops answering its health check", async () => {
		const { pool, lifecycle } = lifecycleOver({ x: { entry: { lifecycle: "keep-alive" } } });
		lifecycle.start();
		await lifecycle.startup;
		expect(lifecycle.state("x")).toBe("connected");
		await lifecycle.tick();
		expect(pool.connects).toEqual(["x"]);
		pool.servers.x.deaf = true;
		await lifecycle.tick();
		expect(pool.connects).toEqual(["x", "x"]);
		expect(lifecycle.state("x")).toBe("connected");
	});

	it("masks a known secret in a server's answer and its progress", async () => {
		const secret = "sk-live-0123456789abcdef";
		const { pool, lifecycle } = lifecycleOver({
			x: {
				server: {
					progress: [`reading with ${secret}`],
					answer: () => ({ content: [{ type: "text", text: `token ${secret}` }] }),
				},
			},
		});
		pool.redactor.add(secret);
		await lifecycle.ensureConnected("x");
		const heard: string[] = [];
		const result = await lifecycle.callTool("x", "t", {}, { onProgress: (p) => heard.push(p.message ?? "") });
		expect(JSON.stringify([result, heard])).not.toContain(secret);
		expect(result.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^token \S+$/) });
		expect(heard).toEqual([expect.stringMatching(/^reading with \S+$/)]);
	});
});
