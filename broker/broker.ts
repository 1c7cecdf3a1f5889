// The per-user broker: one detached process that owns shared stdio servers and serves each to
// every Pi session (and shell CLI) that asks for it over a local socket. Sessions speak MCP to it
// with their own SDK Client; each server is relayed by shared-server.ts. Here: the socket (one
// broker per agent dir, only for peers that show the secret in broker.json), which server a
// session gets, the status, and the broker's own end once no session has used it for a while and
// no server runs. Started by broker-client.ts.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { closeSync, rmSync, writeSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { deserializeMessage } from "@modelcontextprotocol/client";
import { openOwnFile, writeFileAtomic } from "../storage/file-guard.ts";
import { loadLockfile } from "../storage/locked-json.ts";
import { Redactor } from "../trust/redaction.ts";
import { type Id, type Message, Session, SharedServer } from "./shared-server.ts";
import {
	ADAPTER_VERSION,
	BROKER_FILE,
	BROKER_PROTOCOL,
	BROKER_TAG,
	type BrokerFile,
	type BrokerStatus,
	brokerDir,
	connectSocket,
	NOT_AUTHORIZED,
	OPEN_METHOD,
	type OpenParams,
	privateDir,
	SocketTransport,
	STARTING_MARKER,
	STATUS_METHOD,
	socketPath,
	WRONG_VERSION,
} from "./wire.ts";

/** How long the broker waits with no session and no server before it exits. */
const DEFAULT_IDLE_MS = 30_000;
/** How long a new connection has to show the secret and say what it wants. */
const HELLO_DEADLINE_MS = 2000;
/** The largest message from a session before it said which server it wants (then: its own limit). */
const HELLO_BYTES = 1024 * 1024;

/** Runs the broker until it has been idle long enough; resolves with its exit code. */
export async function runBroker(agentDir: string, env: NodeJS.ProcessEnv = process.env): Promise<number> {
	const broker = new Broker(agentDir, env);
	if (!(await broker.listen())) return 0;
	return broker.serveUntilIdle();
}

/** One broker: its socket, the sessions connected to it, and the shared servers it runs. */
class Broker {
	private readonly idleMs: number;
	private readonly dir: string;
	private readonly path: string;
	private readonly servers = new Map<string, SharedServer>();
	private readonly sessions = new Set<Session>();
	private readonly since = Date.now();
	private lastActive = Date.now();
	private readonly listener = createServer((socket) => this.accept(socket));
	/** The secret a session shows (from broker.json, 0600) before it may ask anything. */
	private readonly token = randomBytes(32).toString("hex");

	constructor(
		agentDir: string,
		private readonly env: NodeJS.ProcessEnv,
	) {
		this.idleMs = Number(env.PI_MCP_BROKER_IDLE_MS) || DEFAULT_IDLE_MS;
		this.dir = privateDir(brokerDir(agentDir));
		this.path = socketPath(agentDir);
		if (process.platform !== "win32") privateDir(join(this.path, ".."));
	}

	/**
	 * Listens on the socket, unless another broker already answers there (then false: this one
	 * leaves). Two sessions starting a broker at once: one listens, the other finds it alive.
	 */
	async listen(): Promise<boolean> {
		const { lock } = await loadLockfile();
		const release = await lock(this.dir, {
			realpath: false,
			lockfilePath: join(this.dir, "start.lock"),
			stale: 10_000,
			retries: { retries: 50, minTimeout: 20, maxTimeout: 200 },
		});
		try {
			if (await alive(this.path)) return false;
			if (process.platform !== "win32") rmSync(this.path, { force: true });
			// The secret is on disk (0600) before the socket exists: a session that reads it finds this broker.
			const file: BrokerFile = {
				pid: process.pid,
				version: ADAPTER_VERSION,
				protocol: BROKER_PROTOCOL,
				since: this.since,
				token: this.token,
			};
			// Replaced, never written through: a symlink planted as broker.json would point the write at another file.
			writeFileAtomic(join(this.dir, BROKER_FILE), `${JSON.stringify(file)}\n`, { replaceSymlink: true });
			await new Promise<void>((resolve, reject) => {
				this.listener.once("error", reject);
				this.listener.listen(this.path, () => resolve());
			});
		} finally {
			rmSync(join(this.dir, STARTING_MARKER), { force: true });
			await release();
		}
		process.on("uncaughtException", (error) => this.fatal(error));
		process.on("unhandledRejection", (error) => this.fatal(error));
		return true;
	}

	/** Serves until SIGTERM, SIGINT, or no session and no server for the idle time; resolves with the exit code. */
	serveUntilIdle(): Promise<number> {
		const stop = async () => {
			this.listener.close();
			await Promise.allSettled([...this.servers.values()].map((s) => s.close()));
			if (process.platform !== "win32") rmSync(this.path, { force: true });
		};
		return new Promise<number>((resolve) => {
			const done = (code: number) => void stop().then(() => resolve(code));
			process.once("SIGTERM", () => done(0));
			process.once("SIGINT", () => done(0));
			const timer = setInterval(
				() => {
					// Only sessions using a server count: a connection that never said which server it wants does not.
					const using = [...this.sessions].some((session) => session.server);
					if (this.servers.size > 0 || using || Date.now() - this.lastActive < this.idleMs) return;
					clearInterval(timer);
					done(0);
				},
				Math.min(1000, this.idleMs),
			);
		});
	}

