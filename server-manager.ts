// The pool of MCP connections: one connect at a time per server (concurrent callers share it;
// each may stop waiting on its own signal), calls counted in flight, events for the lifecycle,
// session recovery, list_changed, and closing every connection, or connect under way, without
// leaving a process behind. Opening one connection: transport/open-connection.ts.

import type {
	CallToolResult,
	CompleteResult,
	ElicitRequestURLParams,
	GetPromptResult,
	ReadResourceResult,
} from "@modelcontextprotocol/client";
import { untilAborted } from "./bounds/waits.ts";
import { loadBroker } from "./broker/client.lazy.ts";
import type { BrokerOptions } from "./broker/client.ts";
import { afterError, describeError } from "./errors.ts";
import { type AuthContext, AuthRequiredError } from "./oauth-handler.ts";
import { resolveAgentDir } from "./storage/agent-dir.ts";
import { loadSdk } from "./transport/mcp-sdk.lazy.ts";
import type { InstallProgress } from "./transport/npx-install.ts";
import { loadConnections } from "./transport/open-connection.lazy.ts";
import type {
	Challenge,
	ClientRequests,
	Launcher,
	OpenOptions,
	ServerConnection,
} from "./transport/open-connection.ts";
import { loadExtensionTasks, loadTasks } from "./transport/tool-tasks.lazy.ts";
import { Redactor } from "./trust/redaction.ts";
import {
	DEFAULT_SETTINGS,
	type Progress,
	type PromptMetadata,
	type ResourceMetadata,
	type ResourceTemplateMetadata,
	type ServerEntry,
	type SkillSummary,
	type ToolMetadata,
} from "./types.ts";

export type { ServerConnection } from "./transport/open-connection.ts";
export type { Progress } from "./types.ts";

/** The largest message accepted from a server unless configured (128 MB). */
const DEFAULT_MAX_MESSAGE_BYTES = DEFAULT_SETTINGS.maxMessageMB * 1024 * 1024;

export interface CallOptions {
	readonly signal?: AbortSignal;
	readonly timeoutMs?: number;
	/** The server's progress notifications for this request. */
	readonly onProgress?: (progress: Progress) => void;
	/**
	 * The tool's listed task support: "required" is called through the 2025 task API; on the 2026
	 * wire every call to a server offering the tasks extension goes through it (transport/task-route.ts).
	 * A task's status messages come as progress.
	 */
	readonly taskSupport?: "required" | "optional";
}

/**
 * What a listener hears: a connection opened or ended, a server's tools or resources changed, or a
 * connect's wait for a package install moved on (about once a second, and when it stopped).
 */
export type ServerEvent = "connected" | "closed" | "changed" | "installing";

/** A connect under way: since when, and the package install it waits for, if any. */
export interface ConnectProgress {
	readonly since: number;
	readonly install?: InstallProgress;
}

export interface ServerManagerOptions {
	/** Default request timeout (ms) when an entry sets none; progress from the server resets it. */
	readonly requestTimeoutMs?: number;
	/** The longest a request may run however much progress it reports (default 10 min). */
	readonly maxTotalTimeoutMs?: number;
	/** How long connecting (spawn/handshake plus the first tool list) may take (default 30 s). */
	readonly connectTimeoutMs?: number;
	/** The largest message accepted from a server (default 128 MB). */
	readonly maxMessageBytes?: number;
	/** The largest arguments sent to a tool (default 4 MB): bigger is refused before sending. */
	readonly maxArgumentBytes?: number;
	readonly env?: Readonly<Record<string, string | undefined>>;
	/** Where `debug: true` servers' stderr goes; defaults to process.stderr. */
	readonly debugLog?: (server: string, text: string) => void;
	readonly now?: () => number;
	/** Where OAuth tokens are and which environment bearer tokens come from. */
	readonly auth?: AuthContext;
	/** How a stdio entry is actually started (the npx resolver rewrites npx launches). */
	readonly launch?: Launcher;
	/** Scrubs every error message; told each secret a connection uses (defaults to one of its own). */
	readonly redactor?: Redactor;
	/**
	 * Asked once when a server refuses credentials (at connect or mid-call), with the OAuth token it
	 * refused and its challenge: true when there are new credentials to retry with (a refresh).
	 */
	readonly renewCredentials?: (
		entry: ServerEntry,
		refusedToken: string | undefined,
		challenge: Challenge | undefined,
	) => Promise<boolean>;
	/** Answers to server-to-client requests (elicitation, ...): what is given is what the client declares. */
	readonly requests?: ClientRequests;
	/** Which stdio servers run in the per-user broker, shared with other sessions. */
	readonly broker?: BrokerOptions;
}

