// Test helpers: free ports on 127.0.0.1, real server processes that are always cleaned up, temp dirs.

import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig } from "../../config.ts";
import { ServerLifecycle } from "../../lifecycle.ts";
import { McpServerManager } from "../../server-manager.ts";
import type { McpConfig, ServerEntry } from "../../types.ts";

export const ROOT = resolve(import.meta.dirname, "..", "..");
export const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
export const MEMORY = join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
/**
 * npm's cache for the npx tests: kept between runs of this checkout on purpose (a cold one costs
 * ~5 s), inside it (node_modules/.cache, gone with `npm ci`) and keyed by the lock file, so no run
 * of another checkout or version shares, or breaks, it; nothing is left in /tmp or $HOME.
 */
export const TEST_NPM_CACHE = join(
	ROOT,
	"node_modules",
	".cache",
	`test-npm-${createHash("sha256")
		.update(readFileSync(join(ROOT, "package-lock.json")))
		.digest("hex")
		.slice(0, 12)}`,
);

export function freePort(): Promise<number> {
	return new Promise((res, rej) => {
		const srv = createServer();
		srv.once("error", rej);
		srv.listen(0, "127.0.0.1", () => {
			const port = (srv.address() as { port: number }).port;
			srv.close(() => res(port));
		});
	});
}

/**
 * Waits until `port` accepts connections, or `child` (the server meant to listen there) exits.
 * No deadline of its own: a loaded machine may take long to start a server, and the test's
 * timeout bounds the wait.
 */
export async function waitForPort(port: number, child: ChildProcess): Promise<void> {
	let exited = child.exitCode !== null || child.signalCode !== null;
	const onExit = () => {
		exited = true;
	};
	child.once("exit", onExit);
	try {
		for (;;) {
			const open = await new Promise<boolean>((res) => {
				const sock = createConnection({ host: "127.0.0.1", port });
				sock.once("connect", () => {
					sock.destroy();
					res(true);
				});
				sock.once("error", () => res(false));
			});
			if (open) return;
			if (exited)
				throw new Error(
					`the server meant to listen on 127.0.0.1:${port} exited first (code ${child.exitCode}, signal ${child.signalCode})`,
				);
			await new Promise((r) => setTimeout(r, 50));
		}
	} finally {
		child.off("exit", onExit);
	}
}

export interface RunningServer {
	readonly port: number;
	readonly process: ChildProcess;
	stop(): Promise<void>;
}

/** Starts server-everything over HTTP ("streamableHttp" or "sse") on a free port. */
export async function startEverythingHttp(mode: "streamableHttp" | "sse", port?: number): Promise<RunningServer> {
	const p = port ?? (await freePort());
	const child = spawn(process.execPath, [EVERYTHING, mode], {
		env: { ...process.env, PORT: String(p) },
		stdio: "ignore",
	});
	await waitForPort(p, child);
	return { port: p, process: child, stop: () => stopChild(child) };
}

export function stopChild(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((res) => {
		const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
		child.once("exit", () => {
			clearTimeout(timer);
			res();
		});
		child.kill("SIGTERM");
	});
}

