// Everything one Pi session (or one CLI run) of the adapter holds, built from cwd, agentDir and
// the environment: config, project approvals, redaction, metadata cache, npx resolver, server
// manager, lifecycle, and what the client offers servers (roots, elicitation, sampling, logs).

import { existsSync } from "node:fs";
import { join } from "node:path";
import { atExit } from "./bounds/exit-cleanup.ts";
import { once } from "./bounds/waits.ts";
import { APPS_EXTENSION } from "./catalog/tool-ui.ts";
import { ClientFeatures } from "./client/client-features.ts";
import { loadToolApproval } from "./client/tool-approval.lazy.ts";
import type { ToolApprovals } from "./client/tool-approval.ts";
import { stableStringify } from "./config/identity.ts";
import { formatProblem, loadConfig, type RegisteredServer, restrictTo } from "./config.ts";
import { ServerLifecycle } from "./lifecycle.ts";
import { MetadataCache } from "./metadata-cache.ts";
import type { NpxResolver } from "./npx-resolver.ts";
import { loadSignIn } from "./oauth/sign-in.lazy.ts";
import type { SignInOptions } from "./oauth/sign-in.ts";
import { authHelp, credentialRenewal, signsInWithBrowser, storedSignInNote } from "./oauth-handler.ts";
import { DEFAULT_OUTPUT_LIMITS, OutputGuard } from "./proxy/output-guard.ts";
import { about, type ServerBlurb } from "./proxy/surface.ts";
import { BackgroundIndex } from "./search/background-index.ts";
import { McpServerManager } from "./server-manager.ts";
import { resolveAgentDir } from "./storage/agent-dir.ts";
import { type ResourceChange, watchWithSdk } from "./transport/resource-subscriptions.ts";
import { type Decision, describeLaunch, ProjectApprovals } from "./trust/project-approval.ts";
import { Redactor } from "./trust/redaction.ts";
import { loadSavedToolApprovals } from "./trust/saved-tool-approvals.lazy.ts";
import { guardSdkConsole } from "./trust/sdk-console.ts";
import type { HttpServerEntry, McpConfig, ServerEntry } from "./types.ts";

/** `npx pkg` resolution: at the first stdio start. */
const loadNpxResolver = once(() => import("./npx-resolver.ts"));

export interface RuntimeOptions {
	readonly cwd: string;
	readonly env?: Readonly<Record<string, string | undefined>>;
	/** The environment the config is read with (default `env`): a start-up snapshot records what it reads. */
	readonly configEnv?: Readonly<Record<string, string | undefined>>;
	/** Only this config file instead of the Pi files (the CLI's --config). */
	readonly configPath?: string;
	/**
	 * Pi 1.5's project trust for this session: false means the project's .pi/mcp.json is not read
	 * at all; true approves its servers. Undefined on hosts without project trust (pi 0.73, CLI).
	 */
	readonly piTrusted?: boolean;
	/** Servers other extensions registered (Pi 1.5). */
	readonly registered?: readonly RegisteredServer[];
	/** Only these servers exist for this session (`--mcp-servers`, `PI_MCP_SERVERS`: a subagent's limit). */
	readonly onlyServers?: readonly string[];
	/** Told when a request (a call, a read, a prompt) goes to a server, unless `settings.warmUp` or `prestart` is off: what the session used. */
	readonly onServerUsed?: (server: string) => void;
}

