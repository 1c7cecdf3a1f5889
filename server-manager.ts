// The pool of MCP connections: one connect at a time per server (concurrent callers share it;
// each may stop waiting on its own signal), calls counted in flight, events for the lifecycle,
// session recovery, list_changed, and closing every connection, or connect under way, without
// leaving a process behind. Its parts (pool/): the shapes, what each connection is doing
// (connection-states.ts), the connects under way (pending-connects.ts), opening one for the pool
// (open-pooled.ts), what a request goes out with (request-options.ts), which route a tool call takes
// (tool-call.ts), list_changed (list-changes.ts).
// Opening one connection: transport/open-connection.ts.

import type { CallToolResult, CompleteResult, GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/client";
import { untilAborted } from "./bounds/waits.ts";
import { loadBroker } from "./broker/client.lazy.ts";
import { afterError, describeError } from "./errors.ts";
import type { AuthContext } from "./oauth-handler.ts";
import { ConnectionStates } from "./pool/connection-states.ts";
import { watchListChanges } from "./pool/list-changes.ts";
import { openPooled } from "./pool/open-pooled.ts";
import { type OpenHooks, PendingConnects } from "./pool/pending-connects.ts";
import type { CallOptions, ConnectProgress, Pool, ServerManagerOptions, StateListener } from "./pool/pool-types.ts";
import { checkArgumentSize, requestOptions, requestTimeout, visitRequiredPages } from "./pool/request-options.ts";
import { sendToolCall } from "./pool/tool-call.ts";
import { resolveAgentDir } from "./storage/agent-dir.ts";
import { loadSdk } from "./transport/mcp-sdk.lazy.ts";
import { loadConnections } from "./transport/open-connection.lazy.ts";
import type { Challenge, ServerConnection } from "./transport/open-connection.ts";
import { Redactor } from "./trust/redaction.ts";
import { DEFAULT_SETTINGS, type ServerEntry } from "./types.ts";

export type {
	CallOptions,
	ConnectProgress,
	Pool,
	PooledConnection,
	ServerEvent,
	ServerManagerOptions,
	StateListener,
} from "./pool/pool-types.ts";
export { DEFAULT_MAX_ARGUMENT_BYTES } from "./pool/request-options.ts";
export type { ServerConnection } from "./transport/open-connection.ts";
export type { Progress } from "./types.ts";

/** The largest message accepted from a server unless configured (128 MB). */
const DEFAULT_MAX_MESSAGE_BYTES = DEFAULT_SETTINGS.maxMessageMB * 1024 * 1024;

export class McpServerManager implements Pool<ServerConnection> {
	private readonly states = new ConnectionStates();
	private readonly pending: PendingConnects;
	/** The last WWW-Authenticate challenge each server sent (what scope it wants). */
	private readonly challenges = new Map<string, Challenge>();
	private readonly options: ServerManagerOptions;
	private readonly now: () => number;
	private readonly auth: AuthContext;
	/** Every message this manager produces passes it; so should everything built from them. */
	readonly redactor: Redactor;
	/** The synchronous killer of every server process started and not yet closed (connected or still connecting). */
	private readonly live = new Set<() => void>();

	constructor(options: ServerManagerOptions = {}) {
		this.options = options;
		this.now = options.now ?? Date.now;
		this.pending = new PendingConnects(this.now);
		const env = options.env ?? process.env;
		this.auth = options.auth ?? { agentDir: resolveAgentDir(env), env };
		this.redactor = options.redactor ?? new Redactor(env);
	}

	/** Tells `listener` whenever a server connects or its connection ends (crash included). */
	subscribe(listener: StateListener): () => void {
		return this.states.subscribe(listener);
	}

	get(name: string): ServerConnection | undefined {
		return this.states.get(name);
	}

	/**
	 * Loads what a first connect needs (the connection code and the SDK, ~100-300 ms) without
	 * connecting, so the first call does not pay for it; after the servers whose connects are under
	 * way have started (loading the SDK holds the event loop, and their spawns would wait behind it).
	 * Idempotent.
	 */
	async warmUp(): Promise<void> {
		const { loadSdk } = await loadConnections();
		await this.pending.launched();
		await loadSdk();
	}

	connectedNames(): string[] {
		return this.states.connectedNames();
	}

	/** The last 401/403 challenge of a server, if it sent one. */
	challenge(name: string): Challenge | undefined {
		return this.challenges.get(name);
	}

	/** Whether a connect to this server is under way. */
	connecting(name: string): boolean {
		return this.pending.has(name);
	}

	/** The connect under way to this server: since when, and the install it waits for. */
	progress(name: string): ConnectProgress | undefined {
		return this.pending.progress(name);
	}

	/**
	 * Connects, or returns the healthy connection / the connect already under way. `signal` stops
	 * this caller's wait (Esc); the connect itself goes on for the others, within its deadline.
	 */
	connect(entry: ServerEntry, signal?: AbortSignal): Promise<ServerConnection> {
		const existing = this.get(entry.name);
		if (existing) return Promise.resolve(existing);
		const pending = this.pending.join(entry.name, (signal, hooks) => this.open(entry, signal, hooks));
		return signal ? untilAborted(pending.promise, signal) : pending.promise;
	}

	/**
	 * As `connect`, but resolves as soon as the server is initialized, while its tools, resources,
	 * templates and prompts are still being listed (recorded, and told as "connected", when they
	 * are): a call to a tool known from the cache need not wait for the whole listing. A listing
	 * that fails fails `connect`'s promise, and closes the connection under a call sent meanwhile.
	 */
	opened(entry: ServerEntry, signal?: AbortSignal): Promise<ServerConnection> {
		const existing = this.get(entry.name);
		if (existing) return Promise.resolve(existing);
		const pending = this.pending.join(entry.name, (signal, hooks) => this.open(entry, signal, hooks));
		return signal ? untilAborted(pending.opened, signal) : pending.opened;
	}

	/** The listing of a connect under way (see `opened`); undefined when none is. */
	listing(name: string): Promise<ServerConnection> | undefined {
		return this.pending.get(name)?.promise;
	}

	/** Lists tools, resources, templates and prompts again (after list_changed, or on request). */
	async refresh(name: string): Promise<ServerConnection> {
		const connection = this.require(name);
		const { listMetadata } = await loadConnections();
		Object.assign(
			connection,
			await listMetadata(connection.client, name, connection.transportKind, this.connectTimeoutMs()),
		);
		this.states.emit(name, "changed");
		return connection;
	}

	async callTool(
		name: string,
		tool: string,
		args: Record<string, unknown>,
		options: CallOptions = {},
	): Promise<CallToolResult> {
		checkArgumentSize(tool, args, this.options.maxArgumentBytes);
		// Counted in flight from the first moment, so an idle sweep can never close under it.
		return this.track(name, async (connection) => {
			await this.listedForHeaders(connection);
			const call = () => sendToolCall(connection, { name: tool, arguments: args }, options, this.options);
			try {
				return await call();
			} catch (error) {
				const next = afterError({ error, during: "request", transport: connection.transportKind });
				// The tool's header declarations changed since we listed it: list again and retry once (the spec's recovery).
				if (next === "list-again") {
					await this.refresh(name);
					return call();
				}
				// The server needs the user to visit a page first: ask, and retry once when they did.
				const visited =
					next === "visit-pages" && (await visitRequiredPages(this.options.requests, name, error, options.signal));
				if (!visited) throw error;
				return call();
			}
		});
	}

	/**
	 * A call sent before the listing carries no `Mcp-Param-*` headers (SEP-2243: the SDK takes them
	 * from the listed schema): on the 2026-07-28 wire over HTTP it waits for the listing first.
	 */
	private async listedForHeaders(connection: ServerConnection): Promise<void> {
		if (connection.transportKind === "stdio" || connection.client.getProtocolEra() !== "modern") return;
		if (!this.states.isCurrent(connection)) await this.pending.get(connection.name)?.promise;
	}

	/** A prompt's messages (prompts/get), with its arguments filled in. */
	async getPrompt(
		name: string,
		prompt: string,
		args: Record<string, string>,
		options: CallOptions = {},
	): Promise<GetPromptResult> {
		return this.track(name, (connection) =>
			connection.client.getPrompt({ name: prompt, arguments: args }, requestOptions(connection, options, this.options)),
		);
	}

	/** Completions for one argument of a prompt or resource template (completion/complete); none when the server has none. */
	async complete(
		name: string,
		ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
		argument: { name: string; value: string },
		context: Record<string, string>,
		options: CallOptions = {},
	): Promise<CompleteResult["completion"]["values"]> {
		const connection = this.get(name);
		if (!connection?.client.getServerCapabilities()?.completions) return [];
		const result = await this.track(name, (c) =>
			c.client.complete({ ref, argument, context: { arguments: context } }, requestOptions(c, options, this.options)),
		);
		return result.completion.values;
	}

	/** Tells every connected server offered roots that they changed (roots/list_changed). */
	async notifyRootsChanged(): Promise<void> {
		const offered = this.states.all().filter((c) => c.entry.roots !== false);
		await Promise.allSettled(offered.map((c) => c.client.sendRootsListChanged()));
	}

	async readResource(name: string, uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
		return this.track(name, (connection) =>
			connection.client.readResource({ uri }, requestOptions(connection, options, this.options)),
		);
	}

	/** Closes a server: a connect under way is cancelled (its process ended), a connection closed. */
	async close(name: string): Promise<void> {
		await this.pending.cancel(name);
		const connection = this.states.take(name);
		if (!connection) return;
		await connection.close();
		this.states.markClosed(connection);
	}

	/** Closes every connection and cancels every connect; one server that will not close never blocks the others. */
	async closeAll(): Promise<void> {
		const names = new Set([...this.states.names(), ...this.pending.names()]);
		await Promise.allSettled([...names].map((name) => this.close(name)));
	}

	/** Last resort when the process exits without an awaited shutdown: SIGKILL every server tree, synchronously. */
	killAllSync(): void {
		for (const kill of this.live) kill();
	}

	private require(name: string): ServerConnection {
		const connection = this.get(name);
		if (!connection) throw new Error(`Server "${name}" is not connected`);
		return connection;
	}

	/** A connection that may take requests: listed, or initialized with its listing under way (`opened`). */
	private callable(name: string): ServerConnection {
		const early = this.pending.get(name)?.connection;
		return this.get(name) ?? (early?.status === "connected" ? early : this.require(name));
	}

	private async track<T>(name: string, run: (connection: ServerConnection) => Promise<T>, retried = false): Promise<T> {
		const connection = this.callable(name);
		connection.inFlight++;
		connection.lastUsedAt = this.now();
		try {
			return await run(connection);
		} catch (error) {
			// A streamable HTTP server that forgot our session (restarted), or refused a token that could
			// be refreshed: connect again and retry once.
			const next = afterError({ error, during: "request", transport: connection.transportKind, retried });
			if (next === "reconnect" || (next === "sign-in" && (await this.renew(connection.entry, connection.oauthToken)))) {
				await this.close(name);
				await this.connect(connection.entry);
				return this.track(name, run, true);
			}
			const { explainRequestError, withStderr } = await loadConnections();
			// A server that stopped reading may be exiting: its exit code says more than the write that failed.
			await connection.settle?.();
			const timeout = requestTimeout(connection, this.options);
			const explained = withStderr(explainRequestError(await loadSdk(), error, connection, timeout), connection);
			if (next === "drop-connection") this.states.markClosed(connection);
			const message = describeError(explained);
			const scrubbed = this.redactor.scrub(message);
			throw scrubbed === message ? explained : new Error(scrubbed, { cause: explained });
		} finally {
			connection.inFlight--;
			connection.lastUsedAt = this.now();
		}
	}

	private renew(entry: ServerEntry, refused: string | undefined): Promise<boolean> {
		return (
			this.options.renewCredentials?.(entry, refused, this.challenges.get(entry.name)).catch(() => false) ??
			Promise.resolve(false)
		);
	}

	/** Opens a connection (pool/open-pooled.ts), then records it: its end, its list_changed, "connected". */
	private async open(entry: ServerEntry, signal: AbortSignal, hooks: OpenHooks): Promise<ServerConnection> {
		this.redactor.add(...entry.secrets);
		const connecting = await loadConnections();
		const open = {
			env: this.options.env ?? process.env,
			auth: this.auth,
			redactor: this.redactor,
			connectTimeoutMs: this.connectTimeoutMs(),
			maxMessageBytes: this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
			launch: this.options.launch,
			// The npx resolver's install this connect waits for, if it is still under way.
			onInstall: (install: ConnectProgress["install"]) => {
				if (this.pending.installing(entry.name, signal, install)) this.states.emit(entry.name, "installing");
			},
			debugLog: this.options.debugLog,
			live: this.live,
			requests: this.options.requests,
			broker: await this.sharedServers(entry),
			onChallenge: (challenge: Challenge) => this.challenges.set(entry.name, challenge),
		};
		const renew = (e: ServerEntry, refused: string | undefined) => this.renew(e, refused);
		const connection = await openPooled(entry, signal, hooks, { connecting, open, now: this.now, renew });
		this.challenges.delete(entry.name);
		connection.client.onclose = () => this.states.markClosed(connection);
		// A failed refresh keeps the tools listed before; the next list_changed or health check tries again.
		watchListChanges(connection, () => {
			if (this.get(connection.name) === connection) this.refresh(connection.name).catch(() => undefined);
		});
		this.states.record(connection);
		return connection;
	}

	/** The broker, for a server it shares: its client loads with the first such connect, not with every first connect. */
	private async sharedServers(entry: ServerEntry) {
		const broker = this.options.broker;
		if (!broker || entry.transport !== "stdio" || !broker.shares(entry)) return undefined;
		return (await loadBroker()).brokerServers(broker);
	}

	private connectTimeoutMs(): number {
		return this.options.connectTimeoutMs ?? DEFAULT_SETTINGS.connectTimeoutMs;
	}
}
