// Decides when servers run: lazy ones connect on first use and close when idle, eager and
// keep-alive ones connect at startup (in the background, never delaying Pi), keep-alive ones are
// health-checked and reconnected. A failed connect fails fast for a while instead of respawning
// on every call. Keeps the catalog and the metadata cache in step with every connection. Each of
// these is decided by one part in server-lifecycle/; ServerLifecycle composes them behind `Servers`.

import type { CallToolResult, ReadResourceResult } from "@modelcontextprotocol/client";
import { within } from "./bounds/waits.ts";
import type { ToolCatalog } from "./catalog/tool-catalog.ts";
import type { ApprovalRefusal } from "./client/tool-approval.ts";
import { stableStringify } from "./config/identity.ts";
import type { MetadataCache } from "./metadata-cache.ts";
import { BackgroundStarts } from "./server-lifecycle/background-starts.ts";
import { Connector } from "./server-lifecycle/connector.ts";
import { FailureLog } from "./server-lifecycle/failures.ts";
import { KnownMetadata } from "./server-lifecycle/known-metadata.ts";
import { type AskApproval, MaskedRequests } from "./server-lifecycle/requests.ts";
import { ServerRoster } from "./server-lifecycle/roster.ts";
import { Sweep } from "./server-lifecycle/sweep.ts";
import type {
	CallOptions,
	ConnectProgress,
	Pool,
	PooledConnection,
	ServerConnection,
	ServerEvent,
} from "./server-manager.ts";
import { type ResourceChange, ResourceSubscriptions, type WatchFactory } from "./transport/resource-subscriptions.ts";
import type { GateState } from "./trust/project-approval.ts";
import type { Redactor } from "./trust/redaction.ts";
import type { McpConfig, ServerEntry, ToolMetadata } from "./types.ts";

export type { Failure } from "./server-lifecycle/failures.ts";

/** How long closing a server (or every server, at shutdown) waits for it to take its subscriptions back. */
const UNSUBSCRIBE_WAIT_MS = 2000;

export type ServerState =
	| "connected"
	| "starting"
	| "installing"
	| "idle"
	| "failed"
	| "needs-auth"
	| "needs-config"
	| "not-connected"
	| "awaiting-approval"
	| "denied";

export interface LifecycleOptions<C extends PooledConnection = ServerConnection> {
	readonly config: McpConfig;
	/** The pool of connections (McpServerManager; a typed fake in unit tests). */
	readonly manager: Pool<C>;
	readonly cache?: MetadataCache;
	readonly now?: () => number;
	/** How many servers connect at once when several are needed (default 10). */
	readonly parallelism?: number;
	/** Period of the idle sweep and keep-alive health check (default 30 s). */
	readonly tickMs?: number;
	/** How long a failed connect fails fast before it is tried again (default 60 s). */
	readonly backoffMs?: number;
	/** Told after any change of a server's state or tools (for the status line). */
	readonly onChange?: () => void;
	/** A request (a tool call, a resource read, a prompt) goes to this server: what the session used. */
	readonly onRequest?: (server: string) => void;
	/** The catalog changed (a session's search index follows it); not called before `start`. */
	readonly onCatalogChanged?: () => void;
	/**
	 * How shutdown waits for the connects that fill the cache: as long as one finished within the
	 * last `fillStallMs` (default 3 s), and never longer than `fillCapMs` (default 15 s).
	 */
	readonly fillStallMs?: number;
	/** How long a lazy server started only to fill the cache stays up for a call (default 60 s). */
	readonly fillKeepMs?: number;
	readonly fillCapMs?: number;
	/**
	 * Whether a server may run: project servers wait for the user's yes. A server that is not
	 * allowed is never started, connected to or resolved, and its cached tools are not offered.
	 */
	readonly gate?: (entry: ServerEntry) => GateState;
	/** Told once when a resource the session read changed at its server (until it is read again). */
	readonly onResourceChanged?: (change: ResourceChange) => void;
	/**
	 * How a connection's resources are subscribed (the runtime gives the SDK Client's requests,
	 * `watchWithSdk`; tests a fake); without one, nothing the session reads is followed.
	 */
	readonly watchResources?: WatchFactory<C>;
	/** Asks the user about a tool 2.36's `approveTools` names (client/tool-approval.ts); without it, such tools are refused. */
	readonly askApproval?: AskApproval;
}

/**
 * What the call path and the answers (proxy/) need of the servers: which exist and may run, what they
 * offer, connecting one through the gate and its backoff, and the requests, masked. ServerLifecycle is it.
 */