export class McpRuntime {
	readonly cwd: string;
	readonly agentDir: string;
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly configEnv: Readonly<Record<string, string | undefined>>;
	readonly lifecycle: ServerLifecycle;
	/** As built; a session that takes this runtime gives it its trust (`servesLike`). */
	private options: RuntimeOptions;
	/** Servers other extensions registered, as of the last config read. */
	private registered?: readonly RegisteredServer[];
	/** The one owner of connections; the rest of the adapter reaches servers through the lifecycle. */
	private readonly manager: McpServerManager;
	/** The search index following the catalog; only a started session has one (a CLI run indexes on its search). */
	private searchIndex?: BackgroundIndex;
	readonly approvals: ProjectApprovals;
	/** Every text shown to the user or the model passes it. */
	readonly redactor: Redactor;
	/** Saves oversized outputs to files; its folder goes at shutdown. */
	readonly output: OutputGuard;
	/** Roots, elicitation, sampling and server logs; its host (Pi's UI and model) is set per session. */
	readonly client: ClientFeatures;
	/** Loaded and read on the first stdio start: a session with a warm cache may never start one. */
	private resolver?: Promise<NpxResolver>;
	/** The session's answers to `approveTools` questions (made at the first call that asks). */
	private toolApprovals?: Promise<ToolApprovals>;
	private readonly listeners = new Set<() => void>();
	private readonly resourceListeners = new Set<(change: ResourceChange) => void>();
	private stopExitCleanup?: () => void;

	constructor(options: RuntimeOptions) {
		// Before any SDK loads: what it prints itself (server names, headers) reaches no terminal raw.
		guardSdkConsole();
		this.options = options;
		this.registered = options.registered;
		this.cwd = options.cwd;
		this.env = options.env ?? process.env;
		this.configEnv = options.configEnv ?? this.env;
		this.agentDir = resolveAgentDir(this.env);
		const config = this.loadConfig(options.registered);
		this.redactor = new Redactor(this.env);
		for (const entry of config.servers.values()) this.redactor.add(...entry.secrets);
		this.approvals = new ProjectApprovals({
			agentDir: this.agentDir,
			cwd: options.cwd,
			trustAll: config.settings.trustProjectServers,
			// Read when asked: the session that takes this runtime may give it its trust (servesLike).
			piTrusted: () => this.options.piTrusted,
		});
		const { settings } = config;
		this.client = new ClientFeatures({
			agentDir: this.agentDir,
			cwd: options.cwd,
			extraRoots: settings.roots,
			redactor: this.redactor,
		});
		this.output = new OutputGuard(
			settings.outputGuard === false ? false : { ...DEFAULT_OUTPUT_LIMITS, ...settings.outputGuard },
		);
		this.manager = new McpServerManager({
			requestTimeoutMs: settings.requestTimeoutMs,
			maxTotalTimeoutMs: settings.maxTotalTimeoutMs,
			connectTimeoutMs: settings.connectTimeoutMs,
			maxMessageBytes: settings.maxMessageMB * 1024 * 1024,
			maxArgumentBytes: settings.maxArgumentMB * 1024 * 1024,
			env: this.env,
			auth: { agentDir: this.agentDir, env: this.env },
			renewCredentials: credentialRenewal({ agentDir: this.agentDir, env: this.env }),
			launch: async (entry, signal, onInstall) => {
				this.resolver ??= loadNpxResolver().then(
					({ NpxResolver }) =>
						new NpxResolver({
							agentDir: this.agentDir,
							offline: Boolean(this.env.PI_OFFLINE),
							installTimeoutMs: settings.installTimeoutMs,
						}),
				);
				return (await this.resolver).launcher()(entry, signal, onInstall);
			},
			redactor: this.redactor,
			// Servers may give a client that shows apps (settings.apps) their tools with views.
			requests: { ...this.client.requests(), ...(settings.apps ? { extensions: APPS_EXTENSION } : {}) },
			broker: {
				agentDir: this.agentDir,
				shares: (entry) => entry.share ?? settings.shareServers,
				lingerMs: (entry) => (entry.idleTimeout ?? settings.idleTimeout) * 60_000,
			},
		});
		this.lifecycle = new ServerLifecycle({
			config,
			manager: this.manager,
			watchResources: watchWithSdk,
			cache: new MetadataCache(this.agentDir),
			gate: (entry) => this.approvals.state(entry),
			// Loaded at the first call `approveTools` names, never with the extension.
			askApproval: async (entry, tool, args, signal) => {
				this.toolApprovals ??= Promise.all([loadToolApproval(), loadSavedToolApprovals()]).then(
					([{ ToolApprovals }, { SavedToolApprovals }]) =>
						new ToolApprovals({
							dialogs: () => this.client.host.dialogs,
							scrub: (t) => this.redactor.scrub(t),
							saved: new SavedToolApprovals(this.agentDir),
						}),
				);
				return (await this.toolApprovals).ask(entry, tool, args, signal);
			},
			onChange: () => {
				for (const listener of this.listeners) listener();
			},
			onCatalogChanged: () => this.searchIndex?.changed(),
			onResourceChanged: (change) => {
				for (const listener of this.resourceListeners) listener(change);
			},
			// Learned only where the user lets it start servers early (pi/warm-up.ts).
			onRequest: (server) => {
				const { settings } = this.config;
				if (settings.prestart && settings.warmUp) this.options.onServerUsed?.(server);
			},
		});
	}