export type StateListener = (server: string, event: ServerEvent) => void;

/**
 * A pooled connection as the lifecycle sees it: its server, what it listed, how it is used, and a
 * ping for the health check (`ServerConnection` is one; a unit test's fake is another).
 */
export interface PooledConnection {
	readonly name: string;
	readonly entry: ServerEntry;
	readonly transportKind: ServerConnection["transportKind"];
	readonly shared?: boolean;
	readonly tools: readonly ToolMetadata[];
	readonly resources: readonly ResourceMetadata[];
	readonly templates: readonly ResourceTemplateMetadata[];
	readonly prompts: readonly PromptMetadata[];
	readonly skills: readonly SkillSummary[];
	readonly instructions?: string;
	readonly lastUsedAt: number;
	readonly inFlight: number;
	readonly client: { ping(options?: { timeout?: number }): Promise<unknown> };
}

/**
 * What the lifecycle needs of the pool of connections (McpServerManager is it), so the lifecycle's
 * rules (backoff, the gate, idle close, keep-alive) are tested over a typed fake without processes.
 */
export interface Pool<C extends PooledConnection = PooledConnection> {
	/** Scrubs every error message the pool produces. */
	readonly redactor: Redactor;
	subscribe(listener: StateListener): () => void;
	/** The healthy connection to a server, if there is one. */
	get(name: string): C | undefined;
	connectedNames(): string[];
	connecting(name: string): boolean;
	progress(name: string): ConnectProgress | undefined;
	challenge(name: string): Challenge | undefined;
	/** Connects, or joins the connect under way; `signal` stops only this caller's wait. */
	connect(entry: ServerEntry, signal?: AbortSignal): Promise<C>;
	/** As `connect`, resolving once the server is initialized: a call can go out while the listing goes on. */
	opened(entry: ServerEntry, signal?: AbortSignal): Promise<C>;
	/** The listing of a connect under way; undefined when none is. */
	listing(name: string): Promise<C> | undefined;
	refresh(name: string): Promise<unknown>;
	close(name: string): Promise<void>;
	closeAll(): Promise<void>;
	callTool(name: string, tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
	readResource(name: string, uri: string, options?: CallOptions): Promise<ReadResourceResult>;
	getPrompt(
		name: string,
		prompt: string,
		args: Record<string, string>,
		options?: CallOptions,
	): Promise<GetPromptResult>;
	complete(
		name: string,
		ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
		argument: { name: string; value: string },
		context: Record<string, string>,
		options?: CallOptions,
	): Promise<CompleteResult["completion"]["values"]>;
}

export const DEFAULT_MAX_ARGUMENT_BYTES = DEFAULT_SETTINGS.maxArgumentMB * 1024 * 1024;

interface PendingConnect {
	/** The connection, listed (tools, resources, templates, prompts) and recorded. */
	readonly promise: Promise<ServerConnection>;
	/** The connection once initialized, before its listing: a call can go out (see `opened`). */
	readonly opened: Promise<ServerConnection>;
	/** Set once initialized. */
	connection?: ServerConnection;
	/** Settles once the server's process began (or the connect ended before): see `warmUp`. */
	readonly launched: Promise<void>;
	readonly controller: AbortController;
	readonly since: number;
	install?: InstallProgress;
}

export class McpServerManager implements Pool<ServerConnection> {
	private readonly connections = new Map<string, ServerConnection>();
	private readonly listeners = new Set<StateListener>();
	private readonly pending = new Map<string, PendingConnect>();
	/** The last WWW-Authenticate challenge each server sent (what scope it wants). */
	private readonly challenges = new Map<string, Challenge>();
	private readonly options: ServerManagerOptions;
	private readonly now: () => number;
	private readonly auth: AuthContext;
	/** Every message this manager produces passes it; so should everything built from them. */
	readonly redactor: Redactor;