export interface Servers {
	readonly config: McpConfig;
	readonly catalog: ToolCatalog;
	readonly redactor: Redactor;
	serverNames(): string[];
	knows(name: string): boolean;
	unknownServer(name: string): string;
	state(name: string): ServerState;
	blocked(name: string): string | undefined;
	unavailable(name: string): string | undefined;
	starting(name: string): ConnectProgress | undefined;
	unlisted(names?: readonly string[]): string[];
	ensureMetadata(names?: readonly string[], waitMs?: number, signal?: AbortSignal): Promise<string[]>;
	ensureConnected(name: string, signal?: AbortSignal): Promise<PooledConnection>;
	/** As `ensureConnected` for a call to a tool the catalog knows: resolves once the server is initialized. */
	ensureCallable(name: string, signal?: AbortSignal): Promise<void>;
	/** Whether the server's connection was listed (a call may go out before: `ensureCallable`). */
	listed(name: string): boolean;
	/** Once the listing under way (if any) lands: whether the server is listed. Never connects. */
	listingLanded(name: string): Promise<boolean>;
	failed(name: string, raw: unknown): unknown;
	approveCall(
		tool: ToolMetadata,
		args: Record<string, unknown>,
		signal?: AbortSignal,
	): Promise<ApprovalRefusal | undefined>;
	callTool(server: string, tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
	readResource(server: string, uri: string, options?: CallOptions): Promise<ReadResourceResult>;
}

/**
 * One session's servers, composed of the parts in server-lifecycle/, each deciding one thing: which
 * servers the config names and may run (`ServerRoster`), why one failed and how long it fails fast
 * (`FailureLog`), what is known of each (`KnownMetadata`: the catalog and the cache), what a request
 * goes through to reach one (`Connector`), the requests, masked (`MaskedRequests`), the starts made in
 * the background (`BackgroundStarts`) and the periodic idle close and health check (`Sweep`). Here:
 * their wiring, a server's state from all of them, and the changes that touch several (a new config,
 * the gate, start and shutdown).
 */
export class ServerLifecycle<C extends PooledConnection = ServerConnection> implements Servers {
	readonly manager: Pool<C>;
	/** The resources this session read, followed at their servers (a started session's only: a CLI run reads once). */
	readonly subscriptions: ResourceSubscriptions<C>;
	private readonly options: LifecycleOptions<C>;
	private readonly roster: ServerRoster;
	private readonly failures: FailureLog;
	private readonly known: KnownMetadata;
	private readonly connector: Connector<C>;
	private readonly requests: MaskedRequests<C>;
	private readonly starts: BackgroundStarts<C>;
	private readonly sweep: Sweep<C>;
	private started = false;
	private stopped = false;
	private readonly unsubscribe: () => void;

	constructor(options: LifecycleOptions<C>) {
		this.options = options;
		this.manager = options.manager;
		const now = options.now ?? Date.now;
		const { onChange } = options;
		const stopped = () => this.stopped;
		this.roster = new ServerRoster(options.config, options.gate);
		this.failures = new FailureLog({ now, backoffMs: options.backoffMs, onChange });
		this.known = new KnownMetadata({
			toolPrefix: options.config.settings.toolPrefix,
			order: [...options.config.servers.keys()],
			cache: options.cache,
			redactor: () => this.redactor,
			onChange,
			onCatalogChanged: () => this.catalogChanged(),
		});
		const known = (name: string) => this.catalog.has(name);
		const pool = this.manager;
		const { roster, failures } = this;
		this.connector = new Connector({ roster, pool, failures, known, stopped, parallelism: options.parallelism });
		const close = (name: string) => this.closeServer(name);
		this.subscriptions = new ResourceSubscriptions({
			watch: options.watchResources ?? (async () => undefined),
			onChanged: (change) => this.options.onResourceChanged?.(change),
		});
		this.requests = new MaskedRequests({
			pool,
			catalog: this.catalog,
			config: () => this.config,
			askApproval: options.askApproval,
			onRequest: options.onRequest,
			// Followed from now on, where the server offers it: a started session's reads only (a CLI run reads once).
			onRead: (connection, uri) => this.live() && this.subscriptions.read(connection, uri),
		});
		this.starts = new BackgroundStarts({
			pool,
			now,
			known,
			allowed: (entry) => roster.allowed(entry),
			connect: (name) => this.ensureConnected(name),
			close,
			stopped,
			parallelism: options.parallelism,
			fillKeepMs: options.fillKeepMs,
			fillStallMs: options.fillStallMs,
			fillCapMs: options.fillCapMs,
		});
		const retryNow = (name: string) => {
			failures.clear(name);
			return this.ensureConnected(name);
		};
		this.sweep = new Sweep({ pool, config: () => this.config, now, close, retryNow });
		for (const entry of this.config.servers.values()) if (roster.allowed(entry)) this.known.loadCached(entry);
		this.unsubscribe = this.manager.subscribe((server, event) => this.heard(server, event));
	}

