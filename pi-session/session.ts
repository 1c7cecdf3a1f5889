// A Pi session's lifetime. Its runtime (config, approvals, cache, servers) is built at the session
// start, when Pi 1.5 knows whether the user trusts the project and which servers other extensions
// registered, and again when those registrations change. A start whose inputs match the last quiet
// start's snapshot (start-up/start-snapshot.ts) registers the same from it and builds the runtime only at
// the first use (a call, a command) or while the model thinks. Without a valid snapshot, on Pi 1.5,
// a runtime is built while the extension loads (its registrations are cheap then), and the start
// takes it if it serves. One AbortSignal per session ends what the session left running; the last
// runtime has ended (its servers closed, its cache flushed) before the next one starts.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { once } from "../bounds/waits.ts";
import type { ClientHost } from "../client/client-features.ts";
import { loadSampling } from "../client/sampling.lazy.ts";
import { safeDialogs } from "../client/user-dialogs.ts";
import type { RegisteredServer } from "../config.ts";
import type { McpRuntime, RuntimeOptions } from "../mcp-runtime.ts";
import { openSystemBrowser } from "../oauth/open-browser.ts";
import { serversSection } from "../pi-tools/servers-section.ts";
import { statusLine } from "../pi-ui/status-line.ts";
import { loadCallPath } from "../proxy/proxy-tool.lazy.ts";
import type { ServerSkills } from "../skills/skill-names.ts";
import { askAboutProjectServers, startNotes } from "../start-up/start-notes.ts";
import {
	matchesSession,
	readSnapshot,
	recordingEnv,
	type SessionInputs,
	type StartState,
	snapshotKey,
	writeSnapshot,
} from "../start-up/start-snapshot.ts";
import { type FileStamp, recordReads } from "../storage/file-guard.ts";
import { oneLine } from "../trust/safe-text.ts";
import type { Registrations } from "./registrations.ts";
import { skillListings } from "./skill-events.ts";

/** Something that lives as long as the session's runtime: hooked to each runtime that becomes the session's, ended with the session. */
export interface SessionService {
	/** A runtime became the session's (at its start, or its first use after a start from the snapshot). */
	attach?(runtime: McpRuntime, ctx: ExtensionContext): void;
	/** The session ended; its runtime has shut down. */
	end?(): Promise<void> | void;
}

export interface SessionOptions {
	readonly registrations: Registrations;
	readonly agentDir: string;
	readonly env: NodeJS.ProcessEnv;
	readonly piLine: "pi-1.5" | "pi-0.73";
	/** The servers this session is limited to (`--mcp-servers`), read again at each start. */
	readonly onlyServers: () => string[] | undefined;
	/** The servers other extensions registered (Pi 1.5's `getMcpServers`). */
	readonly registered: () => RegisteredServer[];
	/**
	 * Makes a runtime, synchronously: the files it reads then are a snapshot's inputs (default: an
	 * McpRuntime, whose code loads at the first build: a start from the snapshot never needs it).
	 */
	readonly createRuntime?: (options: RuntimeOptions) => McpRuntime;
	/** Hears each server a request of this session's runtimes went to (the learned warm-up, start-up/warm-up.ts). */
	readonly onServerUsed?: (server: string) => void;
	/** Per-session services, in the order they are told. */
	readonly services?: readonly SessionService[];
}

/** Pi 1.5's project trust; undefined on Pi lines without it (pi 0.73). */
function projectTrust(ctx: ExtensionContext): boolean | undefined {
	const trusted = (ctx as { isProjectTrusted?: () => boolean }).isProjectTrusted;
	return typeof trusted === "function" ? trusted.call(ctx) : undefined;
}

/** What servers may use of the session: its dialogs (when there is a UI), its current model, the browser. */
function clientHost(ctx: ExtensionContext): ClientHost {
	return {
		dialogs: ctx.hasUI ? safeDialogs(ctx.ui) : undefined,
		// Loaded at the first sampling request, not with the extension.
		sampler: async () => (await loadSampling()).piSampler(ctx),
		openBrowser: openSystemBrowser,
	};
}

/** What a start printed or notified: shown where the user looks (a notification with a UI, stderr without one). */
export function showNotes(notes: StartState["notes"], ctx: ExtensionContext): void {
	if (!notes) return;
	if (ctx.hasUI) ctx.ui.notify(notes.text, notes.level);
	else console.error(notes.text);
}

