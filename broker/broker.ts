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
import { loadLockfile } from "../lazy.ts";
import { openOwnFile, writeFileAtomic } from "../storage/file-guard.ts";
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
	const authorized = (shown: unknown) =>
		typeof shown === "string" &&
		shown.length === token.length &&
		timingSafeEqual(Buffer.from(shown), Buffer.from(token));

	// Two sessions starting a broker at once: one listens, the other finds it alive and leaves.
	const { lock } = await loadLockfile();
	const release = await lock(dir, {
		realpath: false,
		lockfilePath: join(dir, "start.lock"),
		stale: 10_000,
		retries: { retries: 50, minTimeout: 20, maxTimeout: 200 },
	});
	try {
		if (await alive(path)) return 0;
		if (process.platform !== "win32") rmSync(path, { force: true });
		// The secret is on disk (0600) before the socket exists: a session that reads it finds this broker.
		const file: BrokerFile = { pid: process.pid, version: ADAPTER_VERSION, protocol: BROKER_PROTOCOL, since, token };
		// Replaced, never written through: a symlink planted as broker.json would point the write at another file.
		writeFileAtomic(join(dir, BROKER_FILE), `${JSON.stringify(file)}\n`, { replaceSymlink: true });
		await new Promise<void>((resolve, reject) => {
			listener.once("error", reject);
			listener.listen(path, () => resolve());
		});
	} finally {
		rmSync(join(dir, STARTING_MARKER), { force: true });
		await release();
	}
	// What would end the broker unexpectedly is written down (sessions carry on without it), without
	// the secrets of its environment, its servers' environments and its own.
	const fatal = (error: unknown) => {
		const redactor = new Redactor(env);
		for (const server of servers.values()) redactor.addVariables(server.params.launch.env);
		redactor.add(token);
		const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
		try {
			const fd = openOwnFile(join(dir, "broker.log"), "append");
			try {
				writeSync(fd, `${new Date().toISOString()} ${redactor.scrub(text)}\n`);
			} finally {
				closeSync(fd);
			}
		} catch {
			// Not written (a symlink there is not followed): the broker still ends its servers and exits.
		}
		for (const server of servers.values()) server.killSync(); // no server outlives its broker
		process.exit(1);
	};
	process.on("uncaughtException", fatal);
	process.on("unhandledRejection", fatal);

	function accept(socket: Socket): void {
		const transport = new SocketTransport(socket, HELLO_BYTES, deserializeMessage, "the session");
		const session = new Session(transport);
		sessions.add(session);
		// A peer that does not show the secret at once is dropped: it cannot hold a connection
		// open, nor keep the broker alive past its idle time.
		const hello = setTimeout(() => {
			if (!session.server) void transport.close();
		}, HELLO_DEADLINE_MS);
		transport.onclose = () => {
			clearTimeout(hello);
			sessions.delete(session);
			if (session.server) lastActive = Date.now();
			session.server?.detach(session);
		};
		transport.onmessage = (message) => {
			const m = message as Message;
			if (session.server) {
				lastActive = Date.now();
				return session.server.fromSession(session, m);
			}
			if (
				(m.method === STATUS_METHOD || m.method === OPEN_METHOD) &&
				m.id !== undefined &&
				!authorized(m.params?.token)
			) {
				session.send({
					jsonrpc: "2.0",
					id: m.id,
					error: { code: NOT_AUTHORIZED, message: "not authorized: show the secret in broker.json" },
				} as Message);
				return void transport.close();
			}
			if (m.method === STATUS_METHOD && m.id !== undefined)
				return session.send({ jsonrpc: "2.0", id: m.id, result: status() } as Message);
			if (m.method === OPEN_METHOD && m.id !== undefined) return open(session, m);
			void transport.close();
		};
	}

	function open(session: Session, message: Message): void {
		const params = message.params as unknown as OpenParams;
		if (params?.protocol !== BROKER_PROTOCOL || params.version !== ADAPTER_VERSION) {
			const error = {
				code: WRONG_VERSION,
				message: `this broker runs pi-mcp-proxy ${ADAPTER_VERSION} (protocol ${BROKER_PROTOCOL})`,
			};
			session.send({ jsonrpc: "2.0", id: message.id as Id, error } as Message);
			return;
		}
		let server = servers.get(params.key);
		if (!server || server.closing || server.closed) {
			// Tagged with this broker's pid: if it is killed, the sessions end what it left (see broker-client.ts).
			const launch = { ...params.launch, env: { ...params.launch.env, [BROKER_TAG]: String(process.pid) } };
			server = new SharedServer(params.key, { ...params, launch }, (ended) => {
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
			servers: [...servers.values()].map((s) => ({
				name: s.params.name,
				pid: s.pid,
				since: s.since,
				sessions: s.sessions.size,
				inFlight: s.inFlight,
			})),
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
		const timer = setInterval(
			() => {
				// Only sessions using a server count: a connection that never said which server it wants does not.
				const using = [...sessions].some((session) => session.server);
				if (servers.size > 0 || using || Date.now() - lastActive < idleMs) return;
				clearInterval(timer);
				done(0);
			},
			Math.min(1000, idleMs),
		);
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
