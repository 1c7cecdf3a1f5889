// What the broker (broker.ts) and the sessions using it (broker-client.ts) share: where the socket
// is (a 0700 folder of the user's own under <agentDir>, a named pipe on Windows), the version
// both must speak, and a Transport over the socket. The wire is MCP's own newline-delimited
// JSON-RPC; the broker adds two methods of its own, `pi-broker/open` (the first message of a
// session: which server it wants) and `pi-broker/status`.
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { parseJson, readTextFile } from "../storage/file-guard.ts";
import { LineReader } from "../transport/line-reader.ts";
import type { SharedLaunch } from "../transport/open-connection.ts";

/** Bumped when the broker's methods or relaying change: a session and a broker of another protocol do not talk. */
export const BROKER_PROTOCOL = 1;
export { ADAPTER_VERSION } from "../client-info.ts";

export const OPEN_METHOD = "pi-broker/open";
/** In a shared server's environment: the pid of the broker that started it. */
export const BROKER_TAG = "PI_MCP_BROKER_PID";
export const STATUS_METHOD = "pi-broker/status";
/** JSON-RPC error code of a broker that will not serve this session (another version). */
export const WRONG_VERSION = -32050;

/** `pi-broker/open` params: the server a session wants, under the identity that decides who shares it. */
export interface OpenParams {
	readonly protocol: number;
	readonly version: string;
	/** The broker's secret from `broker.json` (0600): proof that the peer can read the user's private files. */
	readonly token: string;
	/** Config identity (the metadata cache's hash, the resolved launch, the project for a project server). */
	readonly key: string;
	readonly name: string;
	readonly launch: SharedLaunch;
	readonly maxMessageBytes: number;
	readonly connectTimeoutMs: number;
	/** How long the server stays up after its last session leaves. */
	readonly lingerMs: number;
}

export interface OpenResult {
	/** Sessions using this server, this one included. */
	readonly sessions: number;
}

export interface SharedServerStatus {
	readonly name: string;
	readonly pid?: number;
	readonly since: number;
	readonly sessions: number;
	readonly inFlight: number;
}

export interface BrokerStatus {
	readonly pid: number;
	readonly version: string;
	readonly since: number;
	readonly sessions: number;
	readonly servers: readonly SharedServerStatus[];
}

/** JSON-RPC error code of a peer that did not show the broker's secret. */
export const NOT_AUTHORIZED = -32051;

/** What the running broker writes in `<agentDir>/mcp-broker/broker.json` (0600). */
export interface BrokerFile {
	readonly pid: number;
	readonly version: string;
	readonly protocol: number;
	readonly since: number;
	/** A random secret every request must carry: the same-user check that works on every platform. */
	readonly token: string;
}

export const BROKER_FILE = "broker.json";

/** The running broker's file, if there is one. */
export function readBrokerFile(agentDir: string): BrokerFile | undefined {
	// Only the broker writes it, in a private folder: a symlink there is not the broker's.
	const read = readTextFile(join(brokerDir(agentDir), BROKER_FILE), { noFollow: true, maxBytes: 64 * 1024 });
	if (read.kind !== "ok") return undefined;
	try {
		return parseJson(read.text) as BrokerFile;
	} catch {
		return undefined; // written half (the broker is starting): no broker to use yet
	}
}

/** Made by the session that starts the broker, removed by the broker once it listens. */
export const STARTING_MARKER = "starting";

/** The broker's folder: under the agent dir, private to the user. */
export function brokerDir(agentDir: string): string {
	return join(agentDir, "mcp-broker");
}

/** Unix sockets take ~100 bytes of path at most: a deep agent dir gets a private folder elsewhere. */
const MAX_SOCKET_PATH = 100;

/**
 * The socket: in the broker's folder under the agent dir, or, when that path is too long, in a
 * folder of the user's own under `$XDG_RUNTIME_DIR` (private by definition) or the temp dir.
 * The temp dir is shared with every user: that folder's name can be guessed, so it is checked
 * (`privateDir`) before every bind and connect, and a folder someone else made is never used.
 */
export function socketPath(agentDir: string, env: NodeJS.ProcessEnv = process.env): string {
	const id = createHash("sha256").update(agentDir).digest("hex").slice(0, 16);
	if (process.platform === "win32") return `\\\\.\\pipe\\pi-mcp-broker-${id}`;
	const path = join(brokerDir(agentDir), "broker.sock");
	if (path.length <= MAX_SOCKET_PATH) return path;
	const runtime = env.XDG_RUNTIME_DIR && isAbsolute(env.XDG_RUNTIME_DIR) ? env.XDG_RUNTIME_DIR : tmpdir();
	return join(runtime, `pi-mcp-broker-${process.getuid?.() ?? 0}-${id}`, "broker.sock");
}

