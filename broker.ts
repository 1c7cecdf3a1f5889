// The per-user broker: one detached process that owns shared stdio servers and relays each to
// every Pi session (and shell CLI) that asks for it over a local socket. Sessions speak MCP to it
// with their own SDK Client; the broker answers `initialize` from the server's first handshake and
// relays the rest by request id: each session's requests get ids of the broker's own (answers go
// back to the session that asked, a cancel reaches only that session's request), progress tokens
// likewise; a server's own requests (elicitation, sampling, roots) go to the session whose call is
// in flight, notifications (list_changed, logs) to every session. The broker exits once no
// session has used it for a while and no server runs. Started by broker-client.ts.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
	ADAPTER_VERSION,
	BROKER_FILE,
	BROKER_PROTOCOL,
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
} from "./broker-wire.ts";
import { StdioTransport } from "./stdio-transport.ts";
import { TailBuffer } from "./tail-buffer.ts";

/** How long the broker waits with no session and no server before it exits. */
const DEFAULT_IDLE_MS = 30_000;
/** A server stays at most this long after its last session left. */
const MAX_LINGER_MS = 10 * 60_000;
/** The largest message from a session before it said which server it wants (then: its own limit). */
const HELLO_BYTES = 1024 * 1024;
const INIT_ID = "pi-broker-initialize";

type Id = string | number;
type Message = JSONRPCMessage & { id?: Id; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };

/** One session's connection to the broker. */
class Session {
	server?: SharedServer;
	constructor(readonly transport: SocketTransport) {}
	send(message: Message): void {
		this.transport.send(message as JSONRPCMessage).catch(() => undefined);
	}
}

interface Relayed {
	readonly session: Session;
	readonly id: Id;
	readonly token?: string | number;
}

/** One shared server process and the sessions using it. */
class SharedServer {
	readonly sessions = new Set<Session>();
	readonly since = Date.now();
	private transport?: StdioTransport;
	private initialized?: Promise<Message>;
	private readonly stderr = new TailBuffer(4096);
	private nextId = 1;
	/** Requests in flight, by the id the server sees. */
	private readonly requests = new Map<number, Relayed>();
	/** Progress tokens the server sees → the session's own. */
	private readonly tokens = new Map<string, Relayed>();
	/** The server's own requests handed to a session, by the id the session sees → the server's id. */
	private readonly asked = new Map<string, { session: Session; id: Id }>();
	private lingerMs = 0;
	private linger?: ReturnType<typeof setTimeout>;
	private lastCaller?: Session;
	closing = false;
	closed = false;

	constructor(
		readonly key: string,
		readonly params: OpenParams,
		private readonly onEnd: (server: SharedServer) => void,
	) {}

	get pid(): number | undefined {
		return this.transport?.pid;
	}

	get inFlight(): number {
		return this.requests.size;
	}

	attach(session: Session, lingerMs: number): void {
		clearTimeout(this.linger);
		this.lingerMs = Math.max(this.lingerMs, Math.min(lingerMs || MAX_LINGER_MS, MAX_LINGER_MS));
		this.sessions.add(session);
		session.server = this;
	}

