// However badly a server behaves, the user gets a clear answer, the context is not flooded, the
// next call works, and a second server in the same manager keeps working throughout.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { listDescendants } from "../../bounds/process-tree.ts";
import type { ServerLifecycle } from "../../lifecycle.ts";
import { OutputGuard } from "../../proxy/output-guard.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import type { ProxyInput } from "../../proxy/surface.ts";
import { contentText } from "../../proxy/tool-results.ts";
import {
	configOf,
	everythingStdio,
	faultStdio,
	freePort,
	lifecycleOf,
	marked,
	ROOT,
	stopChild,
	TSX,
	waitForPort,
	waitUntil,
} from "../support/helpers.ts";

const fixture = (name: string, env: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({
	command: process.execPath,
	args: [TSX, join(ROOT, "tests/fixtures", name)],
	env,
	...extra,
});

describe("misbehaving servers", () => {
	const cleanups: (() => unknown)[] = [];
	afterEach(async () => {
		for (const clean of cleanups.splice(0).reverse()) await clean();
	});
	const open = (servers: Record<string, unknown>, settings: Record<string, unknown> = {}): ServerLifecycle => {
		const lifecycle = lifecycleOf(configOf({ ...servers, everything: everythingStdio() }, settings));
		cleanups.push(() => lifecycle.shutdown());
		return lifecycle;
	};
	const text = async (lc: ServerLifecycle, input: ProxyInput, options = {}) => {
		const result = await runProxy(lc, input, options);
		return { ...result, text: contentText(result.content) };
	};
	const otherServerWorks = async (lc: ServerLifecycle) => {
		expect((await text(lc, { tool: "everything_echo", args: { message: "still fine" } })).text).toBe(
			"Echo: still fine",
		);
	};

	it("a server that hangs: the call times out with a clear message while the other server answers", async () => {
		const lc = open({ faulty: fixture("fault-server.ts", {}, { timeout: 1.5 }) });
		await lc.ensureConnected("faulty");
		const hang = text(lc, { tool: "faulty_hang" });
		await otherServerWorks(lc);
		const result = await hang;
		expect(result.isError).toBe(true);
		expect(result.text).toContain(
			'No answer from "faulty" within 2 s. Raise its "timeout" (seconds) or settings.requestTimeoutMs',
		);
		expect((await text(lc, { tool: "faulty_echo", args: { text: "after" } })).text).toBe("echo: after");
	});

	it("a server that exits mid-call: the call says it crashed and starts again, with its stderr (no parameter list), and the next call reconnects", async () => {
		const lc = open({ faulty: fixture("fault-server.ts") });
		const first = await lc.ensureConnected("faulty");
		const result = await text(lc, { tool: "faulty_crash" });
		expect(result.isError).toBe(true);
		expect(result.text).toBe(
			'faulty_crash failed: Server "faulty" crashed during the call (exit code 3); it starts again at the next call.\nIts stderr ended with:\nfatal: the disk is on fire',
		);
		expect(lc.state("faulty")).toBe("idle");
		await otherServerWorks(lc);
		expect((await text(lc, { tool: "faulty_echo", args: { text: "back" } })).text).toBe("echo: back");
		expect(lc.manager.get("faulty")?.pid).not.toBe(first.pid);
	});

	it("a server that stops reading its input: the next call says it crashed (not `write EPIPE`), and the one after starts it again", async () => {
		// Run by node with tsx's loader: tsx's CLI would keep the pipe open in its own process.
		const loader = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
		const script = join(ROOT, "tests/fixtures/fault-stdio.ts");
		const lc = open({ closer: { command: process.execPath, args: ["--import", loader, script, "close-input"] } });
		expect((await text(lc, { tool: "closer_echo", args: { text: "1" } })).text).toBe("echo: 1");
		const first = lc.manager.get("closer");
		await waitUntil(() => (first?.stderrTail() ?? "").includes("not reading"), "the server's last words");
		const gone = await text(lc, { tool: "closer_echo", args: { text: "2" } });
		expect(gone.isError).toBe(true);
		expect(gone.text).toBe(
			'closer_echo failed: Server "closer" crashed during the call (write EPIPE); it starts again at the next call.\nIts stderr ended with:\nthe session token expired; not reading any more\n}',
		);
		expect((await text(lc, { tool: "closer_echo", args: { text: "3" } })).text).toBe("echo: 3");
		expect(lc.manager.get("closer")?.pid).not.toBe(first?.pid);
	});

	it("garbage on stdout and a flood on stderr neither break the connection nor pile up", async () => {
		const lc = open({ noisy: fixture("fault-server.ts", { GARBAGE: "1" }) });
		for (let i = 0; i < 20; i++)
			expect((await text(lc, { tool: "noisy_echo", args: { text: `n${i}` } })).text).toBe(`echo: n${i}`);
		// Megabytes of stderr meanwhile: only the tail is kept.
		const tail = () => lc.manager.get("noisy")?.stderrTail() ?? "";
		await waitUntil(() => tail().length > 1000, "the server's stderr flood");
		expect(tail().length).toBeLessThanOrEqual(8 * 1024);
		await otherServerWorks(lc);
	});

	it("a 20 MB result reaches the model as a preview plus a private file with all of it", async () => {
		const lc = open({ big: fixture("fault-server.ts") });
		const guard = new OutputGuard();
		cleanups.push(() => guard.dispose());
		const result = await text(lc, { tool: "big_huge", args: { mb: 20 } }, { output: guard });
		expect(result.isError).toBe(false);
		expect(result.text.length).toBeLessThan(10_000);
		const file = /The whole output is in (\S+); /.exec(result.text)?.[1] as string;
		expect(result.text).toMatch(/\[Output truncated: 20\.0 MB, 209,715 lines; showing the first 81 lines\./);
		expect(statSync(file).size).toBe(Math.round((20 * 1024 * 1024) / 100) * 100); // every byte the server sent
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(readFileSync(file, "utf8").split("\n")[1000]).toBe("x".repeat(99));
		await otherServerWorks(lc);
		guard.dispose();
		expect(existsSync(file)).toBe(false);
	});

	it("tools/list_changed refreshes the catalog", async () => {
		const lc = open({ growing: fixture("fault-server.ts") });
		expect((await text(lc, { tool: "growing_add_tool" })).text).toBe("added added_5");
		await waitUntil(
			() => lc.catalog.forServer("growing").some((t) => t.name === "added_5"),
			"the catalog to follow tools/list_changed",
			60_000, // the test's own timeout bounds it
		);
		expect((await text(lc, { search: "added_5" })).text).toContain("growing_added_5");
	});

	it.each([404, 400])(
		"a streamable HTTP server that forgot its session (%i) is re-initialized once, transparently",
		async (status) => {
			const port = await freePort();
			const child = spawn(
				process.execPath,
				[TSX, join(ROOT, "tests/fixtures/http-forgetful-server.ts"), String(port)],
				{
					env: { ...process.env, FORGET_STATUS: String(status) },
					stdio: "ignore",
				},
			);
			cleanups.push(() => stopChild(child));
			const lc = open({ remote: { url: `http://127.0.0.1:${port}/mcp` } });
			await waitForPort(port, child); // bounded by the test's timeout: a loaded machine starts tsx slowly
			expect((await text(lc, { tool: "remote_whoami" })).text).toBe("initialization 1");
			await fetch(`http://127.0.0.1:${port}/forget`, { method: "POST" });
			const again = await text(lc, { tool: "remote_whoami" });
			expect(again.isError).toBe(false);
			expect(again.text).toBe("initialization 2");
			await otherServerWorks(lc);
		},
	);

	it("inputs that froze Pi answer at once: a catastrophic regex, a megabyte tool name, a 10 MB argument", async () => {
		const lc = open({ faulty: fixture("fault-server.ts") });
		const { tools } = await lc.ensureConnected("faulty");
		// A description that makes backtracking regex engines explode on (a+)+$.
		const trap = { server: "faulty", name: "trap", description: `${"a".repeat(40)}!`, inputSchema: { type: "object" } };
		lc.catalog.set("faulty", { tools: [...tools, trap], resources: [] }, false);
		// A freeze (these took 55 s, 21 s and a 60 s wait) would exceed this test's 30 s timeout.
		const timed = (input: ProxyInput) => text(lc, input);
		const regex = await timed({ search: "(a+)+$", regex: true, server: "faulty" });
		expect(regex.text).toContain("No tools match");
		const longName = await timed({ tool: `x${"y".repeat(1024 * 1024)}` });
		expect(longName.isError).toBe(true);
		expect(longName.text).toMatch(/^Unknown tool "xyyy.*\.\.\." \(1,048,577 characters\)/);
		expect(longName.text.length).toBeLessThan(2000);
		const big = await timed({ tool: "faulty_echo", args: { text: "z".repeat(10 * 1024 * 1024) } });
		expect(big.text).toContain("The arguments for echo are 10.0 MB, over the 4.0 MB limit: they were not sent.");
		await otherServerWorks(lc);
	}, 30_000);

	it("Esc while a server that never answers is starting: the call returns at once", async () => {
		const lc = open({ mute: faultStdio("never-initialize") });
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 500);
		const result = await text(lc, { tool: "mute_anything" }, { signal: controller.signal });
		expect(result.isError).toBe(true);
		// Said at the Esc, not after the 30 s connect timeout (which would answer that the server did not start).
		expect(result.text).toContain("Cancelled while the server was starting.");
	});

	it("a failed connect, and every keep-alive retry of it, leaves no process behind", async () => {
		const marker = randomUUID();
		// Like a wrapper that starts a helper and then fails: the helper must not outlive the attempt.
		const failing = {
			command: "sh",
			args: ["-c", "sleep 300 & echo 'no token' >&2; exit 1"],
			env: { FAULT_MARKER: marker },
			lifecycle: "keep-alive",
		};
		const lc = open({ failing });
		await expect(lc.ensureConnected("failing")).rejects.toThrow(/failed to connect[\s\S]*no token/);
		expect(marked(marker)).toEqual([]);
		for (let i = 0; i < 3; i++) await lc.tick(); // each health check retries the connect
		expect(marked(marker)).toEqual([]);
		await otherServerWorks(lc);
	});

	it("passing HTTP faults are retried twice, a tool call only when the server says it did not run it", async () => {
		const port = await freePort();
		const gateway = spawn(process.execPath, [TSX, join(ROOT, "tests/fixtures/fault-http.ts"), "flaky", String(port)], {
			stdio: "ignore",
		});
		cleanups.push(() => stopChild(gateway));
		await waitForPort(port, gateway);
		const lc = open({ flaky: { url: `http://127.0.0.1:${port}/mcp` } });
		const counts = async () =>
			(await (await fetch(`http://127.0.0.1:${port}/counts`)).json()) as Record<string, number>;
		// The listing lost its connection once and was asked again; the call met 503, then 429.
		expect((await text(lc, { tool: "flaky_work" })).text).toBe("ok after 3 tries");
		const limited = await text(lc, { tool: "flaky_limited" });
		expect(limited.isError).toBe(true);
		expect(limited.text).toContain("slow down (HTTP 429)");
		// A call whose connection dropped may have run: it is not sent again.
		const dropped = await text(lc, { tool: "flaky_dropped" });
		expect(dropped.isError).toBe(true);
		expect(await counts()).toEqual({ list: 2, work: 3, limited: 3, dropped: 1 });
		await otherServerWorks(lc);
	});

	it("50 concurrent calls to one lazy server start one process and all succeed", async () => {
		const lc = open({});
		const before = listDescendants(process.pid).length;
		const results = await Promise.all(
			Array.from({ length: 50 }, (_, i) => text(lc, { tool: "everything_echo", args: { message: `m${i}` } })),
		);
		expect(results.map((r) => r.text)).toEqual(Array.from({ length: 50 }, (_, i) => `Echo: m${i}`));
		expect(listDescendants(process.pid).length - before).toBe(1);
	});
});
