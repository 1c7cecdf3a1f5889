// The broker between two sessions in this process (each its own server manager, as two Pi
// sessions would have) and the real server-everything in a real broker process: a cancel reaches
// only its own call, progress goes to the session that asked, a task-only tool's task API (2025;
// the 2026 wire, and its tasks extension, never cross the broker) is relayed, Esc cancelling its
// task on the server, a crash is told to every session
// using the server, a broker of another version is not used, and a project's server is shared only
// within that project.
import { spawn } from "node:child_process";
import {
	chmodSync,
	chownSync,
	existsSync,
	lstatSync,
	mkdirSync,
	readFileSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { ListTasksResultSchema } from "@modelcontextprotocol/core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { isAlive } from "../../bounds/process-tree.ts";
import { sharedKey } from "../../broker/client.ts";
import {
	ADAPTER_VERSION,
	BROKER_PROTOCOL,
	brokerDir,
	connectSocket,
	privateDir,
	readBrokerFile,
	SocketTransport,
	STARTING_MARKER,
	socketPath,
} from "../../broker/wire.ts";
import { brokerReport } from "../../proxy/server-status.ts";
import { type ServerManagerOptions as ManagerOptions, McpServerManager } from "../../server-manager.ts";
import type { StdioServerEntry } from "../../types.ts";
import {
	configOf,
	countedServer,
	entryOf,
	faultStdio,
	marked,
	ROOT,
	startedPids,
	tempDir,
	waitUntil,
} from "../support/helpers.ts";

// The broker started by these tests inherits this: it exits 1 s after its last server.
process.env.PI_MCP_BROKER_IDLE_MS = "1000";

/** A session (its own manager) that shares every stdio server through the broker of `agentDir`. */
function sharing(agentDir: string, options: ManagerOptions = {}, lingerMs = 1000): McpServerManager {
	return new McpServerManager({ ...options, broker: { agentDir, shares: () => true, lingerMs: () => lingerMs } });
}

describe("two sessions sharing server-everything through the broker", () => {
	const dir = tempDir("pi-mcp-broker-");
	const agentDir = join(dir.path, "agent");
	const log = join(dir.path, "starts.log");
	const entry = entryOf(
		configOf({ everything: { ...countedServer(log), idleTimeout: 0.05 } }),
		"everything",
	) as StdioServerEntry;
	const session = () => sharing(agentDir, {}, 3000);
	let a: McpServerManager;
	let b: McpServerManager;
	beforeAll(async () => {
		a = session();
		b = session();
		await Promise.all([a.connect(entry), b.connect(entry)]);
	}, 30_000);
	afterAll(async () => {
		await a.closeAll();
		await b.closeAll();
		const pid = readBrokerFile(agentDir)?.pid;
		await waitUntil(
			() => startedPids(log).every((p) => !isAlive(p)) && !(pid && isAlive(pid)),
			"the server and the broker to exit",
		);
		dir.remove();
	}, 30_000);

	it("both are served by one process, shown by the status", async () => {
		expect(startedPids(log)).toHaveLength(1);
		expect(a.get("everything")?.shared).toBe(true);
		expect(a.get("everything")?.tools.length).toBe(b.get("everything")?.tools.length);
		const report = await brokerReport(agentDir);
		expect(report).toMatch(
			/^Shared MCP broker \(pid \d+, since \d\d:\d\d\): 1 server\n {2}everything: 2 sessions, up since \d\d:\d\d, pid \d+$/,
		);
	});

	it("a peer that cannot show the secret in the user's 0600 broker.json is refused", async () => {
		expect(statSync(join(agentDir, "mcp-broker", "broker.json")).mode & 0o777).toBe(0o600);
		expect(statSync(join(agentDir, "mcp-broker")).mode & 0o777).toBe(0o700);
		const socket = await connectSocket(socketPath(agentDir), 1000);
		const transport = new SocketTransport(socket, 1024 * 1024, (line) => JSON.parse(line), "the broker");
		const replies: unknown[] = [];
		let closed = false;
		transport.onmessage = (message) => void replies.push(message);
		transport.onclose = () => {
			closed = true;
		};
		const open = {
			protocol: BROKER_PROTOCOL,
			version: ADAPTER_VERSION,
			token: "0".repeat(64),
			key: "k",
			name: "x",
			launch: { command: "touch", args: [join(dir.path, "ran")], env: {} },
			maxMessageBytes: 1024,
			connectTimeoutMs: 1000,
			lingerMs: 0,
		};
		await transport.send({ jsonrpc: "2.0", id: 1, method: "pi-broker/open", params: open });
		await waitUntil(() => closed, "the broker to close the connection");
		expect(replies).toEqual([
			{ jsonrpc: "2.0", id: 1, error: { code: -32051, message: "not authorized: show the secret in broker.json" } },
		]);
		expect(existsSync(join(dir.path, "ran"))).toBe(false);
	});

	it("a connection that never shows the secret is dropped by the broker (it cannot hold the broker open)", async () => {
		const socket = await connectSocket(socketPath(agentDir), 1000);
		await new Promise<void>((resolve) => socket.once("close", () => resolve()));
		expect(socket.destroyed).toBe(true);
	});

	it("cancelling one session's call leaves the other's running to its result", async () => {
		const controller = new AbortController();
		const long = { duration: 2, steps: 4 };
		const cancelled = a.callTool("everything", "trigger-long-running-operation", long, { signal: controller.signal });
		const other = b.callTool("everything", "trigger-long-running-operation", long);
		setTimeout(() => controller.abort(new Error("the user pressed Esc")), 300);
		await expect(cancelled).rejects.toThrow(/Esc/);
		const result = await other;
		expect(JSON.stringify(result.content)).toMatch(/Long running operation completed/i);
		expect(a.get("everything")).toBeDefined(); // the cancel closed nothing
	}, 20_000);

	it("a task-only tool goes through the broker on the task API: its stages shown as progress, Esc cancelling its task on the server", async () => {
		const required = { taskSupport: "required" } as const;
		const controller = new AbortController();
		const stages: string[] = [];
		const given = a.callTool(
			"everything",
			"simulate-research-query",
			{ topic: "given up" },
			{ ...required, signal: controller.signal, onProgress: () => controller.abort(new Error("the user pressed Esc")) },
		);
		const done = b.callTool(
			"everything",
			"simulate-research-query",
			{ topic: "tides" },
			{ ...required, onProgress: (p) => stages.push(p.message ?? "") },
		);
		await expect(given).rejects.toThrow(/Esc/);
		expect(JSON.stringify((await done).content)).toContain("Research Report: tides");
		expect(stages.length).toBeGreaterThan(0);
		const tasks = async () =>
			(await a.get("everything")?.client.request({ method: "tasks/list", params: {} }, ListTasksResultSchema))?.tasks ??
			[];
		await vi.waitFor(async () => expect((await tasks()).map((t) => t.status)).toContain("cancelled"), {
			timeout: 20_000,
		});
	}, 30_000);

	it("a call with 2 MB of arguments and its 2 MB answer pass through the broker", async () => {
		const message = "x".repeat(2 * 1024 * 1024);
		const result = await a.callTool("everything", "echo", { message });
		expect(JSON.stringify(result.content).length).toBeGreaterThan(message.length);
	}, 20_000);

	it("progress goes to the session whose call it is, though both sessions use the same request ids", async () => {
		const seenA: number[] = [];
		const seenB: number[] = [];
		await Promise.all([
			a.callTool(
				"everything",
				"trigger-long-running-operation",
				{ duration: 1, steps: 2 },
				{ onProgress: (p) => seenA.push(p.total ?? 0) },
			),
			b.callTool(
				"everything",
				"trigger-long-running-operation",
				{ duration: 1, steps: 5 },
				{ onProgress: (p) => seenB.push(p.total ?? 0) },
			),
		]);
		expect(seenA.length).toBeGreaterThan(0);
		expect(seenB.length).toBeGreaterThan(0);
		expect(new Set(seenA)).toEqual(new Set([2]));
		expect(new Set(seenB)).toEqual(new Set([5]));
	}, 20_000);

	it("a server crash is told to every session using it; the next connect starts it again", async () => {
		const [pid] = startedPids(log);
		// The server's first progress says it is running the call: then it crashes.
		let progressed: () => void = () => undefined;
		const running = new Promise<void>((resolve) => {
			progressed = resolve;
		});
		const call = a.callTool(
			"everything",
			"trigger-long-running-operation",
			{ duration: 5, steps: 5 },
			{ onProgress: () => progressed() },
		);
		await running;
		process.kill(pid, "SIGKILL");
		await expect(call).rejects.toThrow(/exited with 2 session\(s\) using it \(it runs in the shared MCP broker\)/);
		await waitUntil(() => !a.get("everything") && !b.get("everything"), "both sessions to see the connection end");
		await Promise.all([a.connect(entry), b.connect(entry)]);
		expect(startedPids(log)).toHaveLength(2);
		const sum = await b.callTool("everything", "get-sum", { a: 2, b: 3 });
		expect(JSON.stringify(sum.content)).toContain("The sum of 2 and 3 is 5");
	}, 30_000);
});

describe("a broker slow to start", () => {
	const dir = tempDir("pi-mcp-broker-");
	afterAll(() => dir.remove());

	it("is waited for as long as it is starting (past 5 s, as on a busy machine): the session uses it and runs no server of its own", async () => {
		const agentDir = join(dir.path, "agent");
		// Another session's start, as startBroker leaves it: the marker naming a broker process that
		// is still loading; this one begins only after 6 s (the old wait gave up at 5 s).
		const slow = spawn(
			"sh",
			["-c", `sleep 6; exec '${process.execPath}' '${join(ROOT, "bin", "pi-mcp-proxy.mjs")}' __broker '${agentDir}'`],
			{ stdio: "ignore" },
		);
		writeFileSync(join(privateDir(brokerDir(agentDir)), STARTING_MARKER), String(slow.pid), { mode: 0o600 });
		const log = join(dir.path, "starts.log");
		const entry = entryOf(configOf({ everything: { ...countedServer(log), idleTimeout: 0.05 } }), "everything");
		const manager = sharing(agentDir);
		try {
			const connection = await manager.connect(entry as StdioServerEntry);
			expect(connection.shared).toBeDefined();
			expect(readBrokerFile(agentDir)?.pid).toBe(slow.pid);
			const sum = await manager.callTool("everything", "get-sum", { a: 5, b: 6 });
			expect(JSON.stringify(sum.content)).toContain("The sum of 5 and 6 is 11");
			expect(startedPids(log)).toHaveLength(1);
		} finally {
			await manager.closeAll();
			await waitUntil(
				() => startedPids(log).every((p) => !isAlive(p)) && !isAlive(slow.pid as number),
				"the server and the broker to exit",
			);
		}
	}, 60_000);
});

describe("when the broker cannot serve", () => {
	let fake: Server | undefined;
	const dir = tempDir("pi-mcp-broker-");
	afterEach(() => fake?.close());
	afterAll(() => dir.remove());
	/** A stand-in broker on the agent dir's socket, answering as `onConnection` does. */
	const listenAsBroker = async (agentDir: string, onConnection: (socket: Socket) => void) => {
		const path = socketPath(agentDir);
		privateDir(join(path, ".."));
		fake = createServer(onConnection);
		await new Promise<void>((resolve) => fake?.listen(path, resolve));
	};

	it("a broker of another version is not used: the session runs the server itself", async () => {
		const agentDir = join(dir.path, "agent");
		// An "older" broker: it answers every open with the version error.
		await listenAsBroker(agentDir, (socket) =>
			socket.on("data", (chunk) => {
				const id = JSON.parse(chunk.toString().split("\n")[0]).id;
				socket.write(
					`${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32050, message: "this broker runs pi-mcp-proxy 0.0.1 (protocol 0)" } })}\n`,
				);
			}),
		);
		const log = join(dir.path, "own.log");
		const entry = entryOf(configOf({ everything: countedServer(log) }), "everything") as StdioServerEntry;
		const manager = sharing(agentDir);
		try {
			const connection = await manager.connect(entry);
			expect(connection.shared).toBeUndefined();
			expect(connection.pid).toBe(startedPids(log)[0]);
			const sum = await manager.callTool("everything", "get-sum", { a: 1, b: 1 });
			expect(JSON.stringify(sum.content)).toContain("The sum of 1 and 1 is 2");
		} finally {
			await manager.closeAll();
		}
	}, 30_000);

	it("a silent broker (accepts, never answers): the session runs the server itself, and does not wait for it again", async () => {
		const agentDir = join(dir.path, "silent-agent");
		let opened = 0;
		await listenAsBroker(agentDir, () => void opened++);
		const log = join(dir.path, "silent.log");
		const entry = entryOf(configOf({ everything: countedServer(log) }), "everything") as StdioServerEntry;
		const manager = sharing(agentDir);
		try {
			expect((await manager.connect(entry)).shared).toBeUndefined();
			await manager.close("everything");
			expect((await manager.connect(entry)).shared).toBeUndefined();
			expect(opened).toBe(1); // the second connect did not try the silent broker again
			expect(startedPids(log)).toHaveLength(2);
		} finally {
			await manager.closeAll();
		}
	}, 30_000);

	it("a broker that cannot start (its folder is taken): the session runs the server itself", async () => {
		const agentDir = join(dir.path, "blocked-agent");
		mkdirSync(agentDir, { recursive: true });
		writeFileSync(join(agentDir, "mcp-broker"), "not a folder");
		const entry = entryOf(
			configOf({ everything: countedServer(join(dir.path, "blocked.log")) }),
			"everything",
		) as StdioServerEntry;
		const manager = sharing(agentDir);
		try {
			const connection = await manager.connect(entry);
			expect(connection.shared).toBeUndefined();
			const sum = await manager.callTool("everything", "get-sum", { a: 3, b: 4 });
			expect(JSON.stringify(sum.content)).toContain("The sum of 3 and 4 is 7");
		} finally {
			await manager.closeAll();
		}
	}, 30_000);

	/** An agent dir deep enough that its socket moves to the shared fallback folder. */
	const deepAgentDir = (name: string) => join(dir.path, "d".repeat(90), name);

	it.runIf(process.getuid?.() === 0)(
		"a fallback socket folder another user made first receives nothing: the session runs the server itself",
		async () => {
			const agentDir = deepAgentDir("taken-agent");
			const path = socketPath(agentDir);
			expect(path.startsWith(dir.path)).toBe(false); // the fallback, outside the agent dir
			rmSync(dirname(path), { recursive: true, force: true });
			mkdirSync(dirname(path), { mode: 0o700 });
			chownSync(dirname(path), 65534, 65534); // another local user's folder, waiting for the socket
			let received = 0;
			fake = createServer((socket) => socket.on("data", () => void received++));
			await new Promise<void>((resolve) => fake?.listen(path, resolve));
			const entry = entryOf(
				configOf({ everything: countedServer(join(dir.path, "taken.log")) }),
				"everything",
			) as StdioServerEntry;
			const manager = sharing(agentDir);
			try {
				expect((await manager.connect(entry)).shared).toBeUndefined();
				expect(received).toBe(0);
			} finally {
				await manager.closeAll();
				rmSync(dirname(path), { recursive: true, force: true });
			}
		},
		30_000,
	);

	it("a symlink planted as the fallback socket folder is neither followed nor chmod'ed", async () => {
		const agentDir = deepAgentDir("planted-agent");
		const path = socketPath(agentDir);
		const open = join(dir.path, "world-writable");
		mkdirSync(open);
		chmodSync(open, 0o1777);
		rmSync(dirname(path), { recursive: true, force: true });
		symlinkSync(open, dirname(path));
		const entry = entryOf(
			configOf({ everything: countedServer(join(dir.path, "planted.log")) }),
			"everything",
		) as StdioServerEntry;
		const manager = sharing(agentDir);
		try {
			expect((await manager.connect(entry)).shared).toBeUndefined();
			expect(statSync(open).mode & 0o7777).toBe(0o1777);
			expect(existsSync(join(open, "broker.sock"))).toBe(false);
		} finally {
			await manager.closeAll();
			rmSync(dirname(path), { force: true });
		}
	}, 30_000);

	it("a broker.json and start marker planted as symlinks are replaced, never written through", async () => {
		const agentDir = join(dir.path, "planted-file-agent");
		const folder = privateDir(brokerDir(agentDir));
		const victim = join(dir.path, "victim.txt");
		writeFileSync(victim, "the user's file");
		symlinkSync(victim, join(folder, "broker.json"));
		symlinkSync(victim, join(folder, STARTING_MARKER));
		const entry = entryOf(
			configOf({ everything: countedServer(join(dir.path, "planted-file.log")) }),
			"everything",
		) as StdioServerEntry;
		const manager = sharing(agentDir);
		try {
			expect((await manager.connect(entry)).shared).toBe(true);
			expect(readFileSync(victim, "utf8")).toBe("the user's file");
			expect(lstatSync(join(folder, "broker.json")).isSymbolicLink()).toBe(false);
		} finally {
			await manager.closeAll();
		}
	}, 30_000);

	it("a server flooding the broker past the limit: the call says why, in words a user can act on", async () => {
		const agentDir = join(dir.path, "flood-agent");
		const entry = entryOf(configOf({ flood: faultStdio("flood", { MB: "3" }) }), "flood") as StdioServerEntry;
		const manager = sharing(agentDir, { maxMessageBytes: 1024 * 1024 });
		try {
			await manager.connect(entry);
			expect(manager.get("flood")?.shared).toBe(true);
			await expect(manager.callTool("flood", "blast", {})).rejects.toThrow(/more than 1 MB without a line end/);
		} finally {
			await manager.closeAll();
			const pid = readBrokerFile(agentDir)?.pid;
			await waitUntil(() => !(pid && isAlive(pid)), "the broker to exit");
		}
	}, 30_000);

	it("a shared server that never answers initialize, and one that ignores SIGTERM: clear errors, and nothing is left", async () => {
		const agentDir = join(dir.path, "stubborn-agent");
		const marker = `PI_MCP_BROKER_TEST_${process.pid}_${Date.now()}`;
		const config = configOf({
			silent: faultStdio("never-initialize", { FAULT_MARKER: marker }),
			stubborn: faultStdio("ignore-sigterm", { FAULT_MARKER: marker }),
		});
		// The stubborn one first, with the default deadline: it also starts the broker, which on a
		// loaded machine alone can take longer than the silent one's 2 s.
		const manager = sharing(agentDir, {}, 500);
		const impatient = sharing(agentDir, { connectTimeoutMs: 2000 }, 500);
		try {
			const stubborn = await manager.connect(entryOf(config, "stubborn"));
			expect(stubborn.shared).toBe(true);
			await expect(impatient.connect(entryOf(config, "silent"))).rejects.toThrow(
				/did not finish connecting within 2 s|did not answer initialize within 2 s/,
			);
		} finally {
			await impatient.closeAll();
			await manager.closeAll();
		}
		// The stubborn one lingers 0.5 s, then gets SIGTERM, which it ignores, then SIGKILL; the broker then exits.
		const pid = readBrokerFile(agentDir)?.pid;
		await waitUntil(
			() => marked(marker).length === 0 && !(pid && isAlive(pid)),
			"every fixture process and the broker to end",
			30_000,
		);
	}, 60_000);

	it("a broker killed outright (SIGKILL): its session ends the server it left, one that ignores SIGTERM and stdin's end", async () => {
		const agentDir = join(dir.path, "killed-agent");
		const marker = `PI_MCP_BROKER_KILLED_${process.pid}_${Date.now()}`;
		const config = configOf({ stubborn: faultStdio("ignore-sigterm", { FAULT_MARKER: marker }) });
		const manager = sharing(agentDir, {}, 60_000);
		try {
			expect((await manager.connect(entryOf(config, "stubborn"))).shared).toBe(true);
			await waitUntil(() => marked(marker).length >= 2, "the server and its helper");
			const pid = readBrokerFile(agentDir)?.pid as number;
			process.kill(pid, "SIGKILL");
			await waitUntil(() => marked(marker).length === 0, "the orphaned server to be ended", 10_000).catch(
				() => undefined,
			);
			expect(marked(marker)).toEqual([]);
		} finally {
			await manager.closeAll();
		}
	}, 60_000);

	it("a session that stops reading (frozen) is cut off for answers, not buffered without bound; a log flood is dropped instead", async () => {
		const path = join(dir.path, "backlog.sock");
		let closed = false;
		let transport: SocketTransport | undefined;
		fake = createServer((socket) => {
			transport = new SocketTransport(socket, 1024 * 1024, (line) => JSON.parse(line), "the session");
			transport.onclose = () => {
				closed = true;
			};
		});
		await new Promise<void>((resolve) => fake?.listen(path, resolve));
		const frozen = await connectSocket(path, 1000);
		frozen.pause(); // reads nothing from here on
		await waitUntil(() => transport !== undefined, "the connection");
		const data = "x".repeat(1024 * 1024);
		// Logs past the backlog are dropped: the frozen session is not cut for them...
		for (let i = 0; i < 40; i++) {
			(transport as SocketTransport)
				.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data } })
				.catch(() => undefined);
			await new Promise((resolve) => setImmediate(resolve));
		}
		expect(closed).toBe(false);
		// ...but answers are never dropped: the session that does not read them is cut off.
		let sent = 0;
		for (; sent < 200 && !closed; sent++) {
			(transport as SocketTransport).send({ jsonrpc: "2.0", id: sent, result: { data } }).catch(() => undefined);
			await new Promise((resolve) => setImmediate(resolve));
		}
		await waitUntil(() => closed, "the transport to give up");
		expect(transport?.failure).toMatch(/the other side stopped reading \(\d+ MB waiting\)/);
		expect(sent).toBeLessThan(200);
		frozen.destroy();
	}, 30_000);

	it("a server is shared only by sessions that would start it the same way: project, folder, env (configured or inherited)", () => {
		const launch = (env: Record<string, string> = {}, cwd = "/a") => ({
			command: "node",
			args: ["server.js"],
			env,
			cwd,
		});
		const project = (path: string) =>
			({
				...entryOf(configOf({ s: { command: "node", args: ["server.js"] } }), "s"),
				source: { kind: "pi-project", scope: "project", path },
			}) as StdioServerEntry;
		const user = entryOf(configOf({ s: { command: "node", args: ["server.js"] } }), "s") as StdioServerEntry;
		expect(sharedKey(project("/a/.mcp.json"), launch())).toBe(sharedKey(project("/a/.mcp.json"), launch()));
		expect(sharedKey(project("/a/.mcp.json"), launch())).not.toBe(sharedKey(project("/b/.mcp.json"), launch()));
		expect(sharedKey(user, launch({ TOKEN: "one" }))).not.toBe(sharedKey(user, launch({ TOKEN: "two" })));
		// A user server run from two projects: each project's folder is its own identity.
		expect(sharedKey(user, launch({}, "/projA"))).not.toBe(sharedKey(user, launch({}, "/projB")));
		// Two terminals of one user differ in such variables: they still share.
		expect(sharedKey(user, launch({ SHLVL: "1", _: "/usr/bin/pi" }))).toBe(
			sharedKey(user, launch({ SHLVL: "3", _: "/bin/pi" })),
		);
	});
});