	/**
	 * Whether a runtime built from `options` would read the same config as this one, so this one
	 * can serve instead (the runtime built while the extension loaded, taken by the session start).
	 */
	servesLike(options: RuntimeOptions): boolean {
		const mine = this.options;
		const same = (a: unknown, b: unknown) => stableStringify(a ?? null) === stableStringify(b ?? null);
		// Pi 1.5's trust decides only whether <cwd>/.pi/mcp.json is read (and approved).
		const trustMatters = existsSync(join(options.cwd, ".pi", "mcp.json"));
		const serves =
			options.cwd === mine.cwd &&
			options.configPath === mine.configPath &&
			options.env === mine.env &&
			options.configEnv === mine.configEnv &&
			same(options.onlyServers, mine.onlyServers) &&
			same(
				options.registered?.length ? options.registered : undefined,
				this.registered?.length ? this.registered : undefined,
			) &&
			(!trustMatters || options.piTrusted === mine.piTrusted);
		// Taken: a .pi/mcp.json written later (the /mcp manager's "in this project") is read with the session's trust.
		if (serves) this.options = { ...mine, piTrusted: options.piTrusted };
		return serves;
	}

	/** The session's config: the files as read at start, or at the last `reload`. */
	get config(): McpConfig {
		return this.lifecycle.config;
	}

	private loadConfig(registered: readonly RegisteredServer[] | undefined): McpConfig {
		const { options } = this;
		const loaded = loadConfig({
			cwd: options.cwd,
			agentDir: this.agentDir,
			env: this.configEnv,
			configPath: options.configPath,
			readPiProjectFile: options.piTrusted !== false,
			registered,
		});
		return options.onlyServers ? restrictTo(loaded, options.onlyServers) : loaded;
	}

	/**
	 * Reads the config again and applies it to the running session when only servers changed (a
	 * server turned on or off, another extension's servers): the others keep running. False when
	 * the settings changed, which needs a new runtime.
	 */
	async reload(registered: readonly RegisteredServer[] | undefined = this.registered): Promise<boolean> {
		const next = this.loadConfig(registered);
		const before = this.config;
		if (
			stableStringify(next.settings) !== stableStringify(before.settings) ||
			next.autoEnableCodemode !== before.autoEnableCodemode
		)
			return false;
		this.registered = registered;
		for (const entry of next.servers.values()) this.redactor.add(...entry.secrets);
		await this.lifecycle.reconfigure(next);
		return true;
	}

	/** Told after any change of a server's state or tools. */
	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Told once when a resource the session read changed at its server (until it is read again). */
	onResourceChanged(listener: (change: ResourceChange) => void): () => void {
		this.resourceListeners.add(listener);
		return () => this.resourceListeners.delete(listener);
	}

	/** A new working folder: the roots follow, and connected servers are told (roots/list_changed). */
	async setWorkingFolder(cwd: string): Promise<void> {
		if (this.client.setWorkingFolder(cwd)) await this.manager.notifyRootsChanged();
	}