	/**
	 * What would end the broker unexpectedly is written down (sessions carry on without it), without
	 * the secrets of its environment, its servers' environments and its own; no server outlives it.
	 */
	private fatal(error: unknown): never {
		const redactor = new Redactor(this.env);
		for (const server of this.servers.values()) redactor.addVariables(server.params.launch.env);
		redactor.add(this.token);
		const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
		try {
			const fd = openOwnFile(join(this.dir, "broker.log"), "append");
			try {
				writeSync(fd, `${new Date().toISOString()} ${redactor.scrub(text)}\n`);
			} finally {
				closeSync(fd);
			}
		} catch {
			// Not written (a symlink there is not followed): the broker still ends its servers and exits.
		}
		for (const server of this.servers.values()) server.killSync();
		process.exit(1);
	}

	private authorized(shown: unknown): boolean {
		return (
			typeof shown === "string" &&
			shown.length === this.token.length &&
			timingSafeEqual(Buffer.from(shown), Buffer.from(this.token))
		);
	}

	/** A new connection: a session that must show the secret at once, then say which server it wants. */
	private accept(socket: Socket): void {
		const transport = new SocketTransport(socket, HELLO_BYTES, deserializeMessage, "the session");
		const session = new Session(transport);
		this.sessions.add(session);
		// A peer that does not show the secret at once is dropped: it cannot hold a connection
		// open, nor keep the broker alive past its idle time.
		const hello = setTimeout(() => {
			if (!session.server) void transport.close();
		}, HELLO_DEADLINE_MS);
		transport.onclose = () => {
			clearTimeout(hello);
			this.sessions.delete(session);
			if (session.server) this.lastActive = Date.now();
			session.server?.detach(session);
		};
		transport.onmessage = (message) => this.receive(session, message as Message);
	}

	/** A session's message: relayed once it has a server; before that only the status or an open, with the secret. */
	private receive(session: Session, m: Message): void {
		if (session.server) {
			this.lastActive = Date.now();
			session.server.fromSession(session, m);
		} else if ((m.method === STATUS_METHOD || m.method === OPEN_METHOD) && m.id !== undefined) {
			if (!this.authorized(m.params?.token)) {
				const error = { code: NOT_AUTHORIZED, message: "not authorized: show the secret in broker.json" };
				session.send({ jsonrpc: "2.0", id: m.id, error } as Message);
				void session.transport.close();
			} else if (m.method === STATUS_METHOD)
				session.send({ jsonrpc: "2.0", id: m.id, result: this.status() } as Message);
			else this.open(session, m);
		} else void session.transport.close();
	}

	private open(session: Session, message: Message): void {
		const params = message.params as unknown as OpenParams;
		if (params?.protocol !== BROKER_PROTOCOL || params.version !== ADAPTER_VERSION) {
			const error = {
				code: WRONG_VERSION,
				message: `this broker runs pi-mcp-proxy ${ADAPTER_VERSION} (protocol ${BROKER_PROTOCOL})`,
			};
			session.send({ jsonrpc: "2.0", id: message.id as Id, error } as Message);
			return;
		}
		let server = this.servers.get(params.key);
		if (!server || server.closing || server.closed) {
			// Tagged with this broker's pid: if it is killed, the sessions end what it left (see broker-client.ts).
			const launch = { ...params.launch, env: { ...params.launch.env, [BROKER_TAG]: String(process.pid) } };
			server = new SharedServer(params.key, { ...params, launch }, (ended) => {
				if (this.servers.get(ended.key) === ended) this.servers.delete(ended.key);
				this.lastActive = Date.now();
			});
			this.servers.set(params.key, server);
		}
		server.attach(session, params.lingerMs);
		// Its calls may carry arguments up to its own limits, not the hello's.
		session.transport.maxMessageBytes = Math.max(HELLO_BYTES, params.maxMessageBytes);
		session.send({ jsonrpc: "2.0", id: message.id as Id, result: { sessions: server.sessions.size } } as Message);
	}

	private status(): BrokerStatus {
		return {
			pid: process.pid,
			version: ADAPTER_VERSION,
			since: this.since,
			sessions: [...this.sessions].filter((s) => s.server).length,
			servers: [...this.servers.values()].map((s) => ({
				name: s.params.name,
				pid: s.pid,
				since: s.since,
				sessions: s.sessions.size,
				inFlight: s.inFlight,
			})),
		};
	}
}

/** Whether a broker answers on this socket (a socket file left by a killed one does not). */
async function alive(path: string): Promise<boolean> {
	try {
		(await connectSocket(path, 1000)).destroy();
		return true;
	} catch {
		return false;
	}
}
