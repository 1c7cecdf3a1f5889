// A session's side of the broker (broker.ts): reach it (starting it, detached, on first need),
// ask it for a shared server, and hand the socket to the SDK Client as its transport. Anything
// that keeps the broker from serving (it cannot start, it runs another version, its socket is
// stale) returns nothing, and the session runs the server itself as before.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, existsSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { isAlive, killAllSync, tagged } from "../bounds/process-tree.ts";
import { delay } from "../bounds/waits.ts";
import { configHash, stableStringify } from "../config/identity.ts";
import { openOwnFile, readTextFile } from "../storage/file-guard.ts";
import type { SharedLaunch, SharedServers } from "../transport/open-connection.ts";
import type { StdioServerEntry } from "../types.ts";
import {
	ADAPTER_VERSION,
	BROKER_PROTOCOL,
	BROKER_TAG,
	type BrokerStatus,
	brokerDir,
	connectSocket,
	OPEN_METHOD,
	type OpenParams,
	privateDir,
	readBrokerFile,
	SocketTransport,
	STARTING_MARKER,
	STATUS_METHOD,
	socketDirIsPrivate,
	socketPath,
} from "./wire.ts";

/** Which servers a session shares through the broker, and for how long the broker keeps each. */
export interface BrokerOptions {
	readonly agentDir: string;
	/** The server's `share`, else `settings.shareServers`. */
	readonly shares: (entry: StdioServerEntry) => boolean;
	/** How long the server may stay up after the last session leaves (its idle timeout). */
	readonly lingerMs: (entry: StdioServerEntry) => number;
}

/** The broker as a connection opens shared servers through it (`transport/open-connection.ts`). */
export function brokerServers(options: BrokerOptions): SharedServers {
	return {
		shares: options.shares,
		open: (entry, launch, limits, parse, signal) =>
			openBrokerTransport(
				options,
				{ key: sharedKey(entry, launch), name: entry.name, launch, ...limits, lingerMs: options.lingerMs(entry) },
				parse,
				signal,
			),
	};
}

/** Said of a call in flight when the broker goes away: it cannot know whether the server ran it. */
const BROKER_GONE =
	"the shared MCP broker stopped (killed, or it crashed): a call in flight may or may not have run on the server and was not retried; the next call starts the server again";

const REPLY_WAIT_MS = 5000;
/** How long a session tries the socket at least, even once no start is under way (a running broker slow to accept). */
const START_WAIT_MS = 5000;

/**
 * Variables that differ between two sessions of one user without changing what a server does:
 * left out of the shared key so that sessions of one project still share. Those of a terminal, and
 * those a Pi sets in its own process (so every server inherits them) to say that Pi runs and how:
 * pi 0.73 and Pi 1.5 set `PI_CODING_AGENT`, `--offline` sets `PI_OFFLINE` and
 * `PI_SKIP_VERSION_CHECK`, Pi 1.5 adds `AI_AGENT=pi` (pi 0.73 does not: its sessions never shared
 * with Pi 1.5's).
 */
const VOLATILE_ENV = new Set([
	"_",
	"SHLVL",
	"OLDPWD",
	"PWD",
	"TERM_SESSION_ID",
	"WINDOWID",
	"TMUX_PANE",
	"SSH_TTY",
	"SSH_CLIENT",
	"SSH_CONNECTION",
	"STY",
	"AI_AGENT",
	"PI_CODING_AGENT",
	"PI_OFFLINE",
	"PI_SKIP_VERSION_CHECK",
]);

/**
 * Who shares a server: everything that makes it behave differently. The same config identity as
 * the metadata cache, the same resolved command, the whole environment it is started with (another
 * token, inherited or configured, is another server) and the folder it runs in. A session never
 * gets a server started with another session's identity.
 */
export function sharedKey(entry: StdioServerEntry, launch: SharedLaunch): string {
	const env = Object.fromEntries(Object.entries(launch.env).filter(([name]) => !VOLATILE_ENV.has(name)));
	const project = entry.source.scope === "project" ? entry.source.path : undefined;
	const identity = {
		config: configHash(entry),
		command: launch.command,
		args: launch.args,
		cwd: launch.cwd,
		env,
		project,
	};
	return createHash("sha256").update(stableStringify(identity)).digest("hex");
}

