// The MCP client is loaded while the model thinks (a slow turn), never for a quick turn; at a
// session's first prompt the servers its project called lately start, and nothing else.
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { McpRuntime } from "../../mcp-runtime.ts";
import { ServerUsage } from "../../pi/server-usage.ts";
import { learnedWarmUp, WARM_AFTER_MS, type WarmTarget, warmWhileModelThinks } from "../../pi/warm-up.ts";
import { tempDir } from "../support/helpers.ts";

function fakePi() {
	const handlers = new Map<string, () => void>();
	return {
		on: (event: string, handler: () => void) => void handlers.set(event, handler),
		emit: (event: string) => handlers.get(event)?.(),
	};
}

describe("warm-up while the model thinks", () => {
	afterEach(() => vi.useRealTimers());

	it("a turn still going after the threshold warms the runtime once; a quick turn does not", () => {
		vi.useFakeTimers();
		const pi = fakePi();
		const warmUp = vi.fn();
		warmWhileModelThinks(pi, () => ({ warmUp }));
		pi.emit("turn_start");
		vi.advanceTimersByTime(WARM_AFTER_MS / 2);
		pi.emit("turn_end"); // a quick turn: the model answered at once
		vi.advanceTimersByTime(WARM_AFTER_MS * 10);
		expect(warmUp).not.toHaveBeenCalled();
		pi.emit("turn_start"); // the model thinks
		vi.advanceTimersByTime(WARM_AFTER_MS);
		expect(warmUp).toHaveBeenCalledTimes(1);
	});

	it("ends with the session: nothing fires after it stopped", () => {
		vi.useFakeTimers();
		const pi = fakePi();
		const warmUp = vi.fn();
		const stop = warmWhileModelThinks(pi, () => ({ warmUp }));
		pi.emit("turn_start");
		stop();
		vi.advanceTimersByTime(WARM_AFTER_MS * 10);
		expect(warmUp).not.toHaveBeenCalled();
	});
});

/** Pi's session events, fired by hand; `shutdown` waits for the handlers as Pi does. */
function sessionPi() {
	const handlers = new Map<string, ((event: unknown, ctx: { cwd: string }) => unknown)[]>();
	return {
		on: (event: string, handler: (event: unknown, ctx: { cwd: string }) => unknown) =>
			void handlers.set(event, [...(handlers.get(event) ?? []), handler]),
		emit: async (event: string, cwd = "/") => {
			for (const handler of handlers.get(event) ?? []) await handler({}, { cwd });
		},
	};
}

describe("the learned warm-up", () => {
	let dir: ReturnType<typeof tempDir>;
	let project: string;
	/** Every session a test made: each ends before the folder goes (a usage write still queued would make it again). */
	const sessions: ReturnType<typeof sessionPi>[] = [];
	beforeEach(() => {
		dir = tempDir();
		project = realpathSync(dir.path);
		// Timers only: the usage file is written and locked for real.
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
	});
	afterEach(async () => {
		vi.useRealTimers();
		for (const pi of sessions.splice(0)) await pi.emit("session_shutdown");
		dir.remove();
	});

	/** The model has been thinking WARM_AFTER_MS, and what that started has run. */
	const thinking = async () => {
		await vi.advanceTimersByTimeAsync(WARM_AFTER_MS);
		await new Promise((resolve) => setImmediate(resolve));
	};

	/** A session whose runtime starts what it is asked to, except `refused` (running, awaiting approval, ...). */
	function session(refused: string[] = []) {
		const pi = sessionPi();
		sessions.push(pi);
		const started: string[] = [];
		const target: WarmTarget = {
			startAhead: (server) => !refused.includes(server) && started.push(server) > 0,
		};
		const runtime = vi.fn(async () => target);
		const learned = learnedWarmUp(pi, dir.path, runtime);
		return { pi, started, runtime, learned, settle: thinking };
	}

	it("the next session's first prompt starts what this one called; a session never prompted starts nothing", async () => {
		const first = session();
		await first.pi.emit("session_start", dir.path);
		first.learned.used("memory");
		await first.pi.emit("session_shutdown");

		const idle = session();
		await idle.pi.emit("session_start", dir.path);
		await idle.settle();
		expect(idle.runtime).not.toHaveBeenCalled();

		const next = session();
		await next.pi.emit("session_start", dir.path);
		await next.pi.emit("agent_start");
		await next.settle();
		expect(next.started).toEqual(["memory"]);
		await next.pi.emit("agent_start"); // the second prompt: already started, nothing more
		await next.settle();
		expect(next.runtime).toHaveBeenCalledTimes(1);
	});

	it("nothing starts at the prompt itself (its request goes first), nor for a prompt answered at once", async () => {
		const first = session();
		await first.pi.emit("session_start", dir.path);
		first.learned.used("memory");
		await first.pi.emit("session_shutdown");

		const quick = session();
		await quick.pi.emit("session_start", dir.path);
		await quick.pi.emit("agent_start");
		await new Promise((resolve) => setImmediate(resolve));
		expect(quick.runtime).not.toHaveBeenCalled(); // the prompt's request to the model goes out first
		await quick.pi.emit("agent_end"); // the model answered within WARM_AFTER_MS
		await quick.settle();
		expect(quick.runtime).not.toHaveBeenCalled();
	});

	it("a project that called nothing builds no runtime at its first prompt", async () => {
		const other = session();
		await other.pi.emit("session_start", dir.path);
		other.learned.used("memory");
		await other.pi.emit("session_shutdown");
		const elsewhere = session();
		await elsewhere.pi.emit("session_start", "/");
		await elsewhere.pi.emit("agent_start");
		await elsewhere.settle();
		expect(elsewhere.runtime).not.toHaveBeenCalled();
	});

	it("only a server started early counts as a miss when the session does not call it", async () => {
		const usage = new ServerUsage(dir.path);
		usage.used(project, "memory");
		usage.used(project, "running");
		await usage.flush();
		const next = session(["running"]);
		await next.pi.emit("session_start", dir.path);
		await next.pi.emit("agent_start");
		await next.settle();
		await next.pi.emit("session_shutdown");
		expect(next.started).toEqual(["memory"]);
		const file = JSON.parse(readFileSync(usage.path, "utf8"));
		expect(file.projects[project].memory.misses).toBe(1);
		expect(file.projects[project].running.misses).toBe(0);
	});
});