	/** Replaced (never edited) when the session takes a new config: see `reconfigure`. */
	get config(): McpConfig {
		return this.roster.config;
	}

	get catalog(): ToolCatalog {
		return this.known.catalog;
	}

	/** Settles when the startup connects (eager, keep-alive, cache fill) are done. */
	get startup(): Promise<void> {
		return this.starts.startup;
	}

	/** Why the last write of the metadata cache failed, while it keeps failing (shown by /mcp). */
	get cacheTrouble(): string | undefined {
		return this.known.cacheTrouble;
	}

	/** What was cut to keep the metadata cache within its size this session (shown by /mcp and the CLI). */
	get cacheNotice(): string | undefined {
		return this.known.cacheNotice;
	}

	/** The scrubber every text a server sent passes before anyone sees it. */
	get redactor(): Redactor {
		return this.manager.redactor;
	}

	/**
	 * Starts background work and returns at once: eager and keep-alive servers connect, and
	 * servers with no valid cache entry connect once to fill it (lazy ones close after 60 s unused).
	 */
	start(): void {
		this.started = true;
		void this.starts.add([...this.config.servers.values()]);
		this.sweep.start(this.options.tickMs ?? 30_000);
		this.catalogChanged();
	}

	/**
	 * Call after the user approved or denied servers: approved ones get their cached tools and
	 * start as they would have at startup; denied ones are closed and their tools withdrawn.
	 */
	async gateChanged(names: readonly string[]): Promise<void> {
		const admitted: ServerEntry[] = [];
		for (const name of names) {
			const entry = this.config.servers.get(name);
			if (!entry) continue;
			if (this.roster.allowed(entry)) {
				this.known.loadCached(entry);
				admitted.push(entry);
			} else {
				this.known.forget(name);
				await this.closeServer(name);
			}
		}
		this.options.onChange?.();
		if (!this.started) return; // a one-shot CLI run: nothing starts in the background
		await this.starts.add(admitted);
	}

	/**
	 * Takes a new config while the session runs (a server turned on or off, another extension's
	 * servers changed), leaving alone every server whose entry is the same: those removed or changed
	 * close and their tools go; new and changed ones get their cached tools and start as at startup
	 * (in the background). The caller checks that the settings are unchanged.
	 */
	async reconfigure(next: McpConfig): Promise<void> {
		const before = this.config;
		const same = (a: ServerEntry | undefined, b: ServerEntry | undefined) =>
			a !== undefined && b !== undefined && stableStringify(a) === stableStringify(b);
		const gone = [...before.servers.keys()].filter((n) => !same(before.servers.get(n), next.servers.get(n)));
		const added = [...next.servers.values()].filter((e) => !same(before.servers.get(e.name), e));
		this.roster.config = next;
		this.catalog.reorder([...next.servers.keys()]);
		for (const name of gone) {
			this.catalog.delete(name);
			this.failures.clear(name);
		}
		for (const entry of added) if (this.roster.allowed(entry)) this.known.loadCached(entry);
		this.catalogChanged();
		await Promise.all(gone.map((name) => this.closeServer(name)));
		this.options.onChange?.();
		if (!this.started) return;
		void this.starts.add(added);
	}

	/**
	 * Stops timers, lets the connects that fill the cache go on (those still queued too), bounded: a
	 * short `pi -p` run still leaves a cache behind, and a server that does not answer in time is
	 * cancelled, not waited for. Then closes every connection and flushes the cache.
	 */
	async shutdown(): Promise<void> {
		this.sweep.stop();
		await this.starts.landed();
		this.stopped = true; // what is still queued does not start
		// Unsubscribed while the servers still run (an HTTP server keeps a session's subscriptions), briefly.
		await within(this.subscriptions.forgetAll(), UNSUBSCRIBE_WAIT_MS);
		await this.manager.closeAll();
		this.unsubscribe();
		// At exit there is no one left to tell: a failed last write costs the next start a listing, nothing else.
		await this.options.cache?.flush().catch(() => undefined);
	}