/** A transport to the shared server, or undefined when the broker cannot serve it (the session runs it itself). */
export async function openBrokerTransport(
	options: BrokerOptions,
	request: Omit<OpenParams, "protocol" | "version" | "token">,
	parse: (line: string) => JSONRPCMessage,
	signal: AbortSignal,
): Promise<SocketTransport | undefined> {
	const socket = await reach(options.agentDir, signal);
	if (!socket) return undefined;
	const transport = new SocketTransport(socket, request.maxMessageBytes, parse, "the shared MCP broker", BROKER_GONE);
	const broker = readBrokerFile(options.agentDir);
	const token = broker?.token ?? "";
	// A broker killed outright (SIGKILL, OOM) leaves its servers running when they ignore stdin's
	// end: the sessions it served end them, found by the broker's pid in their environment.
	socket.once("close", () => {
		if (transport.failure === BROKER_GONE && broker) void endOrphans(broker.pid);
	});
	const params: OpenParams = { ...request, protocol: BROKER_PROTOCOL, version: ADAPTER_VERSION, token };
	const reply = await ask(transport, OPEN_METHOD, params, signal);
	if (!reply || "error" in reply) {
		// A silent broker (stopped, wedged) or one of another version answers the same next time.
		if (!signal.aborted) unavailableUntil.set(options.agentDir, Date.now() + RETRY_START_MS);
		transport.destroy();
		return undefined;
	}
	return transport;
}

/** How long a broker whose socket closed may take to die before it counts as alive (then it ended its servers itself). */
const BROKER_DEATH_MS = 2000;

/**
 * Kills the servers a dead broker left. Its socket closes while the kernel is still ending it, a
 * moment before it stops counting as alive: that moment is waited for.
 */
async function endOrphans(brokerPid: number): Promise<void> {
	for (const deadline = Date.now() + BROKER_DEATH_MS; isAlive(brokerPid); await delay(50)) {
		if (Date.now() > deadline) return; // it lives: it closed this session on purpose
	}
	killAllSync(tagged(BROKER_TAG, String(brokerPid)));
}

/** What the broker runs, for `/mcp` and the CLI's status; undefined when no broker runs. Never starts one. */
export async function brokerStatus(agentDir: string, timeoutMs = 1000): Promise<BrokerStatus | undefined> {
	const path = socketPath(agentDir);
	if (process.platform !== "win32" && (!existsSync(path) || !socketDirIsPrivate(path))) return undefined;
	// No broker (or a stale socket) is the answer here, not an error.
	const socket = await connectSocket(path, timeoutMs).catch(() => undefined);
	if (!socket) return undefined;
	const transport = new SocketTransport(
		socket,
		1024 * 1024,
		(line) => JSON.parse(line) as JSONRPCMessage,
		"the shared MCP broker",
	);
	const reply = await ask(
		transport,
		STATUS_METHOD,
		{ token: readBrokerFile(agentDir)?.token ?? "" },
		AbortSignal.timeout(timeoutMs),
	);
	await transport.close();
	return reply && "result" in reply ? (reply.result as BrokerStatus) : undefined;
}

/** One request to the broker itself; undefined when it does not answer in time. */
async function ask(
	transport: SocketTransport,
	method: string,
	params: object,
	signal: AbortSignal,
): Promise<{ result: unknown } | { error: unknown } | undefined> {
	const id = `pi-broker-${method}`;
	const reply = new Promise<{ result: unknown } | { error: unknown } | undefined>((resolve) => {
		transport.onmessage = (message) => {
			const m = message as { id?: unknown; result?: unknown; error?: unknown };
			if (m.id === id) resolve("error" in m && m.error !== undefined ? { error: m.error } : { result: m.result });
		};
		transport.onclose = () => resolve(undefined);
		signal.addEventListener("abort", () => resolve(undefined), { once: true });
		setTimeout(() => resolve(undefined), REPLY_WAIT_MS).unref();
	});
	// A send that fails closes the transport, which answers `undefined` below.
	await transport.send({ jsonrpc: "2.0", id, method, params } as JSONRPCMessage).catch(() => undefined);
	const answer = await reply;
	transport.onmessage = undefined;
	transport.onclose = undefined;
	return answer;
}

const starting = new Map<string, Promise<boolean>>();
/**
 * After a broker could not be started, or did not serve (silent, another version), this process
 * runs its servers itself for a while instead of waiting again at every connect.
 */
const unavailableUntil = new Map<string, number>();
const RETRY_START_MS = 60_000;

