// Everything one Pi session (or one CLI run) of the adapter holds, built from cwd, agentDir and
// the environment: config, project approvals, redaction, metadata cache, npx resolver, server
// manager, lifecycle, and what the client offers servers (roots, elicitation, sampling, logs).
// Its parts (runtime/): what the session reads its config with, its trust included
// (session-config.ts), the user's decisions on project servers (project-decisions.ts), and the
// services built from its settings (session-services.ts).

import { atExit } from "./bounds/exit-cleanup.ts";
import { ClientFeatures } from "./client/client-features.ts";
import { formatProblem, type RegisteredServer } from "./config.ts";
import { ServerLifecycle } from "./lifecycle.ts";
import { MetadataCache } from "./metadata-cache.ts";
import { loadSignIn } from "./oauth/sign-in.lazy.ts";
import type { SignInOptions } from "./oauth/sign-in.ts";
import { authHelp, signsInWithBrowser, storedSignInNote } from "./oauth-handler.ts";
import { DEFAULT_OUTPUT_LIMITS, OutputGuard } from "./proxy/output-guard.ts";
import { about, type ServerBlurb } from "./proxy/surface.ts";
import { type Deciding, decideNamed, decideShown } from "./runtime/project-decisions.ts";
import { type RuntimeOptions, SessionConfig } from "./runtime/session-config.ts";
import { NpxLaunches, poolOptions, toolApprovalAsker } from "./runtime/session-services.ts";
import { BackgroundIndex } from "./search/background-index.ts";
import { McpServerManager } from "./server-manager.ts";
import { type ResourceChange, watchWithSdk } from "./transport/resource-subscriptions.ts";
import { type Decision, describeLaunch, ProjectApprovals } from "./trust/project-approval.ts";
import { Redactor } from "./trust/redaction.ts";
import { guardSdkConsole } from "./trust/sdk-console.ts";
import type { HttpServerEntry, McpConfig, ServerEntry } from "./types.ts";

export type { RuntimeOptions } from "./runtime/session-config.ts";

export class McpRuntime {
	readonly lifecycle: ServerLifecycle;
	/** What the session reads its config with, its trust included (runtime/session-config.ts). */
	private readonly reading: SessionConfig;
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
	/** How stdio servers start (npx resolved at the first start). */
	private readonly launches: NpxLaunches;
	private readonly listeners = new Set<() => void>();
	private readonly resourceListeners = new Set<(change: ResourceChange) => void>();
	private stopExitCleanup?: () => void;

	constructor(options: RuntimeOptions) {
		// Before any SDK loads: what it prints itself (server names, headers) reaches no terminal raw.
		guardSdkConsole();
		this.reading = new SessionConfig(options);
		const { cwd, agentDir, env } = this.reading;
		const config = this.reading.read();
		this.redactor = new Redactor(env);
		for (const entry of config.servers.values()) this.redactor.add(...entry.secrets);
		this.approvals = new ProjectApprovals({
			agentDir,
			cwd,
			trustAll: config.settings.trustProjectServers,
			// Read when asked: the session that takes this runtime may give it its trust (servesLike).
			piTrusted: () => this.reading.piTrusted,
		});
		const { settings } = config;
		this.client = new ClientFeatures({ agentDir, cwd, extraRoots: settings.roots, redactor: this.redactor });
		this.output = new OutputGuard(
			settings.outputGuard === false ? false : { ...DEFAULT_OUTPUT_LIMITS, ...settings.outputGuard },
		);
		this.launches = new NpxLaunches(agentDir, Boolean(env.PI_OFFLINE), settings.installTimeoutMs);
		const place = { agentDir, env, redactor: this.redactor };
		this.manager = new McpServerManager(poolOptions(settings, place, this.client.requests(), this.launches.launch));
		this.lifecycle = new ServerLifecycle({
			config,
			manager: this.manager,
			watchResources: watchWithSdk,
			cache: new MetadataCache(agentDir),
			gate: (entry) => this.approvals.state(entry),
			// Loaded at the first call `approveTools` names, never with the extension.
			askApproval: toolApprovalAsker(place, () => this.client.host.dialogs),
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
				if (settings.prestart && settings.warmUp) this.reading.serverUsed(server);
			},
		});
	}

	/** The session's folder, agent dir and environment: as its config reads them (runtime/session-config.ts). */
	get cwd(): string {
		return this.reading.cwd;
	}

	get agentDir(): string {
		return this.reading.agentDir;
	}

	get env(): Readonly<Record<string, string | undefined>> {
		return this.reading.env;
	}

	get configEnv(): Readonly<Record<string, string | undefined>> {
		return this.reading.configEnv;
	}

	/**
	 * Whether a runtime built from `options` would read the same config as this one, so this one
	 * can serve instead (the runtime built while the extension loaded, taken by the session start).
	 */
	servesLike(options: RuntimeOptions): boolean {
		return this.reading.servesLike(options);
	}

	/** The session's config: the files as read at start, or at the last `reload`. */
	get config(): McpConfig {
		return this.lifecycle.config;
	}

	/**
	 * Reads the config again and applies it to the running session when only servers changed (a
	 * server turned on or off, another extension's servers): the others keep running. False when
	 * the settings changed, which needs a new runtime.
	 */
	async reload(registered?: readonly RegisteredServer[]): Promise<boolean> {
		const next = this.reading.reread(this.config, registered);
		if (!next) return false;
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

	/** Whether the project's .pi/mcp.json is read (not on Pi 1.5 in an untrusted project): where "in this project" is saved. */
	get readsProjectFile(): boolean {
		return this.reading.readsProjectFile;
	}

	/** The one config file the CLI's --config named, read instead of the Pi files. */
	get configPath(): string | undefined {
		return this.reading.configPath;
	}

	/** A server as the user approves it: every line of its launch, and a stored sign-in it would be sent. */
	describeLaunch(entry: ServerEntry): string {
		return describeLaunch(entry, storedSignInNote(this.agentDir));
	}

	/** Project servers waiting for the user's decision. */
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
		if (this.configPath !== undefined || this.pendingApproval().length > 0) return false;
		return [...this.config.servers.values()].every(
			(entry) =>
				lifecycle.blocked(entry.name) !== undefined ||
				(entry.lifecycle === "lazy" && lifecycle.catalog.has(entry.name)),
		);
	}

	/** Records the user's decision for the launches they were shown, and applies it (runtime/project-decisions.ts). */
	decideShown(
		shown: readonly ServerEntry[],
		decision: Decision,
	): Promise<{ decided: ServerEntry[]; changed: ServerEntry[] }> {
		return decideShown(this.deciding, shown, decision);
	}

	/** Approves or denies project servers (all that need a decision when `names` is empty) and applies it now. */
	decide(names: readonly string[], decision: Decision): Promise<ServerEntry[]> {
		return decideNamed(this.deciding, names, decision);
	}

	private get deciding(): Deciding {
		const { approvals, lifecycle } = this;
		return { approvals, config: () => this.config, gateChanged: (names) => lifecycle.gateChanged(names) };
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
		this.launches.dispose();
		this.searchIndex?.stop();
		await this.lifecycle.shutdown();
		this.output.dispose();
	}
}