	/** Project servers waiting for the user's decision. */
	/** A server as the user approves it: every line of its launch, and a stored sign-in it would be sent. */
	/** Whether the project's .pi/mcp.json is read (not on Pi 1.5 in an untrusted project): where "in this project" is saved. */
	get readsProjectFile(): boolean {
		return this.options.piTrusted !== false;
	}

	/** The one config file the CLI's --config named, read instead of the Pi files. */
	get configPath(): string | undefined {
		return this.options.configPath;
	}

	describeLaunch(entry: ServerEntry): string {
		return describeLaunch(entry, storedSignInNote(this.agentDir));
	}

	pendingApproval(): ServerEntry[] {
		return [...this.config.servers.values()].filter((e) => this.approvals.state(e) === "pending");
	}

	/**
	 * Whether starting this session does nothing but show what the cache holds: no project server
	 * awaits approval, and no server starts (none eager or keep-alive, every allowed one cached).
	 * Only such a start can be taken from a snapshot (pi/start-snapshot.ts).
	 */
	startsQuietly(): boolean {
		const { lifecycle } = this;
		if (this.options.configPath !== undefined || this.pendingApproval().length > 0) return false;
		return [...this.config.servers.values()].every(
			(entry) =>
				lifecycle.blocked(entry.name) !== undefined ||
				(entry.lifecycle === "lazy" && lifecycle.catalog.has(entry.name)),
		);
	}

	/**
	 * Records the user's decision for the launches they were shown (entries as they were when shown),
	 * and applies it now. A server whose launch has changed since is left as it is (the decision is
	 * kept for the launch shown, which no longer runs) and returned in `changed`, to be told.
	 */
	async decideShown(
		shown: readonly ServerEntry[],
		decision: Decision,
	): Promise<{ decided: ServerEntry[]; changed: ServerEntry[] }> {
		const entries = shown.filter((e) => this.approvals.needsApproval(e));
		if (entries.length === 0) return { decided: [], changed: [] };
		await this.approvals.decide(entries, decision);
		const changed = entries.filter((e) => this.config.servers.get(e.name)?.launch.hash !== e.launch.hash);
		const decided = entries.filter((e) => !changed.includes(e));
		this.lifecycle.gateChanged(decided.map((e) => e.name)).catch(() => undefined);
		return { decided, changed };
	}

	/** Approves or denies project servers (all that need a decision when `names` is empty) and applies it now. */
	async decide(names: readonly string[], decision: Decision): Promise<ServerEntry[]> {
		const entries = (
			names.length > 0 ? names.map((n) => this.config.servers.get(n)) : [...this.config.servers.values()]
		).filter((e): e is ServerEntry => e !== undefined && this.approvals.needsApproval(e));
		if (entries.length === 0) return [];
		await this.approvals.decide(entries, decision);
		// Started in the background, like at startup: the command answers at once.
		// Each server's connect failure is recorded on it and shown by /mcp and the status line.
		this.lifecycle.gateChanged(entries.map((e) => e.name)).catch(() => undefined);
		return entries;
	}

	/**
	 * The servers the `mcp` description names, with a few words each (config `description`, else the
	 * first line of the instructions cached from a run before). Not the project's servers waiting for
	 * approval: their names are the repository's words. Fixed for the session: the prompt cache holds.
	 */
	serverBlurbs(): ServerBlurb[] {
		return this.lifecycle
			.serverNames()
			.filter((name) => !["awaiting-approval", "denied"].includes(this.lifecycle.state(name)))
			.map((name) => ({
				name,
				about: about(this.config.servers.get(name)?.description ?? this.lifecycle.instructions(name), name),
			}));
	}

	/**
	 * Signs in to an OAuth server (the whole flow: `io` shows the URL and may take a pasted
	 * redirect), then connects it with the new tokens. Throws why it could not.
	 */
	async signIn(name: string, io: Pick<SignInOptions, "show" | "askPaste" | "openBrowser" | "signal">): Promise<void> {
		const entry = this.oauthEntry(name);
		const { signIn } = await loadSignIn();
		const refusedScope = this.lifecycle.manager.challenge(name)?.scope;
		await signIn({ agentDir: this.agentDir, entry, refusedScope, redactor: this.redactor, ...io });
		// The sign-in is stored; a connect that fails now is the server's state (shown by /mcp), not the sign-in's.
		await this.lifecycle.reconnect(name).catch(() => undefined);
	}