export function tempDir(prefix = "pi-mcp-test-"): { path: string; remove(): void } {
	const path = mkdtempSync(join(tmpdir(), prefix));
	return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A temp folder holding a home (agent dir at home/.pi/agent) and a project: what config tests read. */
export function configFolders(): { root: ReturnType<typeof tempDir>; home: string; cwd: string; agentDir: string } {
	const root = tempDir();
	const home = join(root.path, "home");
	const cwd = join(root.path, "project");
	mkdirSync(cwd, { recursive: true });
	return { root, home, cwd, agentDir: join(home, ".pi", "agent") };
}

/** A config with the given servers, as if read from a Pi file. */
export function configOf(servers: Record<string, unknown>, settings: Record<string, unknown> = {}): McpConfig {
	const dir = tempDir();
	try {
		const path = join(dir.path, "mcp.json");
		writeFileSync(path, JSON.stringify({ mcpServers: servers, settings }));
		const config = loadConfig({
			cwd: dir.path,
			agentDir: dir.path,
			home: dir.path,
			env: process.env,
			configPath: path,
		});
		if (config.problems.length > 0) throw new Error(JSON.stringify(config.problems));
		return config;
	} finally {
		dir.remove();
	}
}

export function lifecycleOf(config: McpConfig): ServerLifecycle {
	return new ServerLifecycle({
		config,
		manager: new McpServerManager({ requestTimeoutMs: config.settings.requestTimeoutMs }),
	});
}

export function everythingStdio(): Record<string, unknown> {
	return { command: process.execPath, args: [EVERYTHING, "stdio"] };
}

/** Runs a TypeScript fixture with this package's tsx. */
export const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");

/** The command that starts tests/fixtures/<name> (a TypeScript fixture server) through tsx, with `args`. */
export function fixture(name: string, ...args: string[]): { command: string; args: string[] } {
	return { command: process.execPath, args: [TSX, join(ROOT, "tests/fixtures", name), ...args] };
}

/** The fault fixture (tests/fixtures/fault-stdio.ts) as a stdio server entry, in one of its modes. */
export function faultStdio(
	mode: string,
	env: Record<string, string> = {},
): { command: string; args: string[]; env: Record<string, string> } {
	return { ...fixture("fault-stdio.ts", mode), env };
}

/** A stdio server (server-everything, or the node script given) that adds its pid to `log` each time it starts (exec keeps the pid). */
export function countedServer(
	log: string,
	script: readonly string[] = [EVERYTHING, "stdio"],
): { command: string; args: string[] } {
	return {
		command: "sh",
		args: ["-c", `echo $$ >> '${log}'; exec '${process.execPath}' ${script.map((a) => `'${a}'`).join(" ")}`],
	};
}

/** The pids of a countedServer's starts, in order. */
export function startedPids(log: string): number[] {
	try {
		return readFileSync(log, "utf8").split("\n").filter(Boolean).map(Number);
	} catch {
		return [];
	}
}

/**
 * Polls `check` until it holds. Without `timeoutMs` only the test's own timeout bounds the wait (a
 * busy machine is slow, not wrong); with it, fails saying what did not happen.
 */
export async function waitUntil(
	check: () => boolean,
	what: string,
	timeoutMs = Number.POSITIVE_INFINITY,
): Promise<void> {
	for (const deadline = Date.now() + timeoutMs; !check(); ) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

/** How many times a countedServer was started. */
export function startsIn(log: string): number {
	return startedPids(log).length;
}

/**
 * server-everything that starts only once `gate` exists: a server slow to start, as an npx or a
 * remote one is, held until the test says so (it waits for the file, not for a time).
 */
export function gatedServer(gate: string): { command: string; args: string[] } {
	const start = `exec '${process.execPath}' '${EVERYTHING}' stdio`;
	return { command: "sh", args: ["-c", `until [ -e '${gate}' ]; do sleep 0.05; done; ${start}`] };
}

/** A stdio server (server-everything) that leaves a marker file the moment it is started. */
export function markerServer(marker: string, extraArgs: string[] = []): { command: string; args: string[] } {
	return {
		command: "sh",
		args: ["-c", `touch '${marker}'; exec '${process.execPath}' '${EVERYTHING}' stdio`, ...extraArgs],
	};
}

export function entryOf(config: McpConfig, name: string): ServerEntry {
	const entry = config.servers.get(name);
	if (!entry) throw new Error(`no server ${name}`);
	return entry;
}

/**
 * A gate in front of a real HTTP MCP server on 127.0.0.1 that demands `Bearer <token>`.
 * Like a careless real server, its 401 body echoes the header it received, so tests can check
 * that no token ever reaches a message.
 */
export async function startAuthGate(
	targetPort: number,
	token: string,
): Promise<{ port: number; close(): Promise<void> }> {
	const { createServer: createHttpServer, request } = await import("node:http");
	const server = createHttpServer((req, res) => {
		if (req.headers.authorization !== `Bearer ${token}`) {
			res.writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" });
			res.end(`Unauthorized: got ${req.headers.authorization ?? "nothing"}`);
			return;
		}
		const upstream = request(
			{ host: "127.0.0.1", port: targetPort, path: req.url, method: req.method, headers: req.headers },
			(up) => {
				res.writeHead(up.statusCode ?? 502, up.headers);
				up.pipe(res);
			},
		);
		upstream.on("error", () => res.destroy());
		req.pipe(upstream);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return {
		port: (server.address() as { port: number }).port,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** Pids of every process whose environment carries the marker value (children inherit it). Linux /proc. */
export function marked(marker: string): number[] {
	const out: number[] = [];
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		try {
			if (readFileSync(`/proc/${name}/environ`, "utf8").includes(marker)) out.push(Number(name));
		} catch {
			// gone, or not ours
		}
	}
	return out;
}