/** Connects to the broker, starting it when none answers; undefined when none could be reached in time. */
async function reach(agentDir: string, signal: AbortSignal): Promise<import("node:net").Socket | undefined> {
	if (Date.now() < (unavailableUntil.get(agentDir) ?? 0)) return undefined;
	const path = socketPath(agentDir);
	if (!socketFolderOk(path)) {
		unavailableUntil.set(agentDir, Date.now() + RETRY_START_MS);
		return undefined;
	}
	// Nothing listening yet is expected while the broker starts: tried again below.
	const attempt = () => connectSocket(path, 1000).catch(() => undefined);
	const first = await attempt();
	if (first || signal.aborted) return first;
	// One start per agent dir at a time in this process; other processes are sorted out by the broker's lock.
	let start = starting.get(agentDir);
	if (!start) {
		start = startBroker(agentDir).then(
			() => true,
			() => false, // no private folder for it (another user's), or no spawn
		);
		starting.set(agentDir, start);
		void start.finally(() => starting.delete(agentDir));
	}
	if (!(await start)) {
		unavailableUntil.set(agentDir, Date.now() + RETRY_START_MS);
		return undefined;
	}
	// Tried for 5 s, and beyond that for as long as a start is under way (this session's or
	// another's), within the connect's deadline: the 5 s alone gave up on a broker still loading on
	// a busy machine, and the session ran a second copy of the server beside the shared one. The
	// 5 s stay for a broker that runs but is slow to accept (a new start then ends at once: it
	// finds that one alive).
	for (const until = Date.now() + START_WAIT_MS; ; ) {
		const socket = await attempt();
		if (socket || signal.aborted) return socket;
		if (Date.now() >= until && !brokerStarting(agentDir)) break;
		await delay(50);
	}
	unavailableUntil.set(agentDir, Date.now() + RETRY_START_MS);
	return undefined;
}

/**
 * Whether the socket's folder is the user's own and private (made so if missing). The session
 * sends its environment and the broker's secret through it: a folder another user made (the
 * fallback in a shared temp dir has a guessable name) is never connected to.
 */
function socketFolderOk(path: string): boolean {
	try {
		privateDir(dirname(path));
		return true;
	} catch {
		return false; // another user's, or a symlink: run the servers in this session
	}
}

/** A marker not yet naming its broker, younger than this, is a start under way; older, one that died. */
const START_MARKER_MS = 10_000;
/** No start takes this long: a marker this old is from a start that died (its pid may name another process by now). */
const START_STALE_MS = 60_000;

/**
 * Whether a broker start is under way: its marker is there (the broker removes it once it listens,
 * or fails to) and the process it names is alive (for a minute at most); a marker not naming one
 * yet counts while fresh.
 */
function brokerStarting(agentDir: string): boolean {
	const marker = join(brokerDir(agentDir), STARTING_MARKER);
	// Only a session or the broker writes it, in their private folder: a symlink there is not theirs.
	const read = readTextFile(marker, { noFollow: true, maxBytes: 64 });
	if (read.kind !== "ok") return false; // no marker: no start under way
	const text = read.text;
	const age = Date.now() - (statSync(marker, { throwIfNoEntry: false })?.mtimeMs ?? 0);
	const pid = Number.parseInt(text, 10);
	return pid > 0 ? isAlive(pid) && age < START_STALE_MS : age < START_MARKER_MS;
}

/**
 * Starts the broker detached: it outlives this session and serves the next ones. Eight sessions
 * starting at once spawn one: the first to create the `starting` marker does, the others wait for
 * its socket (the broker's own lock settles any race that is left).
 */
async function startBroker(agentDir: string): Promise<void> {
	const bin = join(import.meta.dirname, "..", "bin", "pi-mcp-proxy.mjs");
	// Its own folder as working directory: the session's may be a checkout that gets deleted.
	const cwd = privateDir(brokerDir(agentDir));
	const marker = join(cwd, STARTING_MARKER);
	try {
		closeSync(openSync(marker, "wx", 0o600));
	} catch {
		if (brokerStarting(agentDir)) return;
		// A start that died (or a link planted in its place, removed, never followed): this one takes over.
		rmSync(marker, { force: true });
		try {
			closeSync(openSync(marker, "wx", 0o600));
		} catch {
			return; // another session took over first: it starts the broker
		}
	}
	const child = spawn(process.execPath, [bin, "__broker", agentDir], {
		cwd,
		detached: true,
		stdio: "ignore",
		windowsHide: true,
	});
	child.on("error", () => undefined);
	child.unref();
	// The marker names the broker, so that every session waits exactly as long as it lives. A broker
	// that already listens removed the marker: it is not written again.
	if (child.pid === undefined) return;
	try {
		const fd = openOwnFile(marker, "update");
		try {
			writeSync(fd, String(child.pid));
		} finally {
			closeSync(fd);
		}
	} catch {
		// Gone already: the broker listens (or failed and said so by removing it).
	}
}
