// The stdio transport: the SDK's Transport contract and its own message (de)serialization, with
// what its StdioClientTransport lacks for real-world servers:
// - reading is linear in the data, with a clear error above a size limit (line-reader.ts);
// - the server leads its own process group, and close ends the whole tree: stdin end, then
//   SIGTERM, then SIGKILL, with waits that keep Node alive until it is done;
// - a failure to start says what could not be started.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import spawn from "cross-spawn";
import { killAllSync, listTree, signal, tagged, terminateAll } from "../bounds/process-tree.ts";
import { within } from "../bounds/waits.ts";
import { LineReader } from "./line-reader.ts";

export interface StdioTransportOptions {
	readonly command: string;
	readonly args: readonly string[];
	readonly env: Readonly<Record<string, string>>;
	readonly cwd?: string;
	/** A message (one line) longer than this closes the connection with a clear error. */
	readonly maxMessageBytes: number;
	readonly onStderr?: (chunk: Buffer) => void;
	/** Turns a line into a message (the SDK's deserializeMessage); throws on a line that is not one. */
	readonly parse: (line: string) => JSONRPCMessage;
	/**
	 * How long a server may take to exit after its stdin ends, before SIGTERM (default 20 ms). Most
	 * servers never exit on stdin's end (server-everything, filesystem, memory): waiting longer only
	 * delays every `pi -p` that used a server by as much. SIGTERM still lets a server finish cleanly.
	 */
	readonly exitGraceMs?: number;
}

const POSIX = process.platform !== "win32";
const DEFAULT_EXIT_GRACE_MS = 20;
/**
 * How long a server that stopped reading its input gets to exit before its failure is told: the
 * write that failed (EPIPE) may be seen before the exit that caused it (Node 22 sees it first more
 * often), and "exit code 3" says more than "write EPIPE".
 */
const SETTLE_MS = 500;
/** The environment variable that tags a server's processes (see `tagged`). */
const TAG = "PI_MCP_SERVER_ID";

