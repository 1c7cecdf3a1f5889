// One shared server in the broker (broker.ts) and the sessions using it: a JSON-RPC relay, not a
// second MCP implementation. The server's `initialize` is spoken once (broker/server-handshake.ts),
// with the first session's capabilities, and later sessions get the same answer; each session's
// request ids and progress tokens become the broker's own (every session's SDK starts at id 0), so
// answers, progress and cancels reach only their own session; the server's own requests
// (elicitation, sampling, roots) go to the session with the latest call in flight (stdio cannot say
// which call caused one); notifications go to every session, but a resource's update only to the
// sessions subscribed to it (the server holds one set of subscriptions for all:
// broker/shared-subscriptions.ts); `ping` is answered here. A session leaving cancels its calls at
// the server; the last one leaving starts the linger; the server's exit fails every request in
// flight with the reason and ends every session's connection.

import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { ProtocolErrorCode } from "@modelcontextprotocol/client";
import { CONNECTION_CLOSED_CODE } from "../errors.ts";
import type { StdioTransport } from "../transport/stdio.ts";
import { TailBuffer } from "../transport/tail-buffer.ts";
import { handshake, spawnShared } from "./server-handshake.ts";
import { SharedSubscriptions } from "./shared-subscriptions.ts";
import type { OpenParams, SocketTransport } from "./wire.ts";

/** A server stays at most this long after its last session left. */
const MAX_LINGER_MS = 10 * 60_000;

export type Id = string | number;
export type Message = JSONRPCMessage & {
	id?: Id;
	method?: string;
	params?: Record<string, unknown>;
	result?: unknown;
	error?: unknown;
};

/** One session's connection to the broker. */
export class Session {
	server?: SharedServer;
	constructor(readonly transport: SocketTransport) {}
	send(message: Message): void {
		// A session gone mid-send is detached by its close handler; nothing to tell it.
		this.transport.send(message as JSONRPCMessage).catch(() => undefined);
	}
}

interface Relayed {
	readonly session: Session;
	readonly id: Id;
	readonly token?: string | number;
	/** The URI of a `resources/subscribe` relayed: a refusal takes the session's subscription back. */
	readonly subscribes?: string;
}

