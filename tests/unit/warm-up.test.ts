// The MCP client is loaded while the model thinks (counted from the turn's request on the wire),
// never for a quick turn; at a session's first prompt the servers its project called lately start,
// and nothing else.
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { McpRuntime } from "../../mcp-runtime.ts";
import { ServerUsage } from "../../start-up/server-usage.ts";
import {
	fetchRequestsSent,
	learnedWarmUp,
	SEND_WAIT_MS,
	WARM_AFTER_MS,
	type WarmTarget,
	whileModelThinks,
} from "../../start-up/warm-up.ts";
import { tempDir } from "../support/helpers.ts";
import { piStandIn } from "../support/pi-stand-in.ts";

/** Pi's turn events, fired by the test. */
function fakePi() {
	const host = piStandIn();
	return { on: host.pi.on, emit: (event: string) => host.fire(event) };
}

/** Fetch's "a request went out", told by hand. */
function fakeWire() {
	const listeners = new Set<() => void>();
	return {
		sent: (listener: () => void) => {
			listeners.add(listener);
			return () => void listeners.delete(listener);
		},
		send: () => {
			for (const listener of [...listeners]) listener();
		},
		listeners,
	};
}

describe("warm-up while the model thinks", () => {
	afterEach(() => vi.useRealTimers());

	it("warms once the model has thought WARM_AFTER_MS after the request went out, never while Pi still sends it", () => {
		vi.useFakeTimers();
		const pi = fakePi();
		const wire = fakeWire();
		const warm = vi.fn();
		whileModelThinks(pi, warm, wire.sent);
		pi.emit("before_provider_request");
		vi.advanceTimersByTime(WARM_AFTER_MS * 3); // a busy machine: Pi has not sent it yet
		expect(warm).not.toHaveBeenCalled();
		wire.send();
		vi.advanceTimersByTime(WARM_AFTER_MS - 1);
		expect(warm).not.toHaveBeenCalled();
		vi.advanceTimersByTime(1);
		expect(warm).toHaveBeenCalledTimes(1);
		expect(wire.listeners.size).toBe(0); // no longer listening
	});

	it("a quick answer warms nothing; a request no fetch was seen sending counts as sent SEND_WAIT_MS after it was built", () => {
		vi.useFakeTimers();
		const pi = fakePi();
		const wire = fakeWire();
		const warm = vi.fn();
		whileModelThinks(pi, warm, wire.sent);
		pi.emit("before_provider_request");
		wire.send();
		vi.advanceTimersByTime(WARM_AFTER_MS / 2);
		pi.emit("turn_end"); // the model answered at once
		vi.advanceTimersByTime(SEND_WAIT_MS * 10);
		expect(warm).not.toHaveBeenCalled();
		pi.emit("before_provider_request"); // another HTTP stack: never seen sending
		vi.advanceTimersByTime(SEND_WAIT_MS + WARM_AFTER_MS);
		expect(warm).toHaveBeenCalledTimes(1);
	});

	it("stops at the session's end; the next session's turns warm again", () => {
		vi.useFakeTimers();
		const pi = fakePi();
		const wire = fakeWire();
		const warm = vi.fn();
		const stop = whileModelThinks(pi, warm, wire.sent);
		pi.emit("before_provider_request");
		wire.send();
		stop();
		vi.advanceTimersByTime(SEND_WAIT_MS * 10);
		expect(warm).not.toHaveBeenCalled();
		pi.emit("before_provider_request");
		wire.send();
		vi.advanceTimersByTime(WARM_AFTER_MS);
		expect(warm).toHaveBeenCalledTimes(1);
	});

	it("Node's fetch tells when a request's body went out", async () => {
		const server = createServer((_req, res) => res.end("ok"));
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const heard = vi.fn();
		const stop = fetchRequestsSent(heard);
		try {
			const { port } = server.address() as AddressInfo;
			await (await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" })).text();
			expect(heard).toHaveBeenCalledTimes(1);
		} finally {
			stop();
			server.close();
		}
	});
});

/** Pi's session events, fired by hand; `shutdown` waits for the handlers as Pi does. */
/** Pi's session events: each handler awaited, with the session's folder. */
function sessionPi() {
	const host = piStandIn();
	return { on: host.pi.on, emit: (event: string, cwd = "/") => host.emit(event, {}, { cwd }) };
}

describe("the learned warm-up", () => {
	let dir: ReturnType<typeof tempDir>;
	let project: string;
	/** Every session a test made: each ends before the folder goes (a usage write still queued would make it again). */
	const sessions: ReturnType<typeof sessionPi>[] = [];
	beforeEach(() => {
		dir = tempDir();
		project = realpathSync(dir.path);
	});
	afterEach(async () => {
		for (const pi of sessions.splice(0)) await pi.emit("session_shutdown");
		dir.remove();
	});

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
		return { pi, started, runtime, learned };
	}

	/** A session of the project that called these servers, ended. */
	async function called(...servers: string[]) {
		const first = session();
		await first.pi.emit("session_start", dir.path);
		for (const server of servers) first.learned.used(server);
		await first.pi.emit("session_shutdown");
	}

	it("the next session's first prompt starts what this one called; a session never prompted starts nothing", async () => {
		await called("memory");

		const idle = session();
		await idle.pi.emit("session_start", dir.path);
		await idle.learned.warm(); // no prompt yet
		expect(idle.runtime).not.toHaveBeenCalled();

		const next = session();
		await next.pi.emit("session_start", dir.path);
		await next.pi.emit("agent_start");
		await next.learned.warm();
		expect(next.started).toEqual(["memory"]);
		await next.learned.warm(); // the model thinks again in the same prompt: already started
		await next.pi.emit("agent_start"); // the second prompt: nothing more
		await next.learned.warm();
		expect(next.runtime).toHaveBeenCalledTimes(1);
	});

	it("only at the first prompt: a session whose first prompt was answered at once starts nothing later", async () => {
		await called("memory");
		const quick = session();
		await quick.pi.emit("session_start", dir.path);
		await quick.pi.emit("agent_start"); // answered at once: nothing warmed
		await quick.pi.emit("agent_start");
		await quick.learned.warm();
		expect(quick.runtime).not.toHaveBeenCalled();
	});

	it("a project that called nothing builds no runtime at its first prompt", async () => {
		await called("memory");
		const elsewhere = session();
		await elsewhere.pi.emit("session_start", "/");
		await elsewhere.pi.emit("agent_start");
		await elsewhere.learned.warm();
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
		await next.learned.warm();
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