export class StdioTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;
	/** Why the connection ended, when the transport ended it (a message over the limit). */
	failure?: string;
	/** How the server's process ended by itself ("exit code 3", "signal SIGKILL"); undefined while it runs or when we ended it. */
	exit?: string;
	private child?: ChildProcess;
	private exited?: Promise<void>;
	/** Its stdin failed (EPIPE): it exited, or will not read again. */
	private inputClosed = false;
	/** We are ending it: an exit from now on is ours, not the server's. */
	private ending = false;
	/** All of the child's output read (its pipes closed): what it said last is not lost. */
	private drained?: Promise<void>;
	private readonly reader: LineReader;
	private closing?: Promise<void>;
	/** In the server's environment, inherited by everything it starts: finds helpers that left its group (setsid). */
	private readonly tag = randomBytes(8).toString("hex");

	constructor(private readonly options: StdioTransportOptions) {
		this.reader = new LineReader({
			maxMessageBytes: options.maxMessageBytes,
			parse: options.parse,
			onMessage: (message) => this.onmessage?.(message),
			onOverflow: () => {
				const mb = Math.round(options.maxMessageBytes / 1024 / 1024);
				this.failure = `the server sent more than ${mb} MB without a line end (a message over the limit, or output that is not MCP); the connection was closed. Raise settings.maxMessageMB if its answers are really that big.`;
				this.onerror?.(new Error(this.failure));
				void this.close();
			},
		});
	}

	get pid(): number | undefined {
		return this.child?.pid;
	}

	/**
	 * Starts the server. Called again (the SDK's Client calls it on connect), it is the same start:
	 * the server may be started before the client that speaks to it is ready.
	 */
	start(): Promise<void> {
		this.started ??= this.spawn();
		return this.started;
	}

	private started?: Promise<void>;

	private spawn(): Promise<void> {
		const { command, args, env, cwd } = this.options;
		const child = spawn(command, [...args], {
			env: { ...env, [TAG]: this.tag },
			cwd,
			stdio: ["pipe", "pipe", "pipe"],
			// Its own process group: one signal reaches the server and everything it started.
			detached: POSIX,
			windowsHide: true,
		});
		this.child = child;
		this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
		this.drained = new Promise((resolve) => child.once("close", () => resolve()));
		child.stdout?.on("data", (chunk: Buffer) => this.reader.read(chunk));
		child.stderr?.on("data", (chunk: Buffer) => this.options.onStderr?.(chunk));
		child.stdin?.on("error", (error) => {
			this.inputClosed = true;
			this.onerror?.(error);
		});
		child.once("exit", (code, signal) => {
			if (this.ending) return; // we ended it (stdin's end, a signal)
			this.exit = code !== null ? `exit code ${code}` : `signal ${signal}`;
			this.closing ??= this.endTree().finally(() => this.onclose?.());
		});
		return new Promise((resolve, reject) => {
			child.once("spawn", () => resolve());
			child.once("error", (error: NodeJS.ErrnoException) => {
				const why =
					error.code === "ENOENT" ? `command not found: ${command}${cwd ? ` (in ${cwd})` : ""}` : error.message;
				reject(new Error(`cannot start the server: ${why}`, { cause: error }));
			});
		});
	}

	/**
	 * When the server stopped reading its input and still runs, waits (at most SETTLE_MS) for it to
	 * exit, so `exit` says how it ended; returns at once otherwise.
	 */
	async settle(): Promise<void> {
		const child = this.child;
		if (!this.inputClosed || !child || child.exitCode !== null || child.signalCode !== null) return;
		await within(this.exited ?? Promise.resolve(), SETTLE_MS);
	}

	send(message: JSONRPCMessage): Promise<void> {
		const stdin = this.child?.stdin;
		if (!stdin || stdin.destroyed || this.closing) return Promise.reject(new Error("Not connected"));
		return new Promise((resolve, reject) => {
			stdin.write(`${JSON.stringify(message)}\n`, (error) => {
				if (error) this.inputClosed = true;
				return error ? reject(error) : resolve();
			});
		});
	}

	close(): Promise<void> {
		// A server that stopped reading first gets its moment to exit by itself (its exit code is told).
		this.closing ??= this.settle()
			.then(() => this.endTree())
			.finally(() => this.onclose?.());
		return this.closing;
	}

	/** Last resort at process exit: SIGKILL the group and the tree, synchronously. */
	killSync(): void {
		const child = this.child;
		const pid = child?.pid;
		if (!child || !pid) return;
		const leaderAlive = child.exitCode === null && child.signalCode === null;
		killAllSync([...this.members(pid), ...(leaderAlive ? [pid] : [])]);
		if (POSIX && leaderAlive) signal(-pid, "SIGKILL");
	}

	/** stdin end, a short wait, then the whole tree (group and descendants) gets SIGTERM, then SIGKILL. */
	private async endTree(): Promise<void> {
		this.ending = true;
		const child = this.child;
		const pid = child?.pid;
		if (!child || !pid) return;
		// Listed first: once the leader exits, its children are re-parented and only the group finds them.
		const tree = this.members(pid);
		if (child.exitCode === null && child.signalCode === null) {
			child.stdin?.end();
			// within(): its timer is cleared as soon as the server exits, so it holds nothing open.
			await within(this.exited ?? Promise.resolve(), this.options.exitGraceMs ?? DEFAULT_EXIT_GRACE_MS);
		}
		if (child.exitCode === null && child.signalCode === null) {
			if (POSIX) signal(-pid, "SIGTERM");
			await terminateAll([pid, ...tree]);
			if (POSIX) signal(-pid, "SIGKILL");
		} else {
			// The leader is gone (its group id may be reused once empty): the members found are ended one by one.
			await terminateAll([...new Set([...tree, ...this.members(pid)])]);
		}
		// Its last words (a crash message on stderr) are read before the pipes go; a helper that
		// keeps them open does not hold this up for long.
		// (A pending timer here kept Pi's process alive 300 ms after every session that used a server.)
		await within(this.drained ?? Promise.resolve(), 300);
		child.stdout?.destroy();
		child.stderr?.destroy();
		child.stdin?.destroy();
	}

	/**
	 * Every process the server started: on Linux, those carrying its tag in their environment (a
	 * /proc scan: finds helpers that left the group or were re-parented, costs a few ms); elsewhere
	 * its descendants by `ps` (a process spawn, ~15 ms). The group it leads is signalled besides.
	 */
	private members(pid: number): number[] {
		return process.platform === "linux" ? tagged(TAG, this.tag) : listTree(pid);
	}
}