/** One shared server process and the sessions using it. */
export class SharedServer {
	readonly sessions = new Set<Session>();
	readonly since = Date.now();
	private transport?: StdioTransport;
	private initialized?: Promise<unknown>;
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
	/** Which sessions subscribed to which resources (the server knows only that the broker did). */
	private readonly subscriptions = new SharedSubscriptions<Session>();
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
			this.sendUp({
				jsonrpc: "2.0",
				method: "notifications/cancelled",
				params: { requestId: id, reason: "the session ended" },
			});
		}
		for (const [token, relayed] of this.tokens) if (relayed.session === session) this.tokens.delete(token);
		for (const [id, asked] of this.asked) {
			if (asked.session !== session) continue;
			this.asked.delete(id);
			this.sendUp({
				jsonrpc: "2.0",
				id: asked.id,
				error: { code: ProtocolErrorCode.InternalError, message: "The session asked went away" },
			} as Message);
		}
		if (this.lastCaller === session) this.lastCaller = undefined;
		// What no other session wants any more is unsubscribed (its answer, under the broker's own id, goes nowhere).
		for (const uri of this.subscriptions.leave(session))
			this.sendUp({ jsonrpc: "2.0", id: this.nextId++, method: "resources/unsubscribe", params: { uri } } as Message);
		if (this.sessions.size === 0) {
			this.linger = setTimeout(() => void this.close(), this.lingerMs);
		}
	}

	/** The server's initialize result: the first session's handshake starts the server, later ones get the same answer. */
	initialize(session: Session, request: Message): void {
		this.initialized ??= this.start(request.params ?? {});
		this.initialized.then(
			(result) => session.send({ jsonrpc: "2.0", id: request.id as Id, result } as Message),
			(error: Error) =>
				session.send({
					jsonrpc: "2.0",
					id: request.id as Id,
					error: { code: CONNECTION_CLOSED_CODE, message: error.message },
				} as Message),
		);
	}

	private async start(params: Record<string, unknown>): Promise<unknown> {
		const transport = spawnShared(this.params, (chunk) => this.stderr.push(chunk));
		this.transport = transport;
		try {
			return await handshake(transport, this.params, params, {
				onMessage: (message) => this.fromServer(message as Message),
				onExit: () => this.ended(),
				exitReason: () => this.exitReason("exited during its handshake"),
			});
		} catch (error) {
			void this.close();
			throw error;
		}
	}

	/** A session's message for the server: ids and progress tokens made the broker's own. */
	fromSession(session: Session, message: Message): void {
		if (message.method === "initialize") {
			this.initialize(session, message);
			return;
		}
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
			if (!this.subscriptionReachesServer(session, message)) {
				session.send({ jsonrpc: "2.0", id: message.id, result: {} } as Message);
				return;
			}
			const id = this.nextId++;
			const meta = message.params?._meta as { progressToken?: string | number } | undefined;
			const subscribes = message.method === "resources/subscribe" ? String(message.params?.uri) : undefined;
			const relayed: Relayed = { session, id: message.id, token: meta?.progressToken, subscribes };
			this.requests.set(id, relayed);
			this.lastCaller = session;
			let params = message.params;
			if (meta?.progressToken !== undefined) {
				this.tokens.set(`p${id}`, relayed);
				params = { ...params, _meta: { ...meta, progressToken: `p${id}` } };
			}
			this.sendUp({ ...message, id, params } as Message);
			return;
		}
		if (message.id !== undefined) {
			// The session's answer to the server's own request.
			const asked = this.asked.get(String(message.id));
			if (!asked || asked.session !== session) return;
			this.asked.delete(String(message.id));
			this.sendUp({ ...message, id: asked.id });
			return;
		}
		this.sendUp(message); // roots/list_changed and the like
	}

	/**
	 * Whether a session's `resources/subscribe` or `resources/unsubscribe` goes to the server: only
	 * the first session's subscribe to a URI, and the last one's unsubscribe. Anything else goes.
	 */
	private subscriptionReachesServer(session: Session, message: Message): boolean {
		const uri = message.params?.uri;
		if (typeof uri !== "string") return true; // not ours to judge: the server answers what is wrong
		if (message.method === "resources/subscribe") return this.subscriptions.subscribe(session, uri);
		if (message.method === "resources/unsubscribe") return this.subscriptions.unsubscribe(session, uri);
		return true;
	}

	private fromServer(message: Message): void {
		if (message.method === undefined && message.id !== undefined) {
			const relayed = this.requests.get(message.id as number);
			if (!relayed) return; // cancelled, or its session left
			this.requests.delete(message.id as number);
			// A refused subscribe subscribed nothing: the next session's subscribe asks the server again.
			if (relayed.subscribes !== undefined && message.error)
				this.subscriptions.unsubscribe(relayed.session, relayed.subscribes);
			for (const [token, r] of this.tokens) if (r === relayed) this.tokens.delete(token);
			relayed.session.send({ ...message, id: relayed.id });
			return;
		}
		// The server's ping is answered here: every session would answer it otherwise.
		if (message.method === "ping" && message.id !== undefined) {
			this.sendUp({ jsonrpc: "2.0", id: message.id, result: {} } as Message);
			return;
		}
		if (message.id !== undefined) {
			this.askSession(message);
			return;
		}
		if (message.method === "notifications/progress") {
			const relayed = this.tokens.get(String(message.params?.progressToken));
			if (relayed) relayed.session.send({ ...message, params: { ...message.params, progressToken: relayed.token } });
			return;
		}
		if (message.method === "notifications/resources/updated") {
			for (const session of this.subscriptions.sessionsFor(String(message.params?.uri))) session.send(message);
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
		if (!session) {
			const error = { code: ProtocolErrorCode.InternalError, message: "No session is using this server" };
			this.sendUp({ jsonrpc: "2.0", id: message.id as Id, error } as Message);
			return;
		}
		const id = `s${this.nextId++}`;
		this.asked.set(id, { session, id: message.id as Id });
		session.send({ ...message, id });
	}

	private sendUp(message: Message): void {
		// The server gone mid-send: its exit fails every request in flight with the reason (see `ended`).
		this.transport?.send(message as JSONRPCMessage).catch(() => undefined);
	}

	private exitReason(what: string): string {
		return goneReason(this.params.name, what, this.transport?.failure, this.stderr.text().trim());
	}

	/** The server is gone: every request in flight gets an error saying so, every session's connection ends. */
	private ended(): void {
		if (this.closed) return;
		this.closed = true;
		clearTimeout(this.linger);
		const reason = this.exitReason(`exited with ${this.sessions.size} session(s) using it`);
		for (const [, relayed] of this.requests)
			relayed.session.send({
				jsonrpc: "2.0",
				id: relayed.id,
				error: { code: CONNECTION_CLOSED_CODE, message: reason },
			} as Message);
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

/** Why a shared server is gone: the transport's own reason (a message over the limit) or its stderr's last words. */
function goneReason(name: string, what: string, failure: string | undefined, tail: string): string {
	const why = failure ? `: ${failure}` : tail ? `. Its stderr ended with:\n${tail}` : "";
	return `Server "${name}" ${failure ? "was closed" : what} (it runs in the shared MCP broker)${why}`;
}