	/** A session left: its requests are cancelled at the server; the last one leaving starts the linger. */
	detach(session: Session): void {
		if (!this.sessions.delete(session)) return;
		for (const [id, relayed] of this.requests) {
			if (relayed.session !== session) continue;
			this.requests.delete(id);
			this.sendUp({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "the session ended" } });
		}
		for (const [token, relayed] of this.tokens) if (relayed.session === session) this.tokens.delete(token);
		for (const [id, asked] of this.asked) {
			if (asked.session !== session) continue;
			this.asked.delete(id);
			this.sendUp({ jsonrpc: "2.0", id: asked.id, error: { code: -32603, message: "The session asked went away" } } as Message);
		}
		if (this.lastCaller === session) this.lastCaller = undefined;
		if (this.sessions.size === 0) {
			this.linger = setTimeout(() => void this.close(), this.lingerMs);
		}
	}

	/** The server's initialize result: the first session's handshake starts the server, later ones get the same answer. */
	initialize(session: Session, request: Message): void {
		this.initialized ??= this.start(request.params ?? {});
		this.initialized.then(
			(result) => session.send({ jsonrpc: "2.0", id: request.id as Id, result } as Message),
			(error: Error) => session.send({ jsonrpc: "2.0", id: request.id as Id, error: { code: -32000, message: error.message } } as Message),
		);
	}

	private async start(params: Record<string, unknown>): Promise<Message> {
		const { launch, maxMessageBytes, connectTimeoutMs } = this.params;
		const transport = new StdioTransport({
			command: launch.command,
			args: launch.args,
			env: launch.env,
			cwd: launch.cwd,
			maxMessageBytes,
			parse: deserializeMessage,
			onStderr: (chunk) => this.stderr.push(chunk),
		});
		this.transport = transport;
		let answer: (message: Message) => void = () => undefined;
		const answered = new Promise<Message>((resolve) => (answer = resolve));
		transport.onmessage = (message) => {
			const m = message as Message;
			if (m.id === INIT_ID && m.method === undefined) answer(m);
			else this.fromServer(m);
		};
		const ended = new Promise<never>((_, reject) => {
			transport.onclose = () => {
				reject(new Error(this.exitReason("exited during its handshake")));
				this.ended();
			};
		});
		ended.catch(() => undefined);
		let timer: ReturnType<typeof setTimeout> | undefined;
		const timeout = new Promise<never>((_, reject) => {
			timer = setTimeout(() => reject(new Error(`Server "${this.params.name}" did not answer initialize within ${Math.round(connectTimeoutMs / 1000)} s`)), connectTimeoutMs);
		});
		timeout.catch(() => undefined);
		try {
			await transport.start();
			await transport.send({ jsonrpc: "2.0", id: INIT_ID, method: "initialize", params } as JSONRPCMessage);
			const reply = await Promise.race([answered, ended, timeout]);
			if (reply.error) throw new Error(`Server "${this.params.name}" refused initialize: ${JSON.stringify(reply.error)}`);
			await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage);
			return reply.result as Message;
		} catch (error) {
			void this.close();
			throw error;
		} finally {
			clearTimeout(timer);
		}
	}

	/** A session's message for the server: ids and progress tokens made the broker's own. */
	fromSession(session: Session, message: Message): void {
		if (message.method === "initialize") return this.initialize(session, message);
		if (message.method === "notifications/initialized") return;
		if (message.method === "notifications/cancelled") {
			const requestId = message.params?.requestId;
			for (const [id, relayed] of this.requests) {
				if (relayed.session !== session || relayed.id !== requestId) continue;
				this.requests.delete(id);
				this.sendUp({ ...message, params: { ...message.params, requestId: id } });
			}
			return;
		}
		if (message.method !== undefined && message.id !== undefined) {
			const id = this.nextId++;
			const meta = message.params?._meta as { progressToken?: string | number } | undefined;
			const relayed: Relayed = { session, id: message.id, token: meta?.progressToken };
			this.requests.set(id, relayed);
			this.lastCaller = session;
			let params = message.params;
			if (meta?.progressToken !== undefined) {
				this.tokens.set(`p${id}`, relayed);
				params = { ...params, _meta: { ...meta, progressToken: `p${id}` } };
			}
			return this.sendUp({ ...message, id, params } as Message);
		}
		if (message.id !== undefined) {
			// The session's answer to the server's own request.
			const asked = this.asked.get(String(message.id));
			if (!asked || asked.session !== session) return;
			this.asked.delete(String(message.id));
			return this.sendUp({ ...message, id: asked.id });
		}
		this.sendUp(message); // roots/list_changed and the like
	}

	private fromServer(message: Message): void {
		if (message.method === undefined && message.id !== undefined) {
			const relayed = this.requests.get(message.id as number);
			if (!relayed) return; // cancelled, or its session left
			this.requests.delete(message.id as number);
			for (const [token, r] of this.tokens) if (r === relayed) this.tokens.delete(token);
			return relayed.session.send({ ...message, id: relayed.id });
		}
		if (message.method === "ping" && message.id !== undefined) return this.sendUp({ jsonrpc: "2.0", id: message.id, result: {} } as Message);
		if (message.id !== undefined) return this.askSession(message);
		if (message.method === "notifications/progress") {
			const relayed = this.tokens.get(String(message.params?.progressToken));
			if (relayed) relayed.session.send({ ...message, params: { ...message.params, progressToken: relayed.token } });
			return;
		}
		if (message.method === "notifications/cancelled") {
			const requestId = message.params?.requestId;
			for (const [id, asked] of this.asked) {
				if (asked.id !== requestId) continue;
				this.asked.delete(id);
				asked.session.send({ ...message, params: { ...message.params, requestId: id } });
			}
			return;
		}
		for (const session of this.sessions) session.send(message);
	}

	/**
	 * A request from the server (elicitation, sampling, roots): stdio cannot say which call caused
	 * it, so it goes to the session with the latest call in flight, else the last one that called.
	 */
	private askSession(message: Message): void {
		const inFlight = [...this.requests.values()];
		const session = inFlight.at(-1)?.session ?? this.lastCaller ?? [...this.sessions].at(-1);
		if (!session) return this.sendUp({ jsonrpc: "2.0", id: message.id as Id, error: { code: -32603, message: "No session is using this server" } } as Message);
		const id = `s${this.nextId++}`;
		this.asked.set(id, { session, id: message.id as Id });
		session.send({ ...message, id });
	}

	private sendUp(message: Message): void {
		this.transport?.send(message as JSONRPCMessage).catch(() => undefined);
	}

	/** Why the server is gone: the transport's own reason (a message over the limit) or its stderr's last words. */
	private exitReason(what: string): string {
		const failure = this.transport?.failure;
		const tail = this.stderr.text().trim();
		const why = failure ? `: ${failure}` : tail ? `. Its stderr ended with:\n${tail}` : "";
		return `Server "${this.params.name}" ${failure ? "was closed" : what} (it runs in the shared MCP broker)${why}`;
	}

	/** The server is gone: every request in flight gets an error saying so, every session's connection ends. */
	private ended(): void {
		if (this.closed) return;
		this.closed = true;
		clearTimeout(this.linger);
		const reason = this.exitReason(`exited with ${this.sessions.size} session(s) using it`);
		for (const [, relayed] of this.requests) relayed.session.send({ jsonrpc: "2.0", id: relayed.id, error: { code: -32000, message: reason } } as Message);
		this.requests.clear();
		for (const session of this.sessions) void session.transport.close();
		this.sessions.clear();
		this.onEnd(this);
	}

	async close(): Promise<void> {
		this.closing = true; // a session opening now gets a fresh server, not this one
		if (this.transport) await this.transport.close();
		this.ended();
	}

	/** When the broker must exit at once. */
	killSync(): void {
		this.transport?.killSync();
	}
}

