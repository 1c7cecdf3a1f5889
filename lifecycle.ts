// Decides when servers run: lazy ones connect on first use and close when idle, eager and
// keep-alive ones connect at startup (in the background, never delaying Pi), keep-alive ones are
// health-checked and reconnected. A failed connect fails fast for a while instead of respawning
// on every call. Keeps the catalog and the metadata cache in step with every connection.

import type { CallToolResult, ReadResourceResult } from "@modelcontextprotocol/client";
import { mapLimit, within } from "./bounds/waits.ts";
import { ToolCatalog, type ToolFilter } from "./catalog/tool-catalog.ts";
import { needsApproval, ToolPatterns } from "./catalog/tool-patterns.ts";
import { visibleToModel } from "./catalog/tool-ui.ts";
import type { ApprovalRefusal } from "./client/tool-approval.ts";
import { stableStringify } from "./config/identity.ts";
import { formatProblem } from "./config.ts";
import { authStatus, describeError, isAuthError, unknownServerMessage } from "./errors.ts";
import type { MetadataCache } from "./metadata-cache.ts";
import { AuthRequiredError, signsInWithBrowser } from "./oauth-handler.ts";
import type { CallOptions, ConnectProgress, Pool, PooledConnection, ServerConnection } from "./server-manager.ts";
import type { Challenge } from "./transport/open-connection.ts";
import { type ResourceChange, ResourceSubscriptions, type WatchFactory } from "./transport/resource-subscriptions.ts";
import { approvalMessage, type GateState } from "./trust/project-approval.ts";
import { type Redactor, scrubStrings } from "./trust/redaction.ts";
import {
	exposureOf,
	type McpConfig,
	type PromptMetadata,
	type ServerEntry,
	type ServerMetadata,
	type SkillSummary,
	type ToolMetadata,
} from "./types.ts";

/** A lazy server started to fill the cache stays up this long for the call that usually follows. */
const FILL_KEEP_MS = 60_000;
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

export interface Failure {
	readonly message: string;
	readonly at: number;
	/** The server wants credentials (401/403, or a missing/expired token). */
	readonly needsAuth?: boolean;
	/**
	 * A start ahead of a call failed (pi/prestart.ts) and no caller has been told yet: the call
	 * that follows gets this error as if its own connect had failed, not the back-off's note.
	 */
	readonly untold?: unknown;
}

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
	readonly askApproval?: (
		entry: ServerEntry,
		tool: ToolMetadata,
		args: Record<string, unknown>,
		signal?: AbortSignal,
	) => Promise<ApprovalRefusal | undefined>;
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

export class ServerLifecycle<C extends PooledConnection = ServerConnection> implements Servers {
	/** Replaced (never edited) when the session takes a new config: see `reconfigure`. */
	config: McpConfig;
	readonly manager: Pool<C>;
	readonly catalog: ToolCatalog;
	/** Settles when the startup connects (eager, keep-alive, cache fill) are done. */
	startup: Promise<void> = Promise.resolve();
	/** The resources this session read, followed at their servers (a started session's only: a CLI run reads once). */
	readonly subscriptions: ResourceSubscriptions<C>;
	private readonly cache?: MetadataCache;
	private readonly failures = new Map<string, Failure>();
	private readonly now: () => number;
	private readonly options: LifecycleOptions<C>;
	private timer?: ReturnType<typeof setInterval>;
	private ticking = false;
	private started = false;
	/** When a startup connect last finished (succeeded or failed): shutdown waits while they keep coming. */
	private lastFill = 0;
	private stopped = false;
	private readonly unsubscribe: () => void;