	constructor(options: ServerManagerOptions = {}) {
		this.options = options;
		this.now = options.now ?? Date.now;
		const env = options.env ?? process.env;
		this.auth = options.auth ?? { agentDir: resolveAgentDir(env), env };
		this.redactor = options.redactor ?? new Redactor(env);
	}

	/** Tells `listener` whenever a server connects or its connection ends (crash included). */
	subscribe(listener: StateListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private emit(server: string, event: ServerEvent): void {
		for (const listener of this.listeners) listener(server, event);
	}

	get(name: string): ServerConnection | undefined {
		const connection = this.connections.get(name);
		return connection?.status === "connected" ? connection : undefined;
	}

	/**
	 * Loads what a first connect needs (the connection code and the SDK, ~100-300 ms) without
	 * connecting, so the first call does not pay for it; after the servers whose connects are under
	 * way have started (loading the SDK holds the event loop, and their spawns would wait behind it).
	 * Idempotent.
	 */
	async warmUp(): Promise<void> {
		const { loadSdk } = await loadConnections();
		await Promise.all([...this.pending.values()].map((pending) => pending.launched));
		await loadSdk();
	}

	connectedNames(): string[] {
		return [...this.connections.values()].filter((c) => c.status === "connected").map((c) => c.name);
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
		const pending = this.pending.get(name);
		return pending ? { since: pending.since, install: pending.install } : undefined;
	}

	/**
	 * Connects, or returns the healthy connection / the connect already under way. `signal` stops
	 * this caller's wait (Esc); the connect itself goes on for the others, within its deadline.
	 */
	connect(entry: ServerEntry, signal?: AbortSignal): Promise<ServerConnection> {
		const existing = this.get(entry.name);
		if (existing) return Promise.resolve(existing);
		const pending = this.pending.get(entry.name) ?? this.start(entry);
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
		const pending = this.pending.get(entry.name) ?? this.start(entry);
		return signal ? untilAborted(pending.opened, signal) : pending.opened;
	}

	/** The listing of a connect under way (see `opened`); undefined when none is. */
	listing(name: string): Promise<ServerConnection> | undefined {
		return this.pending.get(name)?.promise;
	}

	private start(entry: ServerEntry): PendingConnect {
		const controller = new AbortController();
		let initialized!: (connection: ServerConnection) => void;
		const opened = new Promise<ServerConnection>((resolve) => (initialized = resolve));
		let began!: () => void;
		const launched = new Promise<void>((resolve) => (began = resolve));
		const onOpened = (connection: ServerConnection) => {
			pending.connection = connection;
			initialized(connection);
		};
		const promise = this.open(entry, controller.signal, { onOpened, onLaunched: began }).finally(() => {
			began();
			if (this.pending.get(entry.name)?.promise === promise) this.pending.delete(entry.name);
		});
		// A failure before the server was initialized fails both; after it, only the listing's promise.
		const race = Promise.race([opened, promise]);
		const pending: PendingConnect = { promise, opened: race, launched, controller, since: this.now() };
		// Whoever asked for the listing hears its failure; `opened` alone may have no one left to tell.
		pending.opened.catch(() => undefined);
		this.pending.set(entry.name, pending);
		return pending;
	}

	/** Lists tools, resources, templates and prompts again (after list_changed, or on request). */
	async refresh(name: string): Promise<ServerConnection> {
		const connection = this.require(name);
		const { listMetadata } = await loadConnections();
		Object.assign(
			connection,
			await listMetadata(connection.client, name, connection.transportKind, this.connectTimeoutMs()),
		);
		this.emit(name, "changed");
		return connection;
	}

	async callTool(
		name: string,
		tool: string,
		args: Record<string, unknown>,
		options: CallOptions = {},
	): Promise<CallToolResult> {
		const size = Buffer.byteLength(JSON.stringify(args));
		const limit = this.options.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES;
		if (size > limit) {
			throw new Error(
				`The arguments for ${tool} are ${formatMb(size)}, over the ${formatMb(limit)} limit: they were not sent. Pass a file path or a smaller piece instead (settings.maxArgumentMB raises the limit).`,
			);
		}
		// Counted in flight from the first moment, so an idle sweep can never close under it.
		return this.track(name, async (connection) => {
			const { loadSdk, headerSource, taskRoute, advertisesTasks, declaredCapabilities } = await loadConnections();
			const sdk = await loadSdk();
			const params = { name: tool, arguments: args };
			const client = connection.client;
			await this.listedForHeaders(connection);
			const call = async () => {
				const { signal, ...request } = this.requestOptions(connection, options);
				// The listed schema lets the SDK send the tool's SEP-2243 `Mcp-Param-*` headers.
				const toolDefinition = headerSource(connection.tools.find((t) => t.name === tool));
				const serverTasks = advertisesTasks(client.getServerCapabilities());
				const route = taskRoute({ era: client.getProtocolEra(), serverTasks, taskSupport: options.taskSupport });
				if (route === "plain") return client.callTool(params, { ...request, signal, toolDefinition });
				const { timeout, maxTotalTimeout } = request;
				const task = { signal, timeout, maxTotalTimeout, onProgress: options.onProgress };
				if (route === "task-api") return (await loadTasks()).callToolAsTask(sdk, client, params, task);
				return (await loadExtensionTasks()).callToolThroughExtension(sdk, client, params, {
					...task,
					call: { ...request, toolDefinition },
					declared: declaredCapabilities(client),
					entry: connection.entry,
					requests: this.options.requests,
				});
			};
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
				if (next !== "visit-pages" || !(await this.visitRequiredPages(name, error, options.signal))) throw error;
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
		if (this.connections.get(connection.name) !== connection) await this.pending.get(connection.name)?.promise;
	}

	/** For a "URL elicitation required" error: asks the user to open each page; true when all were accepted. */
	private async visitRequiredPages(server: string, error: unknown, signal: AbortSignal | undefined): Promise<boolean> {
		const elicit = this.options.requests?.elicit;
		const { data } = (error ?? {}) as { data?: { elicitations?: unknown } };
		if (!elicit || !Array.isArray(data?.elicitations) || data.elicitations.length === 0) return false;
		for (const page of data.elicitations as ElicitRequestURLParams[]) {
			if (page?.mode !== "url" || typeof page.url !== "string") return false;
			const answer = await elicit(server, page, signal ?? new AbortController().signal);
			if (answer.action !== "accept") return false;
		}
		return true;
	}

	/** A prompt's messages (prompts/get), with its arguments filled in. */
	async getPrompt(
		name: string,
		prompt: string,
		args: Record<string, string>,
		options: CallOptions = {},
	): Promise<GetPromptResult> {
		return this.track(name, (connection) =>
			connection.client.getPrompt({ name: prompt, arguments: args }, this.requestOptions(connection, options)),
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
			c.client.complete({ ref, argument, context: { arguments: context } }, this.requestOptions(c, options)),
		);
		return result.completion.values;
	}

	/** Tells every connected server offered roots that they changed (roots/list_changed). */
	async notifyRootsChanged(): Promise<void> {
		const offered = [...this.connections.values()].filter((c) => c.entry.roots !== false);
		await Promise.allSettled(offered.map((c) => c.client.sendRootsListChanged()));
	}

	async readResource(name: string, uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
		return this.track(name, (connection) =>
			connection.client.readResource({ uri }, this.requestOptions(connection, options)),
		);
	}

	/** Closes a server: a connect under way is cancelled (its process ended), a connection closed. */
	async close(name: string): Promise<void> {
		const pending = this.pending.get(name);
		if (pending) {
			pending.controller.abort(new Error(`Connecting to "${name}" was cancelled: the server is being closed`));
			// Its failure is the cancellation this close caused: nobody waits for it any more.
			await pending.promise.catch(() => undefined);
		}
		const connection = this.connections.get(name);
		if (!connection) return;
		this.connections.delete(name);
		await connection.close();
		this.markClosed(connection);
	}

	/** Closes every connection and cancels every connect; one server that will not close never blocks the others. */
	async closeAll(): Promise<void> {
		const names = new Set([...this.connections.keys(), ...this.pending.keys()]);
		await Promise.allSettled([...names].map((name) => this.close(name)));
	}

	/** Last resort when the process exits without an awaited shutdown: SIGKILL every server tree, synchronously. */
	killAllSync(): void {
		for (const kill of this.live) kill();
	}

	/** The synchronous killer of every server process started and not yet closed (connected or still connecting). */
	private readonly live = new Set<() => void>();

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
			const timeout = this.requestTimeout(connection);
			const explained = withStderr(explainRequestError(await loadSdk(), error, connection, timeout), connection);
			if (next === "drop-connection") this.markClosed(connection);
			const message = describeError(explained);
			const scrubbed = this.redactor.scrub(message);
			throw scrubbed === message ? explained : new Error(scrubbed, { cause: explained });
		} finally {
			connection.inFlight--;
			connection.lastUsedAt = this.now();
		}
	}

	/** Per-server `timeout` is in seconds (Pi's mcp.json); settings are in ms. */
	private requestTimeout(connection: ServerConnection): number {
		const seconds = connection.entry.timeout;
		return seconds !== undefined
			? seconds * 1000
			: (this.options.requestTimeoutMs ?? DEFAULT_SETTINGS.requestTimeoutMs);
	}

	private requestOptions(connection: ServerConnection, options: CallOptions) {
		return {
			signal: options.signal,
			timeout: options.timeoutMs ?? this.requestTimeout(connection),
			// A server that reports progress is working: each report restarts the timeout, up to a cap.
			resetTimeoutOnProgress: true,
			maxTotalTimeout: this.options.maxTotalTimeoutMs ?? DEFAULT_SETTINGS.maxTotalTimeoutMs,
			onprogress: options.onProgress
				? (p: { progress: number; total?: number; message?: string }) =>
						options.onProgress?.({ progress: p.progress, total: p.total, message: p.message })
				: undefined,
		};
	}

	private renew(entry: ServerEntry, refused: string | undefined): Promise<boolean> {
		return (
			this.options.renewCredentials?.(entry, refused, this.challenges.get(entry.name)).catch(() => false) ??
			Promise.resolve(false)
		);
	}

	private async open(
		entry: ServerEntry,
		signal: AbortSignal,
		hooks: { onOpened?: (connection: ServerConnection) => void; onLaunched?: () => void },
		renewed = false,
	): Promise<ServerConnection> {
		this.redactor.add(...entry.secrets);
		const { loadSdk, openConnection, listMetadata } = await loadConnections();
		const options: OpenOptions = {
			env: this.options.env ?? process.env,
			auth: this.auth,
			redactor: this.redactor,
			connectTimeoutMs: this.connectTimeoutMs(),
			maxMessageBytes: this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
			launch: this.options.launch,
			onInstall: (install) => {
				const pending = this.pending.get(entry.name);
				if (!pending || pending.controller.signal !== signal) return; // a connect no longer under way
				pending.install = install;
				this.emit(entry.name, "installing");
			},
			debugLog: this.options.debugLog,
			live: this.live,
			requests: this.options.requests,
			broker: await this.sharedServers(entry),
			onChallenge: (challenge) => this.challenges.set(entry.name, challenge),
			onCredential: (token) => (sent = token),
			onLaunched: hooks.onLaunched,
		};
		let sent: string | undefined;
		let opened: Awaited<ReturnType<typeof openConnection>>;
		try {
			// The SDK is asked for once a stdio server's process began (the session's first connect).
			opened = await openConnection(loadSdk, entry, options, signal);
		} catch (error) {
			const next = afterError({ error, during: "connect", retried: renewed });
			if (!signal.aborted && next === "sign-in" && (await this.renew(entry, sent)))
				return this.open(entry, signal, hooks, true);
			if (error instanceof AuthRequiredError) throw error;
			// Scrubbed: a server may echo a header or an env value back in its error or stderr.
			throw new Error(this.redactor.scrub(`Server "${entry.name}" failed to connect: ${describeError(error)}`), {
				cause: error,
			});
		}
		const connection: ServerConnection = {
			name: entry.name,
			entry,
			client: opened.client,
			transportKind: opened.kind,
			pid: opened.pid,
			shared: opened.shared,
			tools: [],
			resources: [],
			templates: [],
			prompts: [],
			skills: [],
			skillEntries: [],
			skillProblems: [],
			instructions: opened.client.getInstructions(),
			status: "connected",
			lastUsedAt: this.now(),
			inFlight: 0,
			stderrTail: opened.stderrTail,
			transportFailure: opened.transportFailure,
			exitStatus: opened.exitStatus,
			settle: opened.settle,
			close: opened.close,
			killSync: opened.killSync,
			oauthToken: opened.oauthToken,
		};
		hooks.onOpened?.(connection);
		// A call waiting for the server to be initialized goes out before its listing: a server answers
		// in the order it is asked, and the call would wait behind four lists (and our parsing of them).
		// Its path to the wire is promise callbacks only, which all run before the next turn.
		await new Promise((resolve) => setImmediate(resolve));
		try {
			Object.assign(
				connection,
				await untilAborted(
					listMetadata(opened.client, entry.name, opened.kind, this.connectTimeoutMs(), signal),
					signal,
				),
			);
		} catch (error) {
			connection.status = "closed"; // no call sent early goes to it any more
			await connection.close();
			throw new Error(
				this.redactor.scrub(`Server "${entry.name}" connected but listing its tools failed: ${describeError(error)}`),
				{ cause: error },
			);
		}
		this.challenges.delete(entry.name);
		opened.client.onclose = () => this.markClosed(connection);
		this.watchListChanges(connection);
		this.connections.set(entry.name, connection);
		this.emit(entry.name, "connected");
		return connection;
	}

	/**
	 * list_changed from the server: list again 100 ms after the first of a burst (one listing covers
	 * every change told before it starts), so catalog and cache follow. Not pushed back by each one:
	 * a server telling changes more often than that would never be listed again.
	 */
	private watchListChanges(connection: ServerConnection): void {
		let timer: ReturnType<typeof setTimeout> | undefined;
		const refresh = () => {
			if (timer) return;
			timer = setTimeout(() => {
				timer = undefined;
				// A failed refresh keeps the tools listed before; the next list_changed or health check tries again.
				if (this.get(connection.name) === connection) this.refresh(connection.name).catch(() => undefined);
			}, 100);
			timer.unref?.();
		};
		connection.client.setNotificationHandler("notifications/tools/list_changed", refresh);
		connection.client.setNotificationHandler("notifications/resources/list_changed", refresh);
		connection.client.setNotificationHandler("notifications/prompts/list_changed", refresh);
	}

	private markClosed(connection: ServerConnection): void {
		if (connection.status === "closed") return;
		connection.status = "closed";
		if (this.connections.get(connection.name) === connection) this.connections.delete(connection.name);
		// A crashed server's tree (helpers it started) goes too.
		// Closing what already broke: its processes are ended by the transport whatever close says.
		void connection.close().catch(() => undefined);
		this.emit(connection.name, "closed");
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

function formatMb(bytes: number): string {
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