	state(name: string): ServerState {
		if (this.roster.unconfigured(name)) return "needs-config";
		const gate = this.roster.gateOf(name);
		if (gate !== "allowed") return gate === "pending" ? "awaiting-approval" : "denied";
		if (this.manager.get(name)) return "connected";
		const connecting = this.manager.progress(name);
		if (connecting) return connecting.install ? "installing" : "starting";
		const failure = this.failures.get(name);
		if (failure) return failure.needsAuth ? "needs-auth" : "failed";
		return this.catalog.has(name) ? "idle" : "not-connected";
	}

	/** A connect under way: since when, and the package install it waits for (for progress the user and the model see). */
	starting(name: string): ConnectProgress | undefined {
		return this.manager.progress(name);
	}

	/** Whether the server's connection goes through the shared broker. */
	isShared(name: string): boolean {
		return this.manager.get(name)?.shared === true;
	}

	// What each part answers, as the rest of the tree asks it (documented on the part).
	readonly serverNames = () => this.roster.serverNames();
	readonly knows = (name: string) => this.roster.knows(name);
	readonly unknownServer = (name: string) => this.roster.unknownServer(name);
	readonly blocked = (name: string) => this.roster.blocked(name);
	readonly failure = (name: string) => this.failures.get(name);
	readonly backingOff = (name: string) => this.failures.backingOff(name);
	readonly unavailable = (name: string) => this.failures.unavailable(name);
	readonly cacheExpiry = () =>
		this.known.cacheExpiry([...this.config.servers.values()].filter((e) => this.roster.allowed(e)));
	readonly instructions = (name: string) => this.known.instructions(name);
	readonly prompts = (name: string) => this.known.prompts(name);
	readonly skills = (name: string) => this.known.skills(name);
	readonly ensureConnected = (name: string, signal?: AbortSignal, ahead = false) =>
		this.connector.ensureConnected(name, signal, ahead);
	readonly ensureCallable = (name: string, signal?: AbortSignal) => this.connector.ensureCallable(name, signal);
	readonly listed = (name: string) => this.connector.listed(name);
	readonly listingLanded = (name: string) => this.connector.listingLanded(name);
	readonly reconnect = (name: string, signal?: AbortSignal) => this.connector.reconnect(name, signal);
	readonly failed = (name: string, raw: unknown, ahead = false) => this.connector.failed(name, raw, ahead);
	readonly unlisted = (names?: readonly string[]) => this.connector.unlisted(names);
	readonly ensureMetadata = (names?: readonly string[], waitMs?: number, signal?: AbortSignal) =>
		this.connector.ensureMetadata(names, waitMs, signal);
	readonly approveCall: Servers["approveCall"] = (...args) => this.requests.approveCall(...args);
	readonly callTool: Servers["callTool"] = (...args) => this.requests.callTool(...args);
	readonly readResource: Servers["readResource"] = (...args) => this.requests.readResource(...args);
	readonly getPrompt = (...args: Parameters<Pool["getPrompt"]>) => this.requests.getPrompt(...args);
	readonly complete = (...args: Parameters<Pool["complete"]>) => this.requests.complete(...args);
	/** One sweep now (the timer runs one every `tickMs`): idle servers close, keep-alive ones are checked. */
	readonly tick = () => this.sweep.tick();
	/** Waits at most `ms` for the startup work (eager connects, cache fill) to finish. */
	readonly settled = (ms: number) => this.starts.settled(ms);

	/** A started session not yet shutting down: what it reads is followed, its index told of catalog changes. */
	private live(): boolean {
		return this.started && !this.stopped;
	}

	/** Tells the session (its search index) that the catalog changed; a one-shot CLI run is not told. */
	private catalogChanged(): void {
		if (this.live()) this.options.onCatalogChanged?.();
	}

	/** What the pool tells of a server: its catalog entry and the resources followed there kept in step. */
	private heard(server: string, event: ServerEvent): void {
		// A connection made anew (a crash, a reconnect) follows again what the session read there.
		if (event === "closed") this.subscriptions.closed(server);
		const connection = event === "changed" || event === "connected" ? this.manager.get(server) : undefined;
		if (connection && event === "connected" && this.live()) this.subscriptions.connected(connection);
		// A new connection, or tools changed under a live one (list_changed, a session re-initialized).
		if (connection) void this.known.record(connection);
		else this.options.onChange?.();
	}

	/** Closes a server on purpose (idle, denied, removed from the config): what the session followed there ends first. */
	private async closeServer(name: string): Promise<void> {
		await within(this.subscriptions.forget(name), UNSUBSCRIBE_WAIT_MS);
		await this.manager.close(name);
	}
}