/**
 * Creates the folder 0700, or checks that an existing one is the user's own, a real folder (not a
 * symlink) and private: the socket in it runs commands and is sent the session's environment, so
 * no other user may reach it (the folder's mode is the check that works everywhere; Node cannot
 * read a Unix socket peer's uid). Throws, naming the folder, when it cannot be made private.
 */
export function privateDir(dir: string): string {
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	if (process.platform === "win32") return dir;
	const stat = lstatSync(dir);
	if (!stat.isDirectory()) throw new Error(`${dir} is not a folder (a symlink?): the MCP broker will not use it`);
	const uid = process.getuid?.();
	if (uid !== undefined && stat.uid !== uid)
		throw new Error(`${dir} belongs to another user: the MCP broker will not use it`);
	// Ours and a real folder: tightening it cannot touch anything else.
	if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
	return dir;
}

/** Whether the socket's folder is still the user's own private folder (checked before each connect). */
export function socketDirIsPrivate(path: string): boolean {
	if (process.platform === "win32") return true;
	try {
		const stat = lstatSync(dirname(path));
		const uid = process.getuid?.();
		return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0;
	} catch {
		return false;
	}
}

/** Connects to the broker's socket, or fails (no broker, a stale socket) within `timeoutMs`. */
export function connectSocket(path: string, timeoutMs: number): Promise<Socket> {
	return new Promise((resolve, reject) => {
		const socket = createConnection(path);
		const timer = setTimeout(() => {
			socket.destroy();
			reject(new Error("the MCP broker did not accept the connection in time"));
		}, timeoutMs);
		socket.once("connect", () => {
			clearTimeout(timer);
			resolve(socket);
		});
		socket.once("error", (error) => {
			clearTimeout(timer);
			socket.destroy();
			reject(error);
		});
	});
}

const BACKLOG_MARGIN = 16 * 1024 * 1024;
/** Unread output past which notifications to a peer are dropped. */
const NOTIFICATION_BACKLOG_BYTES = 8 * 1024 * 1024;

/** The SDK's Transport over a socket, newline-delimited like stdio, reading with a size limit. */
export class SocketTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;
	/** Why the connection ended, when it ended without being closed from this side. */
	failure?: string;
	private closed = false;
	private readonly reader: LineReader;

	constructor(
		private readonly socket: Socket,
		maxMessageBytes: number,
		parse: (line: string) => JSONRPCMessage,
		/** What the other side is, for the reason given when it goes away. */
		peer: string,
		/** Why the connection ended when the other side ended it. */
		ended = `${peer} ended the connection`,
	) {
		const reader = new LineReader({
			maxMessageBytes,
			parse,
			onMessage: (message) => this.onmessage?.(message),
			onOverflow: () => {
				this.failure = `${peer} sent a message over ${Math.round(this.reader.limit / 1024 / 1024)} MB; the connection was closed`;
				socket.destroy();
			},
		});
		this.reader = reader;
		socket.on("data", (chunk: Buffer) => reader.read(chunk));
		socket.on("error", (error) => this.onerror?.(error));
		socket.once("close", () => {
			if (!this.closed) this.failure ??= ended;
			this.closed = true;
			this.onclose?.();
		});
	}

	/** Raises the message size limit (the broker learns a session's from its open request). */
	set maxMessageBytes(bytes: number) {
		this.reader.limit = bytes;
	}

	/** The socket is connected before the transport exists. */
	async start(): Promise<void> {}

	send(message: JSONRPCMessage): Promise<void> {
		if (this.closed || this.socket.destroyed) return Promise.reject(new Error("Not connected"));
		// A server flooding logs or progress must not cost a session that still reads its connection:
		// past a backlog, notifications are dropped (they are lossy by nature); answers never are.
		if (!("id" in message) && this.socket.writableLength > NOTIFICATION_BACKLOG_BYTES) return Promise.resolve();
		const sent = new Promise<void>((resolve, reject) =>
			this.socket.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve())),
		);
		// A peer that stopped reading (a frozen session) must not grow this process without bound.
		if (this.socket.writableLength > this.maxBacklogBytes) {
			this.failure = `the other side stopped reading (${Math.round(this.socket.writableLength / 1024 / 1024)} MB waiting); the connection was closed`;
			this.socket.destroy();
		}
		return sent;
	}

	/** Unread output allowed to wait for the peer: two of its largest messages, and some. */
	private get maxBacklogBytes(): number {
		return 2 * this.reader.limit + BACKLOG_MARGIN;
	}

	close(): Promise<void> {
		if (this.closed) return Promise.resolve();
		this.closed = true;
		return new Promise((resolve) => {
			this.socket.once("close", () => resolve());
			this.socket.end();
			// A peer that does not close its side in time is cut off.
			setTimeout(() => this.socket.destroy(), 500).unref();
		});
	}

	/** At process exit, when no await is possible. */
	destroy(): void {
		this.closed = true;
		this.socket.destroy();
	}
}