	constructor(options: LifecycleOptions<C>) {
		this.options = options;
		this.config = options.config;
		this.manager = options.manager;
		this.cache = options.cache;
		this.now = options.now ?? Date.now;
		this.catalog = new ToolCatalog(options.config.settings.toolPrefix, [...options.config.servers.keys()]);
		for (const entry of this.config.servers.values()) if (this.allowed(entry)) this.loadCached(entry);
		this.subscriptions = new ResourceSubscriptions({
			watch: options.watchResources ?? (async () => undefined),
			onChanged: (change) => this.options.onResourceChanged?.(change),
		});
		this.unsubscribe = this.manager.subscribe((server, event) => {
			// A connection made anew (a crash, a reconnect) follows again what the session read there.
			if (event === "closed") this.subscriptions.closed(server);
			const connected = event === "connected" ? this.manager.get(server) : undefined;
			if (connected && this.started && !this.stopped) this.subscriptions.connected(connected);
			// A new connection, or tools changed under a live one (list_changed, a session re-initialized).
			const connection = event === "changed" || event === "connected" ? this.manager.get(server) : undefined;
			if (connection) void this.record(connection);
			else this.options.onChange?.();
		});
	}

	/**
	 * Starts background work and returns at once: eager and keep-alive servers connect, and
	 * servers with no valid cache entry connect once to fill it (lazy ones close after 60 s unused).
	 */
	start(): void {
		this.started = true;
		this.startup = this.bringUp([...this.config.servers.values()]);
		const tickMs = this.options.tickMs ?? 30_000;
		this.timer = setInterval(() => void this.tick(), tickMs);
		this.timer.unref?.(); // never keeps Pi (or the CLI) alive
		this.catalogChanged();
	}

	/** Why the last write of the metadata cache failed, while it keeps failing (shown by /mcp). */
	cacheTrouble?: string;

	/** What was cut to keep the metadata cache within its size this session (shown by /mcp and the CLI). */
	get cacheNotice(): string | undefined {
		return this.cache?.notice;
	}