/** The runtime (config, cache, catalog, lifecycle, manager): a start from the snapshot builds none until first used. */
const loadRuntime = once(() => import("../mcp-runtime.ts"));

/** The runtime's own class, loaded at the first build. */
async function defaultRuntime(): Promise<(options: RuntimeOptions) => McpRuntime> {
	const { McpRuntime } = await loadRuntime();
	return (options) => new McpRuntime(options);
}

/** An AbortController already aborted: no session yet. */
function ended(): AbortController {
	const controller = new AbortController();
	controller.abort();
	return controller;
}

export class McpSession {
	/** The session's runtime; undefined before the start, and after a start from a snapshot until first used. */
	private runtime?: McpRuntime;
	private building?: Promise<McpRuntime>;
	/** Built while the extension loaded (Pi 1.5, no snapshot), never started: the first start takes it if it serves. */
	private builtAtLoad?: McpRuntime;
	/** The session's context, for a runtime built after the start (a call, a command, warming up). */
	private ctx?: ExtensionContext;
	/** Aborted when the session ends: what it started in the background stops, or drops its result. */
	private lifetime = ended();
	private snapshot?: { state: StartState; session: SessionInputs };
	private only: string[] | undefined;
	private key: string;
	private firstStart = true;
	private startedFromSnapshot = false;
	/** The config reads the environment through this, so a snapshot knows which variables it depends on. */
	private readonly configEnv: ReturnType<typeof recordingEnv>;
	/** The files each runtime read as it was built: a snapshot's inputs. */
	private readonly inputsOf = new WeakMap<McpRuntime, Map<string, FileStamp>>();
	private readonly registrations: Registrations;
	private readonly services: readonly SessionService[];
	/** Writes under way that the session's end waits for (keepUntilEnd). */
	private readonly writesUnderWay = new Set<Promise<unknown>>();

	constructor(private readonly options: SessionOptions) {
		this.registrations = options.registrations;
		this.services = options.services ?? [];
		this.configEnv = recordingEnv(options.env);
		// Read again at session start, when Pi has parsed the flag (at load the command line tells).
		this.only = options.onlyServers();
		this.key = snapshotKey({ cwd: process.cwd(), onlyServers: this.only, piLine: options.piLine });
	}

	/**
	 * At load: what the last start registered, if every input is as it was, registered again from it
	 * (the runtime waits for the first use). Otherwise, on Pi 1.5, the cached tools of the servers
	 * that may run without a question are registered now, when a registration is cheap (after load
	 * each one makes Pi rebuild its tool registry); the session start registers only what differs.
	 */
	async load(): Promise<void> {
		this.snapshot = readSnapshot(this.options.agentDir, this.key, this.configEnv.env);
		if (this.snapshot) {
			try {
				this.registrations.restore(this.snapshot.state);
			} catch {
				// A snapshot this code cannot read (edited by hand): the long way, whose start registers
				// again whatever differs from what got registered here, and keeps a new snapshot.
				this.snapshot = undefined;
			}
		}
		if (!this.snapshot && this.registrations.piTools) {
			try {
				this.builtAtLoad = await this.newRuntime({ cwd: process.cwd(), piTrusted: false, onlyServers: this.only });
				this.registrations.sync(this.builtAtLoad, "load");
			} catch {
				// A head start only: the session start builds the runtime again and reports what is wrong.
				this.builtAtLoad = undefined;
			}
		}
		this.registrations.ready();
	}

	/** The runtime, if built (never builds one). */
	current(): McpRuntime | undefined {
		return this.runtime;
	}

	/** The session's runtime, built now if the start came from a snapshot (undefined between sessions). */
	ensure(ctx?: ExtensionContext): Promise<McpRuntime | undefined> {
		if (this.runtime) return Promise.resolve(this.runtime);
		if (this.building) return this.building;
		const at = ctx ?? this.ctx;
		return at ? this.build(at, this.options.registered()) : Promise.resolve(undefined);
	}

	/** The same, or an error saying MCP does not run (between sessions). */
	async require(ctx?: ExtensionContext): Promise<McpRuntime> {
		const active = await this.ensure(ctx);
		if (!active) throw new Error("MCP is not running in this session.");
		return active;
	}