	/** Signs out of an OAuth server: its stored client, tokens and discovery go; its connection closes. */
	async signOut(name: string): Promise<boolean> {
		const entry = this.oauthEntry(name);
		const { signOut } = await loadSignIn();
		await this.manager.close(name);
		return signOut(this.agentDir, entry);
	}

	private oauthEntry(name: string): HttpServerEntry {
		const blocked = this.lifecycle.blocked(name);
		if (blocked) throw new Error(blocked);
		const entry = this.config.servers.get(name);
		if (!entry) throw new Error(this.lifecycle.unknownServer(name));
		if (!signsInWithBrowser(entry)) {
			throw new Error(
				`"${name}" does not sign in with a browser: ${authHelp(entry, name, { agentDir: this.agentDir, env: this.env })}`,
			);
		}
		return entry;
	}

	/** Config problems, one line each, scrubbed. */
	problemLines(): string[] {
		return this.config.problems.map((p) => this.redactor.scrub(formatProblem(p)));
	}

	/** Background startup work (eager servers, cache fill) and the exit-time safety net. */
	start(): void {
		// If the process ends without awaiting shutdown (Ctrl-C of `pi -p` among others), no server
		// may outlive it and no result file may stay behind.
		this.stopExitCleanup = atExit(() => {
			this.killAllSync();
			this.output.dispose();
		});
		this.searchIndex = new BackgroundIndex(this.lifecycle.catalog);
		this.lifecycle.start();
	}

	/** While the model thinks: loads what the first connect needs, if a server may still need one. */
	async warmUp(): Promise<void> {
		const { lifecycle } = this;
		const connectable = lifecycle.serverNames().some((n) => !lifecycle.blocked(n) && !this.manager.get(n));
		// A failed load here is not lost: the connect that needs it loads again and reports the failure.
		if (connectable) await this.manager.warmUp().catch(() => undefined);
	}

	/**
	 * A call to this server is on its way (the model's tool call names it as it streams): starts it
	 * now, without waiting (see `startAhead`).
	 */
	prestart(server: string): void {
		this.startAhead(server, "call");
	}

	/**
	 * Starts a server ahead of any call, without waiting: `call` when a streamed call names it
	 * (`settings.prestart`), `learned` when the project's recent sessions called it (also
	 * `settings.warmUp`: `prestart: false` promises that nothing starts before a call runs).
	 * Nothing happens to a server that runs or starts, may not run (awaiting approval, disabled,
	 * outside the session's servers, needs configuration) or is backing off, or when a setting is
	 * off; true when a start began. Its failure is recorded for the call.
	 */
	startAhead(server: string, why: "call" | "learned"): boolean {
		const { lifecycle } = this;
		const { settings } = this.config;
		if (!settings.prestart || (why === "learned" && !settings.warmUp)) return false;
		if (!lifecycle.knows(server) || lifecycle.blocked(server) || lifecycle.backingOff(server)) return false;
		if (this.manager.get(server) || this.manager.connecting(server)) return false;
		// The call that follows joins this connect, and reports its failure (recorded by the lifecycle).
		lifecycle.ensureConnected(server, undefined, true).catch(() => undefined);
		return true;
	}

	/** At an exit that cannot wait: every server process this session started, killed at once. */
	killAllSync(): void {
		this.manager.killAllSync();
	}

	async shutdown(): Promise<void> {
		this.stopExitCleanup?.();
		this.listeners.clear();
		this.resourceListeners.clear();
		void this.resolver?.then((resolver) => resolver.dispose());
		this.searchIndex?.stop();
		await this.lifecycle.shutdown();
		this.output.dispose();
	}
}