describe("what a runtime starts ahead of a call", () => {
	let dir: ReturnType<typeof tempDir>;
	let cwd: string;
	let agentDir: string;
	beforeEach(() => {
		dir = tempDir();
		cwd = join(dir.path, "repo");
		agentDir = join(dir.path, "agent");
		mkdirs(cwd, agentDir);
	});
	afterEach(() => dir.remove());

	function runtime(config: Record<string, unknown>, onlyServers?: string[]) {
		writeJson(join(agentDir, "mcp.json"), config);
		writeJson(join(cwd, ".mcp.json"), { mcpServers: { project: { command: "node", args: ["project.js"] } } });
		return new McpRuntime({ cwd, env: { PI_CODING_AGENT_DIR: agentDir }, onlyServers });
	}
	const server = { command: "node", args: ["server.js"] };

	it("never a server awaiting approval, turned off, outside the session's servers or needing configuration", async () => {
		// An HTTP server nobody listens on: a start that begins fails at once, and no process runs.
		const nobody = { url: "http://127.0.0.1:9/mcp" };
		const active = runtime(
			{
				mcpServers: {
					off: { ...nobody, enabled: false },
					mine: nobody,
					other: nobody,
					broken: { command: "${UNSET_X}" },
				},
			},
			["mine", "project", "off", "broken"],
		);
		try {
			for (const name of ["project", "off", "other", "broken", "unknown"])
				expect(active.startAhead(name, "learned"), name).toBe(false);
			expect(active.startAhead("mine", "learned")).toBe(true);
			expect(active.startAhead("mine", "learned")).toBe(false); // starting already
		} finally {
			await active.shutdown();
		}
	});

	it("never with `warmUp` or `prestart` off, nor a server backing off after a failure", () => {
		const off = runtime({ mcpServers: { mine: server }, settings: { warmUp: false } });
		expect(off.startAhead("mine", "learned")).toBe(false);
		// `prestart: false` promises that nothing starts before a call runs.
		const noPrestart = runtime({ mcpServers: { mine: server }, settings: { prestart: false } });
		expect(noPrestart.startAhead("mine", "learned")).toBe(false);
		const failing = runtime({ mcpServers: { mine: server } });
		failing.lifecycle.failed("mine", new Error("exited (exit code 1) before it was ready"));
		expect(failing.startAhead("mine", "learned")).toBe(false);
	});
});

function mkdirs(...paths: string[]): void {
	for (const path of paths) mkdirSync(path, { recursive: true });
}

function writeJson(path: string, value: unknown): void {
	writeFileSync(path, JSON.stringify(value));
}