	/** Tells the session (its search index) that the catalog changed; a one-shot CLI run is not told. */
	private catalogChanged(): void {
		if (!this.started || this.stopped) return;
		this.options.onCatalogChanged?.();
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
			if (this.allowed(entry)) {
				this.loadCached(entry);
				admitted.push(entry);
			} else {
				this.catalog.delete(name);
				this.catalogChanged();
				await this.closeServer(name);
			}
		}
		this.options.onChange?.();
		if (!this.started) return; // a one-shot CLI run: nothing starts in the background
		const work = this.bringUp(admitted);
		this.startup = Promise.all([this.startup, work]).then(() => undefined);
		await work;
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
		this.config = next;
		this.catalog.reorder([...next.servers.keys()]);
		for (const name of gone) {
			this.catalog.delete(name);
			this.failures.delete(name);
		}
		for (const entry of added) if (this.allowed(entry)) this.loadCached(entry);
		this.catalogChanged();
		await Promise.all(gone.map((name) => this.closeServer(name)));
		this.options.onChange?.();
		if (!this.started) return;
		this.startup = Promise.all([this.startup, this.bringUp(added)]).then(() => undefined);
	}

	/** Eager and keep-alive servers connect; servers with no cached tools connect once to fill the cache (lazy ones close after a while unused). */
	private bringUp(entries: readonly ServerEntry[]): Promise<void> {
		const wanted = entries.filter((e) => this.allowed(e) && (e.lifecycle !== "lazy" || !this.catalog.has(e.name)));
		return mapLimit(wanted, this.options.parallelism ?? 10, async (entry) => {
			if (this.stopped) return;
			try {
				const connection = await this.ensureConnected(entry.name);
				// A lazy server filled the cache: kept a little while, since the session that needed its
				// tools usually calls one next (a first `pi -p` started it twice); closed if unused.
				if (entry.lifecycle === "lazy") this.closeIfUnused(connection, this.options.fillKeepMs ?? FILL_KEEP_MS);
			} catch {
				// recorded as a failure; shown by status
			} finally {
				this.lastFill = this.now();
			}
		}).then(() => undefined);
	}

	/** Closes the connection after `ms` unless it was used meanwhile (then the idle sweep decides). */
	private closeIfUnused(connection: C, ms: number): void {
		const usedAt = connection.lastUsedAt;
		const timer = setTimeout(() => {
			if (this.stopped || this.manager.get(connection.name) !== connection) return;
			if (connection.lastUsedAt === usedAt && connection.inFlight === 0) void this.closeServer(connection.name);
		}, ms);
		timer.unref?.(); // never keeps Pi alive; shutdown closes everything anyway
	}

	/** Closes a server on purpose (idle, denied, removed from the config): what the session followed there ends first. */
	private async closeServer(name: string): Promise<void> {
		await within(this.subscriptions.forget(name), UNSUBSCRIBE_WAIT_MS);
		await this.manager.close(name);
	}

	private allowed(entry: ServerEntry): boolean {
		return (this.options.gate?.(entry) ?? "allowed") === "allowed";
	}

	private loadCached(entry: ServerEntry): void {
		const cached = this.cache?.lookup(entry);
		if (cached) this.catalogSet(entry, cached);
	}

	/** When the first cached listing in use expires (a start-up snapshot of them holds until then). */
	cacheExpiry(): number {
		let first = Number.POSITIVE_INFINITY;
		for (const entry of this.config.servers.values()) {
			const at = this.allowed(entry) ? this.cache?.expiresAt(entry) : undefined;
			if (at !== undefined && at < first) first = at;
		}
		return first;
	}

	/** A server's instructions (from its last connection, or the cache), if it sent any. */
	instructions(name: string): string | undefined {
		return this.catalog.metadata(name)?.instructions;
	}

	/** A server's prompts (from its last connection, or the cache). */
	prompts(name: string): readonly PromptMetadata[] {
		return this.catalog.metadata(name)?.prompts ?? [];
	}

	/** The skills a server lists (from its last connection, or the cache). */
	skills(name: string): readonly SkillSummary[] {
		return this.catalog.metadata(name)?.skills ?? [];
	}

	/**
	 * Puts a server's metadata in the catalog, without the tools its exposure hides (Pi 1.5's "hidden"),
	 * its `includeTools`/`excludeTools` leave out (2.36's), or the server meant for its app only (MCP Apps).
	 */
	private catalogSet(entry: ServerEntry, metadata: ServerMetadata): void {
		const tools = metadata.tools.filter((t) => exposureOf(entry.exposure, t.name) !== "hidden" && visibleToModel(t));
		const { includeTools, excludeTools } = entry;
		const prefix = this.config.settings.toolPrefix;
		const filter: ToolFilter | undefined =
			includeTools?.length || excludeTools?.length
				? (all) => new ToolPatterns(entry.name, prefix, all).kept(all, includeTools, excludeTools)
				: undefined;
		const described = entry.description ? { description: entry.description } : {};
		this.catalog.set(entry.name, { ...metadata, tools, ...described }, entry.exposeResources, filter);
		this.catalogChanged();
	}

	/** Every server the config names: the usable ones, then those that need configuration. */
	serverNames(): string[] {
		return [
			...this.config.servers.keys(),
			...[...this.config.unconfigured.keys()].filter((n) => !this.config.servers.has(n)),
		];
	}

	state(name: string): ServerState {
		if (this.unconfigured(name)) return "needs-config";
		const entry = this.config.servers.get(name);
		const gate = entry ? (this.options.gate?.(entry) ?? "allowed") : "allowed";
		if (gate !== "allowed") return gate === "pending" ? "awaiting-approval" : "denied";
		if (this.manager.get(name)) return "connected";
		const connecting = this.manager.progress(name);
		if (connecting) return connecting.install ? "installing" : "starting";
		const failure = this.failures.get(name);
		if (failure) return failure.needsAuth ? "needs-auth" : "failed";
		return this.catalog.has(name) ? "idle" : "not-connected";
	}

	failure(name: string): Failure | undefined {
		return this.failures.get(name);
	}

	/** A connect under way: since when, and the package install it waits for (for progress the user and the model see). */
	starting(name: string): ConnectProgress | undefined {
		return this.manager.progress(name);
	}

	/**
	 * The servers among `names` whose tools an answer would wait for: not known yet, and able to run
	 * now (not blocked, not failing fast after a failure). A connect under way is one of them.
	 */
	unlisted(names: readonly string[] = this.serverNames()): string[] {
		const backoffMs = this.options.backoffMs ?? 60_000;
		return names.filter((name) => {
			if (this.catalog.has(name) || this.blocked(name) || !this.config.servers.has(name)) return false;
			const failure = this.failures.get(name);
			return !failure || this.now() - failure.at >= backoffMs || this.manager.connecting(name);
		});
	}

	/** Whether a failed connect of this server still fails fast (a start now would only say so). */
	backingOff(name: string): boolean {
		const failure = this.failures.get(name);
		return failure !== undefined && this.now() - failure.at < (this.options.backoffMs ?? 60_000);
	}

	/** A failed server, as every call to it answers: `Server "x" not available (failed 12s ago): <why>` (the README's words). */
	unavailable(name: string): string | undefined {
		const failure = this.failures.get(name);
		if (!failure) return undefined;
		const ago = Math.round((this.now() - failure.at) / 1000);
		return `Server "${name}" not available (failed ${ago}s ago): ${failure.message}`;
	}

	/** Why a server may not run now (needs configuration, awaiting approval, denied), or undefined when it may. */
	blocked(name: string): string | undefined {
		const unconfigured = this.unconfigured(name);
		if (unconfigured) {
			const { reason, source } = unconfigured;
			// A file that does not parse names itself in the reason already.
			const where = reason.includes(source.path) ? "" : ` (in ${source.path})`;
			return `Server "${name}" needs configuration: ${reason}${where}`;
		}
		const entry = this.config.servers.get(name);
		const gate = entry ? (this.options.gate?.(entry) ?? "allowed") : "allowed";
		return gate === "allowed" ? undefined : approvalMessage(name, gate);
	}

	/**
	 * Connects a configured server (or reuses its connection) and records its metadata; `signal`
	 * stops this caller's wait. `ahead`: a start before any call (pi/prestart.ts), whose failure is
	 * told to the call that follows.
	 */
	async ensureConnected(name: string, signal?: AbortSignal, ahead = false): Promise<C> {
		return this.connectFor(name, signal, ahead ? "ahead" : "listed");
	}

	/**
	 * As `ensureConnected` for a call to a tool the catalog knows: resolves once the server is
	 * initialized, so the call goes out while the server's listing goes on (recorded when it lands;
	 * a listing that fails then is the server's failure, as any connect's). Whether it was listed
	 * by then: `manager.get(name)`.
	 */
	async ensureCallable(name: string, signal?: AbortSignal): Promise<void> {
		await this.connectFor(name, signal, "opened");
	}

	listed(name: string): boolean {
		return this.manager.get(name) !== undefined;
	}

	async listingLanded(name: string): Promise<boolean> {
		const listing = this.manager.listing(name);
		return listing
			? listing.then(
					() => true,
					() => false,
				)
			: this.listed(name);
	}

	private async connectFor(
		name: string,
		signal: AbortSignal | undefined,
		wait: "listed" | "ahead" | "opened",
	): Promise<C> {
		const ahead = wait === "ahead";
		const blocked = this.blocked(name);
		if (blocked) throw new Error(blocked);
		const entry = this.entry(name);
		const existing = this.manager.get(name);
		if (existing) return existing;
		const failure = this.failures.get(name);
		if (failure && this.backingOff(name)) {
			if (failure.untold !== undefined && !ahead) {
				this.failures.set(name, { ...failure, untold: undefined });
				throw failure.untold;
			}
			throw new Error(this.unavailable(name));
		}
		try {
			if (wait === "opened") return await this.opened(entry, signal);
			const connection = await this.manager.connect(entry, signal);
			this.failures.delete(name); // its metadata was recorded by the "connected" event
			return connection;
		} catch (raw) {
			if (signal?.aborted) throw raw; // this caller gave up; the connect itself goes on
			throw this.failed(name, raw, ahead);
		}
	}

	/** The server initialized; its listing's outcome is recorded when it lands. */
	private async opened(entry: ServerEntry, signal: AbortSignal | undefined): Promise<C> {
		const connection = await this.manager.opened(entry, signal);
		const listing = this.manager.listing(entry.name);
		if (!listing) this.failures.delete(entry.name); // listed already
		listing?.then(
			() => this.failures.delete(entry.name),
			(raw) => {
				// Closed on purpose (shutdown, a reconfigure) is no failure of the server's.
				if (!this.stopped && this.config.servers.get(entry.name) === entry) this.failed(entry.name, raw);
			},
		);
		return connection;
	}

	/**
	 * Records why a server is not available now and returns the error to show. A refusal of
	 * credentials becomes "needs sign-in" (OAuth servers) or "needs authentication" (a static token),
	 * with the scope the server asked for when it wants more access.
	 */
	failed(name: string, raw: unknown, ahead = false): unknown {
		const entry = this.config.servers.get(name);
		const error =
			isAuthError(raw) && !(raw instanceof AuthRequiredError) && entry
				? new AuthRequiredError(
						name,
						authDetail(raw, this.manager.challenge(name)),
						signsInWithBrowser(entry) ? "sign-in" : "token",
					)
				: raw;
		this.failures.set(name, {
			message: describeError(error),
			at: this.now(),
			needsAuth: error instanceof AuthRequiredError,
			...(ahead ? { untold: error } : {}),
		});
		this.options.onChange?.();
		return error;
	}

	/**
	 * Closes and connects again, refreshing metadata and cache; clears a failure backoff. A connect
	 * already under way (the first run's cache fill, a call's) is joined, not cancelled: it is as
	 * fresh as a new one would be.
	 */
	async reconnect(name: string, signal?: AbortSignal): Promise<C> {
		const blocked = this.blocked(name);
		if (blocked) throw new Error(blocked);
		this.entry(name);
		this.failures.delete(name);
		if (!this.manager.connecting(name)) await this.manager.close(name);
		return this.ensureConnected(name, signal);
	}

	/**
	 * Makes sure every named server (default: all) has metadata, connecting those that lack it.
	 * With `waitMs`, waits at most that long (the connects go on in the background), and `signal`
	 * ends the wait; returns the servers still starting. Without either, waits for the connects
	 * themselves, which end: each within its install budget and connect deadline.
	 */
	async ensureMetadata(
		names: readonly string[] = this.serverNames(),
		waitMs?: number,
		signal?: AbortSignal,
	): Promise<string[]> {
		const missing = names.filter((n) => !this.catalog.has(n) && !this.blocked(n));
		const work = mapLimit(missing, this.options.parallelism ?? 10, (name) =>
			// A failed connect is recorded per server (state, backoff); the caller asks for what is missing.
			this.ensureConnected(name).catch(() => undefined),
		);
		await within(work, waitMs, signal);
		return missing.filter((n) => !this.catalog.has(n) && !this.failures.has(n));
	}

	/** Waits at most `ms` for the startup work (eager connects, cache fill) to finish. */
	async settled(ms: number): Promise<void> {
		await within(this.startup, ms);
	}

	// Requests to a server: the proxy, the prompt commands and the CLI make them here, never on the
	// manager itself, so every request passes the one owner of the servers' states. Every answer
	// and progress message leaves here with the known secrets masked, in every string: what the
	// model, content for the user only, Pi's `details` and session file, codemode scripts, the
	// output guard's files and the CLI get is cut from it. URLs in answers are data, left whole.

	/**
	 * Whether a tool (or resource tool) may run now: asks the user when its server's `approveTools`
	 * names it; a refusal otherwise. Every route to a tool asks here, through proxy/calls.ts.
	 */
	async approveCall(
		tool: ToolMetadata,
		args: Record<string, unknown>,
		signal?: AbortSignal,
	): Promise<ApprovalRefusal | undefined> {
		const entry = this.config.servers.get(tool.server);
		if (!entry || !needsApproval(entry, this.config.settings, tool, this.catalog.forServer(tool.server)))
			return undefined;
		const ask = this.options.askApproval;
		if (ask) return ask(entry, tool, args, signal);
		return {
			error: "approval_required",
			message: `${tool.name} on "${tool.server}" needs the user's approval ("approveTools"), and no one can be asked here.`,
		};
	}

	async callTool(...[server, tool, args, options = {}]: Parameters<Pool["callTool"]>) {
		this.options.onRequest?.(server);
		const heard = options.onProgress;
		const onProgress: typeof heard = heard && ((p) => heard(p.message ? { ...p, message: this.mask(p.message) } : p));
		return this.masked(await this.manager.callTool(server, tool, args, { ...options, onProgress }));
	}

	async readResource(...[server, uri, options]: Parameters<Pool["readResource"]>) {
		this.options.onRequest?.(server);
		const listed = this.listedUri(server, uri);
		const result = this.masked(await this.manager.readResource(server, listed, options));
		// Followed from now on, where the server offers it: a started session's reads only (a CLI run reads once).
		const connection = this.manager.get(server);
		if (connection && this.started && !this.stopped) this.subscriptions.read(connection, listed);
		return result;
	}

	/**
	 * The URI the server listed for one the catalog holds: the catalog keeps URIs with known secrets
	 * masked (it is on disk and shown to the model), and a read of such a URI must send the server
	 * its own, token and all. Any other URI is sent as given.
	 */
	private listedUri(server: string, uri: string): string {
		const listed = this.manager.get(server)?.resources ?? [];
		if (listed.some((r) => r.uri === uri)) return uri;
		return listed.find((r) => this.mask(r.uri) === uri)?.uri ?? uri;
	}

	async getPrompt(...args: Parameters<Pool["getPrompt"]>) {
		this.options.onRequest?.(args[0]);
		return this.masked(await this.manager.getPrompt(...args));
	}

	async complete(...args: Parameters<Pool["complete"]>) {
		return this.masked(await this.manager.complete(...args));
	}

	private readonly mask = (text: string) => this.redactor.scrubSecrets(text);

	private masked<T>(answer: T): T {
		return scrubStrings(answer, this.mask);
	}

	/** The scrubber every text a server sent passes before anyone sees it. */
	get redactor(): Redactor {
		return this.manager.redactor;
	}

	/** Whether the server's connection goes through the shared broker. */
	isShared(name: string): boolean {
		return this.manager.get(name)?.shared === true;
	}

	/** Puts a connection's current metadata into the catalog (at once) and the cache (written async). */
	async record(connection: PooledConnection): Promise<void> {
		// What a server says about itself reaches the model and the cache: no secret in it.
		const scrub = (text: string) => this.redactor.scrub(text);
		const scrubOptional = (text: string | undefined) => (text === undefined ? undefined : scrub(text));
		const described: ServerMetadata = {
			tools: connection.tools.map((t) => ({ ...t, description: scrub(t.description), title: scrubOptional(t.title) })),
			resources: connection.resources,
			templates: connection.templates,
			prompts: connection.prompts.map((p) => ({ ...p, description: scrubOptional(p.description) })),
			skills: connection.skills.map((s) => ({ ...s, description: scrub(s.description) })),
			instructions: scrubOptional(connection.instructions),
		};
		// A server may echo a secret anywhere (a schema's default, a resource URI, an argument's
		// text): every string is cleared of the secrets known, before the cache keeps it.
		const metadata = this.masked(described);
		this.catalogSet(connection.entry, metadata);
		this.options.onChange?.();
		try {
			await this.cache?.store(connection.entry, metadata);
			this.cacheTrouble = undefined;
		} catch (error) {
			// Not fatal (the catalog has the tools), but the next start would start the server again: /mcp says why.
			this.cacheTrouble = describeError(error);
		}
	}

	/** Minutes of idleness after which a server is closed; undefined = never. */
	idleMinutes(entry: ServerEntry): number | undefined {
		if (entry.lifecycle === "keep-alive") return undefined;
		const minutes = entry.idleTimeout ?? (entry.lifecycle === "lazy" ? this.config.settings.idleTimeout : undefined);
		return minutes && minutes > 0 ? minutes : undefined;
	}

	/** One sweep: close idle servers, health-check keep-alive ones. Runs every tick. */
	async tick(): Promise<void> {
		if (this.ticking || this.stopped) return;
		this.ticking = true;
		try {
			const work: Promise<unknown>[] = [];
			for (const entry of this.config.servers.values()) {
				const connection = this.manager.get(entry.name);
				const idle = this.idleMinutes(entry);
				if (
					connection &&
					idle !== undefined &&
					connection.inFlight === 0 &&
					this.now() - connection.lastUsedAt >= idle * 60_000
				) {
					work.push(this.closeServer(entry.name));
				} else if (entry.lifecycle === "keep-alive") {
					work.push(this.checkHealth(entry));
				}
			}
			await Promise.allSettled(work);
		} finally {
			this.ticking = false;
		}
	}

	private async checkHealth(entry: ServerEntry): Promise<void> {
		const connection = this.manager.get(entry.name);
		if (connection) {
			try {
				await connection.client.ping({ timeout: 10_000 });
				// list_changed can be lost over HTTP: a remote server's tool list is re-read on each check.
				if (connection.transportKind !== "stdio") await this.manager.refresh(entry.name);
				return;
			} catch {
				await this.manager.close(entry.name);
			}
		}
		this.failures.delete(entry.name); // keep-alive retries on every check
		// Recorded as the server's failure (shown by /mcp); the next tick tries again.
		await this.ensureConnected(entry.name).catch(() => undefined);
	}

	/**
	 * Stops timers, lets the connects that fill the cache go on (those still queued too), bounded: a
	 * short `pi -p` run still leaves a cache behind, and a server that does not answer in time is
	 * cancelled, not waited for. Then closes every connection and flushes the cache.
	 */
	async shutdown(): Promise<void> {
		if (this.timer) clearInterval(this.timer);
		this.ticking = true; // no idle sweep or health check from here on
		await this.fillsFinished();
		this.stopped = true; // what is still queued does not start
		// Unsubscribed while the servers still run (an HTTP server keeps a session's subscriptions), briefly.
		await within(this.subscriptions.forgetAll(), UNSUBSCRIBE_WAIT_MS);
		await this.manager.closeAll();
		this.unsubscribe();
		// At exit there is no one left to tell: a failed last write costs the next start a listing, nothing else.
		await this.cache?.flush().catch(() => undefined);
	}

	/** Waits for the startup connects while they make progress: until done, stalled, or at the cap. */
	private async fillsFinished(): Promise<void> {
		const stallMs = this.options.fillStallMs ?? 3000;
		const cap = this.now() + (this.options.fillCapMs ?? 15_000);
		let done = false;
		void this.startup.finally(() => (done = true));
		this.lastFill = Math.max(this.lastFill, this.now());
		while (!done && this.now() < cap) {
			const wait = Math.min(this.lastFill + stallMs, cap) - this.now();
			if (wait <= 0) return; // no connect finished for stallMs: the rest are not answering
			await within(this.startup, wait);
		}
	}

	private entry(name: string): ServerEntry {
		const entry = this.config.servers.get(name);
		if (!entry) throw new Error(this.unknownServer(name));
		return entry;
	}

	private unconfigured(name: string) {
		return this.config.servers.has(name) ? undefined : this.config.unconfigured.get(name);
	}

	/** Whether the config names this server at all (usable or not). */
	knows(name: string): boolean {
		return this.config.servers.has(name) || this.config.unconfigured.has(name);
	}

	/** "Unknown server" with the configured names and, when the config is broken, what is wrong with it. */
	unknownServer(name: string): string {
		const off = this.config.disabled?.get(name);
		if (off)
			return `Server "${name}" is turned off ("enabled": false in ${off}). Ask the user if it should be turned on; servers that can be used: ${this.serverNames().join(", ") || "none"}.`;
		const errors = this.config.problems.filter((p) => p.severity === "error");
		const hint =
			errors.length > 0
				? ` The MCP config has problems, which may be why: ${errors.slice(0, 3).map(formatProblem).join(" | ")}`
				: "";
		return unknownServerMessage(name, this.serverNames()) + hint;
	}
}

/** "the server answered HTTP 401": the status only, never the response body (it may echo a token). */
function authDetail(error: unknown, challenge: Challenge | undefined): string {
	if (challenge?.status === 403 && challenge.error === "insufficient_scope") {
		return `it asks for more access${challenge.scope ? `: scope "${challenge.scope}"` : ""}`;
	}
	const code = authStatus(error);
	return code ? `the server answered HTTP ${code}` : "the server refused the credentials";
}