	/** The servers and the turned-off servers, for completions: from the runtime, or the snapshot before it is built. */
	names(): { servers: readonly string[]; disabled: readonly string[] } {
		const active = this.runtime;
		return active
			? { servers: active.lifecycle.serverNames(), disabled: [...(active.config.disabled?.keys() ?? [])] }
			: { servers: this.snapshot?.state.servers ?? [], disabled: this.snapshot?.state.disabled ?? [] };
	}

	/** Whether this session started from the start-up snapshot, for /mcp status. */
	get fromSnapshot(): boolean {
		return this.startedFromSnapshot;
	}

	/** The servers codemode scripts reach, as Pi 1.5's MCP lists them in the system prompt (none without codemode). */
	serversSection(): string | undefined {
		if (!this.registrations.viaCodemode) return undefined;
		return this.runtime ? serversSection(this.runtime) : this.snapshot?.state.section;
	}

	/** The skills the allowed servers listed (Pi's skill discovery): from the runtime, or the snapshot before it is built. */
	skills(): readonly ServerSkills[] {
		return this.runtime ? skillListings(this.runtime.lifecycle) : (this.snapshot?.state.skills ?? []);
	}

	/**
	 * While the model thinks: the runtime is built (a start from a snapshot), then the MCP client and
	 * the call path load, each before the first call waits for it.
	 */
	warmUp(): void {
		if (this.lifetime.signal.aborted) return;
		// A failed build or load here is not lost: the call that needs it builds or loads it again and reports why.
		this.ensure()
			.then((active) => active?.warmUp())
			.then(() => loadCallPath())
			.catch(() => undefined);
	}

	/** `session_start`: from the snapshot when it holds, else a runtime built, its notes shown, a snapshot kept. */
	async start(ctx: ExtensionContext): Promise<void> {
		this.lifetime = new AbortController();
		this.ctx = ctx;
		const limit = this.options.onlyServers();
		const sameLimit = JSON.stringify(limit) === JSON.stringify(this.only);
		this.only = limit;
		this.key = snapshotKey({ cwd: ctx.cwd, onlyServers: this.only, piLine: this.options.piLine });
		// Only the first session after load: a later one (/new, /resume) follows what the last one left.
		const fresh = this.firstStart;
		this.firstStart = false;
		const { snapshot } = this;
		if (snapshot && fresh && sameLimit && !this.runtime && ctx.cwd === process.cwd()) {
			if (matchesSession(snapshot.session, this.sessionInputs(ctx))) return this.resume(snapshot.state, ctx);
		}
		this.startedFromSnapshot = false;
		const signal = this.lifetime.signal;
		const active = await this.build(ctx, this.options.registered());
		const notes = await startNotes(active, this.registrations.directSummary, ctx.hasUI);
		showNotes(notes, ctx);
		const pending = active.pendingApproval();
		if (pending.length === 0) return this.keepSnapshot(active, notes, this.sessionInputs(ctx));
		if (!ctx.hasUI || signal.aborted) return;
		// Asked in the background: Pi starts at once, and the servers wait for the answer.
		await askAboutProjectServers(ctx, active, pending, {
			current: () => (signal.aborted ? undefined : this.runtime),
			decided: (decided) => this.registrations.sync(decided, "decided"),
			keepUntilEnd: (work) => this.keepUntilEnd(work),
		});
	}

	/**
	 * The config changed (/mcp enable|disable, another extension's servers): applied to the running
	 * session when only servers changed, so the others keep running; else a new runtime.
	 */
	async reload(
		ctx: ExtensionContext,
		registered: readonly RegisteredServer[] = this.options.registered(),
	): Promise<void> {
		const active = this.runtime ?? (await this.building);
		if (!active || !(await active.reload(registered))) {
			await this.build(ctx, registered);
			return;
		}
		// Prompts, Pi tools and resource tools followed already: the reload told the runtime's listeners.
		if (active === this.runtime) this.registrations.sync(active, "config");
	}

	/** Pi 1.5's `mcp_servers_change`: a running session takes the servers other extensions registered now. */
	async serversChanged(ctx: ExtensionContext, servers: readonly RegisteredServer[]): Promise<void> {
		if (this.runtime || this.ctx) await this.reload(ctx, servers);
	}

	/** A write the session's end waits for (an answer saved, a notice remembered): none outlives it. */
	keepUntilEnd(work: Promise<unknown>): void {
		const tracked: Promise<unknown> = work.finally(() => this.writesUnderWay.delete(tracked));
		this.writesUnderWay.add(tracked);
	}