/** Runs the broker until it has been idle long enough; resolves with its exit code. */
export async function runBroker(agentDir: string, env: NodeJS.ProcessEnv = process.env): Promise<number> {
	const idleMs = Number(env.PI_MCP_BROKER_IDLE_MS) || DEFAULT_IDLE_MS;
	const dir = privateDir(brokerDir(agentDir));
	const path = socketPath(agentDir);
	if (process.platform !== "win32") privateDir(join(path, ".."));
	const servers = new Map<string, SharedServer>();
	const sessions = new Set<Session>();
	const since = Date.now();
	let lastActive = Date.now();
	const listener = createServer((socket) => accept(socket));
	const token = randomBytes(32).toString("hex");
	const authorized = (shown: unknown) => typeof shown === "string" && shown.length === token.length && timingSafeEqual(Buffer.from(shown), Buffer.from(token));

	// Two sessions starting a broker at once: one listens, the other finds it alive and leaves.
	const { lock } = await import("proper-lockfile");
	const release = await lock(dir, { realpath: false, lockfilePath: join(dir, "start.lock"), stale: 10_000, retries: { retries: 50, minTimeout: 20, maxTimeout: 200 } });
	try {
		if (await alive(path)) return 0;
		if (process.platform !== "win32") rmSync(path, { force: true });
		// The secret is on disk (0600) before the socket exists: a session that reads it finds this broker.
		const file: BrokerFile = { pid: process.pid, version: ADAPTER_VERSION, protocol: BROKER_PROTOCOL, since, token };
		writeFileSync(join(dir, BROKER_FILE), `${JSON.stringify(file)}\n`, { mode: 0o600 });
		await new Promise<void>((resolve, reject) => {
			listener.once("error", reject);
			listener.listen(path, () => resolve());
		});
	} finally {
		rmSync(join(dir, STARTING_MARKER), { force: true });
		await release();
	}
	// What would end the broker unexpectedly is written down (sessions carry on without it).
	const fatal = (error: unknown) => {
		appendFileSync(join(dir, "broker.log"), `${new Date().toISOString()} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`, { mode: 0o600 });
		for (const server of servers.values()) server.killSync(); // no server outlives its broker
		process.exit(1);
	};
	process.on("uncaughtException", fatal);
	process.on("unhandledRejection", fatal);

	function accept(socket: Socket): void {
		const transport = new SocketTransport(socket, HELLO_BYTES, deserializeMessage, "the session");
		const session = new Session(transport);
		sessions.add(session);
		lastActive = Date.now();
		transport.onclose = () => {
			sessions.delete(session);
			session.server?.detach(session);
			lastActive = Date.now();
		};
		transport.onmessage = (message) => {
			lastActive = Date.now();
			const m = message as Message;
			if (session.server) return session.server.fromSession(session, m);
			if ((m.method === STATUS_METHOD || m.method === OPEN_METHOD) && m.id !== undefined && !authorized(m.params?.token)) {
				session.send({ jsonrpc: "2.0", id: m.id, error: { code: NOT_AUTHORIZED, message: "not authorized: show the secret in broker.json" } } as Message);
				return void transport.close();
			}
			if (m.method === STATUS_METHOD && m.id !== undefined) return session.send({ jsonrpc: "2.0", id: m.id, result: status() } as Message);
			if (m.method === OPEN_METHOD && m.id !== undefined) return open(session, m);
			void transport.close();
		};
	}

	function open(session: Session, message: Message): void {
		const params = message.params as unknown as OpenParams;
		if (params?.protocol !== BROKER_PROTOCOL || params.version !== ADAPTER_VERSION) {
			const error = { code: WRONG_VERSION, message: `this broker runs pi-mcp-adapter ${ADAPTER_VERSION} (protocol ${BROKER_PROTOCOL})` };
			return session.send({ jsonrpc: "2.0", id: message.id as Id, error } as Message);
		}
		let server = servers.get(params.key);
		if (!server || server.closing || server.closed) {
			server = new SharedServer(params.key, params, (ended) => {
				if (servers.get(ended.key) === ended) servers.delete(ended.key);
				lastActive = Date.now();
			});
			servers.set(params.key, server);
		}
		server.attach(session, params.lingerMs);
		// Its calls may carry arguments up to its own limits, not the hello's.
		session.transport.maxMessageBytes = Math.max(HELLO_BYTES, params.maxMessageBytes);
		session.send({ jsonrpc: "2.0", id: message.id as Id, result: { sessions: server.sessions.size } } as Message);
	}

	function status(): BrokerStatus {
		return {
			pid: process.pid,
			version: ADAPTER_VERSION,
			since,
			sessions: [...sessions].filter((s) => s.server).length,
			servers: [...servers.values()].map((s) => ({ name: s.params.name, pid: s.pid, since: s.since, sessions: s.sessions.size, inFlight: s.inFlight })),
		};
	}

	const stop = async () => {
		listener.close();
		await Promise.allSettled([...servers.values()].map((s) => s.close()));
		if (process.platform !== "win32") rmSync(path, { force: true });
	};
	return new Promise<number>((resolve) => {
		const done = (code: number) => void stop().then(() => resolve(code));
		process.once("SIGTERM", () => done(0));
		process.once("SIGINT", () => done(0));
		const timer = setInterval(() => {
			if (servers.size > 0 || sessions.size > 0 || Date.now() - lastActive < idleMs) return;
			clearInterval(timer);
			done(0);
		}, Math.min(1000, idleMs));
	});
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

