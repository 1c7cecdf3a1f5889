// Lifecycle policy with fake timers (interval and clock only; servers are real processes):
// idle close, a call in flight blocking it, keep-alive reconnect after a real kill, failure backoff.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ServerLifecycle } from "../../lifecycle.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { McpServerManager } from "../../server-manager.ts";
import { configOf, everythingStdio, lifecycleOf, tempDir } from "../support/helpers.ts";

const MINUTE = 60_000;

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
	const deadline = performance.now() + timeoutMs;
	while (!check()) {
		if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setImmediate(r));
	}
}

describe("ServerLifecycle", () => {
	let lifecycle: ServerLifecycle | undefined;
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
	});
	afterEach(async () => {
		vi.useRealTimers();
		await lifecycle?.shutdown();
		lifecycle = undefined;
	});

	it("a lazy server started only to fill the cache is kept for a call, then closed unused", async () => {
		vi.useRealTimers();
		lifecycle = new ServerLifecycle({
			config: configOf({ ev: everythingStdio() }),
			manager: new McpServerManager(),
			fillKeepMs: 300,
		});
		lifecycle.start();
		await lifecycle.startup;
		expect(lifecycle.state("ev")).toBe("connected");
		await vi.waitFor(() => expect(lifecycle?.state("ev")).toBe("idle"), { timeout: 10_000 });
	});

	it("closes a lazy server after idleTimeout minutes and reconnects on the next call", async () => {
		lifecycle = lifecycleOf(configOf({ ev: { ...everythingStdio(), idleTimeout: 2 } }));
		lifecycle.start();
		await lifecycle.startup; // first run: connected once to learn its tools, kept for the call that usually follows
		expect(lifecycle.state("ev")).toBe("connected");

		expect((await runProxy(lifecycle, { tool: "ev_echo", args: { message: "a" } })).isError).toBe(false);
		expect(lifecycle.state("ev")).toBe("connected");
		await vi.advanceTimersByTimeAsync(1.5 * MINUTE);
		expect(lifecycle.state("ev")).toBe("connected");
		await vi.advanceTimersByTimeAsync(1 * MINUTE);
		expect(lifecycle.state("ev")).toBe("idle");

		expect(contentText((await runProxy(lifecycle, { tool: "ev_echo", args: { message: "again" } })).content)).toBe(
			"Echo: again",
		);
		expect(lifecycle.state("ev")).toBe("connected");
	});

	it("never idle-closes a server with a call in flight", async () => {
		lifecycle = lifecycleOf(configOf({ ev: { ...everythingStdio(), idleTimeout: 1 } }));
		lifecycle.start();
		await lifecycle.startup;
		const slow = runProxy(lifecycle, { tool: "ev_trigger-long-running-operation", args: { duration: 2, steps: 2 } });
		await until(() => lifecycle?.manager.get("ev")?.inFlight === 1, "the call to start");
		await vi.advanceTimersByTimeAsync(5 * MINUTE);
		expect(lifecycle.state("ev")).toBe("connected");
		const result = await slow;
		expect(result.isError).toBe(false);
		await vi.advanceTimersByTimeAsync(1.1 * MINUTE);
		expect(lifecycle.state("ev")).toBe("idle");
	});

	it("eager servers have no idle timeout unless set; keep-alive never idle-closes", async () => {
		lifecycle = lifecycleOf(
			configOf({
				eager: { ...everythingStdio(), lifecycle: "eager" },
				keep: { ...everythingStdio(), lifecycle: "keep-alive", idleTimeout: 1 },
			}),
		);
		lifecycle.start();
		await lifecycle.startup;
		expect(lifecycle.manager.connectedNames().sort()).toEqual(["eager", "keep"]);
		await vi.advanceTimersByTimeAsync(30 * MINUTE);
		expect(lifecycle.manager.connectedNames().sort()).toEqual(["eager", "keep"]);
	});

	it("keep-alive: the health check reconnects a server whose process was killed", async () => {
		lifecycle = lifecycleOf(configOf({ keep: { ...everythingStdio(), lifecycle: "keep-alive" } }));
		lifecycle.start();
		await lifecycle.startup;
		const first = lifecycle.manager.get("keep");
		const pid = first?.pid as number;
		process.kill(pid, "SIGKILL");
		await until(() => lifecycle?.manager.get("keep") === undefined, "the crash to be noticed");
		expect(lifecycle.state("keep")).toBe("idle");
		await vi.advanceTimersByTimeAsync(30_000);
		await until(() => lifecycle?.manager.get("keep") !== undefined, "the reconnect");
		const second = lifecycle.manager.get("keep");
		expect(second?.pid).not.toBe(pid);
		expect(contentText((await runProxy(lifecycle, { tool: "keep_echo", args: { message: "back" } })).content)).toBe(
			"Echo: back",
		);
	});

	/** A lifecycle with server "bad", which says "boom: no database" and exits, and how often it was started. */
	const failingServer = (dir: string) => {
		const log = join(dir, "starts.log");
		const script = `require('fs').appendFileSync(${JSON.stringify(log)}, 'x'); console.error('boom: no database'); process.exit(1)`;
		const lc = lifecycleOf(configOf({ bad: { command: process.execPath, args: ["-e", script] } }));
		return { lc, starts: () => readFileSync(log, "utf8").length };
	};

	it("a start ahead of a call (the streamed call named it) that fails is told to that call as its own failure", async () => {
		const dir = tempDir();
		try {
			const bad = failingServer(dir.path);
			lifecycle = bad.lc;
			const { starts } = bad;
			await lifecycle.ensureConnected("bad", undefined, true).catch(() => undefined);
			expect(starts()).toBe(1);

			// The call (a cached tool's: it connects the server) gets the start's failure as its own.
			const told = await lifecycle.ensureConnected("bad").catch((error: Error) => error.message);
			expect(told).toMatch(/failed to connect[\s\S]*boom: no database/);
			expect(told).not.toMatch(/not available/);
			expect(starts()).toBe(1); // not started again: the call was told the start's failure
			const next = await runProxy(lifecycle, { server: "bad" });
			expect(contentText(next.content)).toMatch(/^Server "bad" not available \(failed 0s ago\)/);
		} finally {
			dir.remove();
		}
	});

	it("after a failed connect, calls fail fast for 60 s with the original error, then retry", async () => {
		const dir = tempDir();
		try {
			const bad = failingServer(dir.path);
			lifecycle = bad.lc;
			const { starts } = bad;

			const first = await runProxy(lifecycle, { tool: "bad_anything" });
			expect(first.isError).toBe(true);
			expect(starts()).toBe(1);

			await vi.advanceTimersByTimeAsync(20_000);
			const fast = await runProxy(lifecycle, { server: "bad" });
			expect(contentText(fast.content)).toMatch(
				/^Server "bad" not available \(failed 20s ago\): Server "bad" failed to connect[\s\S]*boom: no database/,
			);
			expect(starts()).toBe(1);
			// A call of one of its tools says the same (the README's words), not the bare error.
			const viaTool = await runProxy(lifecycle, { tool: "bad_anything" });
			expect(contentText(viaTool.content)).toMatch(
				/^Server "bad" not available \(failed 20s ago\): Server "bad" failed to connect: the server exited \(exit code 1\) before it was ready\nServer stderr:\nboom: no database/,
			);
			expect(starts()).toBe(1);

			// An explicit connect is the user asking to retry now: it skips the backoff.
			const retried = await runProxy(lifecycle, { connect: "bad" });
			expect(contentText(retried.content)).toMatch(/failed to connect[\s\S]*boom: no database/);
			expect(starts()).toBe(2);

			await vi.advanceTimersByTimeAsync(61_000);
			await runProxy(lifecycle, { server: "bad" });
			expect(starts()).toBe(3);
		} finally {
			dir.remove();
		}
	});
});