	/** `session_shutdown`: the runtime (or the one being built) ends, then the services. */
	async shutdown(): Promise<void> {
		this.lifetime.abort();
		this.ctx = undefined;
		const ending = this.runtime ?? (await this.building?.catch(() => undefined));
		this.runtime = undefined;
		await ending?.shutdown();
		await Promise.all(this.writesUnderWay);
		for (const service of this.services) await service.end?.();
	}

	/** Builds the session's runtime; whoever needs it meanwhile waits for this one. */
	private build(ctx: ExtensionContext, registered: readonly RegisteredServer[]): Promise<McpRuntime> {
		const next: Promise<McpRuntime> = this.activate(ctx, registered).finally(() => {
			if (this.building === next) this.building = undefined;
		});
		this.building = next;
		return next;
	}

	/** Builds and starts a session's runtime, once the previous one has ended, and hooks it to Pi. */
	private async activate(ctx: ExtensionContext, registered: readonly RegisteredServer[]): Promise<McpRuntime> {
		const previous = this.runtime;
		this.runtime = undefined;
		// The last runtime ends first: two runtimes would start the same servers and write the same cache.
		await previous?.shutdown();
		const options = { cwd: ctx.cwd, piTrusted: projectTrust(ctx), registered, onlyServers: this.only };
		const atLoad = this.builtAtLoad;
		this.builtAtLoad = undefined; // never started: nothing to end
		const active = atLoad?.servesLike({ ...options, env: this.options.env, configEnv: this.configEnv.env })
			? atLoad
			: await this.newRuntime(options);
		const host = clientHost(ctx);
		this.runtime = active;
		active.client.host = host;
		active.start();
		this.registrations.sync(active, "start");
		// A server connected or changed what it lists: its tools, resources and prompts follow.
		active.onChange(() => {
			if (active === this.runtime) this.registrations.sync(active, "listed");
		});
		for (const service of this.services) service.attach?.(active, ctx);
		return active;
	}

	private async newRuntime(options: RuntimeOptions): Promise<McpRuntime> {
		const create = this.options.createRuntime ?? (await defaultRuntime());
		const environment = {
			env: this.options.env,
			configEnv: this.configEnv.env,
			onServerUsed: this.options.onServerUsed,
		};
		const { value, reads } = recordReads(() => create({ ...options, ...environment }));
		this.inputsOf.set(value, reads);
		return value;
	}

	/** From a snapshot: what the start showed, and the discovery tools it activated; no runtime yet. */
	private resume(state: StartState, ctx: ExtensionContext): void {
		this.startedFromSnapshot = true;
		this.registrations.resume(state.discovery);
		ctx.ui.setStatus("mcp", state.status);
		showNotes(state.notes, ctx);
	}

	/** After a start that did nothing but show the cache: what it registered and showed, for the next one. */
	private keepSnapshot(active: McpRuntime, notes: StartState["notes"], session: SessionInputs): void {
		const files = this.inputsOf.get(active);
		if (!files || !active.startsQuietly()) return;
		const line = statusLine(active.lifecycle);
		const section = this.registrations.viaCodemode ? serversSection(active) : undefined;
		const state: StartState = {
			...this.registrations.state(),
			skills: skillListings(active.lifecycle),
			...(line === undefined ? {} : { status: oneLine(line) }),
			...(notes ? { notes } : {}),
			...(section ? { section } : {}),
			servers: active.lifecycle.serverNames(),
			disabled: [...(active.config.disabled?.keys() ?? [])],
		};
		const { configEnv, key } = this;
		const expiresAt = active.lifecycle.cacheExpiry();
		try {
			const inputs = { key, files, envNames: configEnv.names, env: configEnv.env, expiresAt, session };
			writeSnapshot(this.options.agentDir, inputs, state);
		} catch {
			// Only the next start's head start is lost (an unwritable agent dir): it starts the long way.
		}
	}

	/** What the session start sees of Pi that the config does not say (a snapshot holds only while it stays). */
	private sessionInputs(ctx: ExtensionContext): SessionInputs {
		return {
			// Pi 1.5's trust decides only whether <cwd>/.pi/mcp.json is read (and approved).
			trusted: existsSync(join(ctx.cwd, ".pi", "mcp.json")) ? projectTrust(ctx) : undefined,
			// As Pi hands them over: the same extension registers the same servers the same way.
			registered: JSON.stringify(this.options.registered()),
			otherTools: this.registrations.otherTools(),
		};
	}
}
