// What a session registers with Pi, behind one interface: the `mcp` tool (its description naming
// the session's servers; on Pi 1.5 hidden from the model where codemode reaches MCP tools), direct
// tools, Pi 1.5's tools (every MCP tool a Pi tool) and resource tools, and the servers' prompts as
// commands. Every registration after load makes Pi 1.5 rebuild its tool registry, so each family
// registers only what changed, and `sync(runtime, moment)` registers again only what that moment
// may change (SYNCED, below). A start-up snapshot keeps `state()` and registers it with `restore`.
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { McpRuntime } from "../mcp-runtime.ts";
import { PromptCommands } from "../pi-commands/prompt-commands.ts";
import type { PiRoutes } from "../pi-tools/calls-through-pi.ts";
import { DirectPiTools } from "../pi-tools/direct-pi-tools.ts";
import { isPi15, McpPiTools, type Pi15ToolApi } from "../pi-tools/pi-tools.ts";
import { ResourcePiTools } from "../pi-tools/resource-pi-tools.ts";
import { SessionCalls } from "../pi-tools/session-calls.ts";
import type { ToolSearchApi } from "../pi-tools/tool-ranking.ts";
import { registerToolSearch } from "../pi-tools/tool-search.ts";
import { renderProxyCall, renderProxyResult } from "../pi-ui/tool-render.ts";
import type { ProxyRunOptions } from "../proxy/answer.ts";
import {
	normalizeProxyInput,
	PROXY_DESCRIPTION,
	PROXY_TOOL_NAME,
	ProxyParams,
	proxyDescription,
} from "../proxy/surface.ts";
import type { StartState } from "../start-up/start-snapshot.ts";
import type { DirectSummary } from "../tool-registrar.ts";

/**
 * When the session's state changed: `load`, the runtime built while the extension loads (what the
 * start will most likely want); `start`, a runtime became the session's; `config`, the config was
 * read again in place; `decided`, the user approved or denied project servers; `listed`, a server
 * connected or changed what it lists.
 */
export type SyncMoment = "load" | "start" | "config" | "decided" | "listed";

/**
 * What each moment registers again, besides Pi 1.5's tools and resource tools, which follow every
 * moment (each registers only what changed). The `mcp` description changes only with the config
 * (the model's prompt cache holds); direct tools come from the cache at start and change with the
 * config or an approval; the discovery tools (codemode, tool_search) are activated once, at start.
 */
const SYNCED: Record<SyncMoment, { direct?: true; prompts?: true; discovery?: true; proxy?: "guess" | "describe" }> = {
	load: { proxy: "guess" },
	start: { direct: true, discovery: true, proxy: "describe", prompts: true },
	config: { direct: true, proxy: "describe", prompts: true },
	decided: { direct: true, prompts: true },
	listed: { prompts: true },
};

/** What the session registered, as a start-up snapshot keeps it. */
export type Registered = Pick<StartState, "proxy" | "piTools" | "resources" | "direct" | "prompts" | "discovery">;

/** What the session registers with Pi. */
export interface PiRegistrations {
	/** Registers what `moment` may have changed for `runtime`, where it differs from what is registered. */
	sync(runtime: McpRuntime, moment: SyncMoment): void;
	/** What is registered now, for a start-up snapshot. */
	state(): Registered;
	/** Registers what a snapshot kept, as `sync` had registered it (a later `sync` registers only what differs). */
	restore(state: Registered): void;
	/** The names of the tools registered (the `mcp` tool's included). */
	names(): string[];
}

/** How the registrations reach the session's runtime (pi-session/session.ts) and answer a command. */
export interface RegistrationDeps {
	/** The session's runtime, built first if it is not yet (in `ctx`'s session); throws between sessions. */
	readonly runtime: (ctx?: unknown) => Promise<McpRuntime>;
	/** The same, or undefined between sessions. */
	readonly ensureRuntime: () => Promise<McpRuntime | undefined>;
	/** The runtime if it is built (for drawing a call: never builds one). */
	readonly current: () => McpRuntime | undefined;
	readonly say: (ctx: ExtensionCommandContext, text: string, level?: "info" | "warning" | "error") => void;
	/** MCP Apps: what shows a call's `ui://` view, for a call run in `ctx` (pi-session/apps.ts). */
	readonly showApp?: (runtime: McpRuntime, ctx: ExtensionContext) => ProxyRunOptions["showApp"];
}

/** What the `mcp` description adds when the config loaded no server because it is broken. */
const BROKEN_CONFIG = " The MCP config has errors: {} says which and where.";

/** The config has errors and no server loaded: the model should hear why it has no MCP tools. */
function brokenOnly(runtime: McpRuntime): boolean {
	return runtime.config.servers.size === 0 && runtime.config.problems.some((p) => p.severity === "error");
}

export class Registrations implements PiRegistrations {
	/** Pi 1.5: MCP tools are Pi tools too (codemode, tool_search, permission hooks reach them). */
	readonly piTools?: McpPiTools;
	readonly resources?: ResourcePiTools;
	readonly direct: DirectPiTools;
	private readonly prompts: PromptCommands;
	/** How the model reaches MCP tools now: through Pi's own tools (codemode, tool_search) or `mcp`. */
	private reach: "codemode" | "mcp" = "mcp";
	/** What the discovery tools were at start (`discovery` of a snapshot). */
	private discovery: Registered["discovery"] = { activate: [], viaCodemode: true };
	private shown = { description: "", declared: true, key: "" };
	private readonly calls: SessionCalls;
	private readonly current: () => McpRuntime | undefined;

	constructor(
		private readonly pi: ExtensionAPI,
		deps: RegistrationDeps,
	) {
		// The executes of `mcp`, Pi tools and direct tools; on Pi 1.5 a call runs as the Pi tool it is.
		this.calls = new SessionCalls(deps.runtime, () => this.routes(), deps.showApp);
		this.current = deps.current;
		if (isPi15(pi)) {
			this.piTools = new McpPiTools(pi, this.calls.piTool);
			this.resources = new ResourcePiTools(pi, () => deps.runtime());
			// Pi 1.5's tool_search and codemode's searchTools() ranked by our engine (registered while loading: that replaces Pi's).
			const piTools = this.piTools;
			registerToolSearch(pi as unknown as ToolSearchApi, (name) => piTools.titleOf(name));
		}
		this.direct = new DirectPiTools(pi as unknown as Pi15ToolApi, this.calls.direct, PROXY_TOOL_NAME, isPi15(pi));
		this.prompts = new PromptCommands(pi, deps.ensureRuntime, deps.say);
	}

	/** Pi 1.5: the Pi tools a call may become; undefined on pi 0.73. */
	routes(): PiRoutes | undefined {
		return this.piTools && this.resources ? { tools: this.piTools, resources: this.resources } : undefined;
	}

	sync(runtime: McpRuntime, moment: SyncMoment): void {
		const what = SYNCED[moment];
		// In the order a load registers them (Pi lists its tools in the order first registered).
		if (what.direct) this.direct.sync(runtime);
		this.piTools?.sync(runtime);
		if (what.proxy === "guess")
			// Hidden from the model unless `surface: "mcp"`: the start registers it again only if that guess was wrong.
			this.registerProxy(proxyDescription(runtime.serverBlurbs()), runtime.config.settings.surface === "mcp");
		this.resources?.sync(runtime);
		if (what.discovery) this.activateDiscovery(runtime);
		if (what.proxy === "describe") this.describeServers(runtime);
		if (what.prompts) this.prompts.sync(runtime);
	}

	state(): Registered {
		const resources = this.resources?.state();
		return {
			proxy: { description: this.shown.description, declared: this.shown.declared },
			...(this.piTools ? { piTools: this.piTools.state() } : {}),
			...(resources ? { resources } : {}),
			direct: this.direct.state(),
			prompts: this.prompts.state(),
			discovery: this.discovery,
		};
	}

	restore(state: Registered): void {
		this.piTools?.restore(state.piTools ?? { tools: [], byServer: {} });
		this.registerProxy(state.proxy.description, state.proxy.declared);
		this.resources?.restore(state.resources);
		this.direct.restore(state.direct);
		this.prompts.restore(state.prompts);
	}

	names(): string[] {
		return [
			PROXY_TOOL_NAME,
			...this.direct.names(),
			...(this.piTools?.names() ?? []),
			...(this.resources?.names() ?? []),
		];
	}

	/** After load: `mcp` is registered, with the bare description where neither a snapshot nor the load's runtime described it. */
	ready(): void {
		if (!this.shown.key) this.registerProxy(PROXY_DESCRIPTION);
	}

	/** At a session start from a snapshot: the discovery tools it activated, activated again (Pi's tool set exists only now). */
	resume(discovery: Registered["discovery"]): void {
		this.discovery = discovery;
		this.reach =
			this.piTools?.activateDiscovery(discovery.activate) === true && discovery.viaCodemode ? "codemode" : "mcp";
		this.hideProxyUnderCodemode();
	}

	/** Whether codemode scripts reach the MCP tools (Pi 1.5's `mcp_servers` system prompt section then lists the servers). */
	get viaCodemode(): boolean {
		return this.reach === "codemode";
	}

	/** What the last plan of direct tools said, for /mcp status and the start's token warning. */
	get directSummary(): DirectSummary | undefined {
		return this.direct.summary;
	}

	/**
	 * The names of the tools other extensions registered, where they matter: direct tools are named
	 * around them (a start-up snapshot holds only while they stay).
	 */
	otherTools(): string {
		if (this.direct.names().length === 0) return "";
		const ours = new Set(this.names());
		return this.pi
			.getAllTools()
			.map((t) => t.name)
			.filter((name) => !ours.has(name))
			.sort()
			.join(",");
	}

	/**
	 * Pi 1.5 with its own tools reaching MCP tools (codemode, tool_search, direct ones): the model sees
	 * what Pi 1.5's own MCP shows it; `settings.surface: "mcp"` keeps the `mcp` tool declared instead.
	 */
	private activateDiscovery(runtime: McpRuntime): void {
		const wanted = this.piTools?.discoveryWanted(runtime) ?? [];
		const viaCodemode = runtime.config.settings.surface !== "mcp";
		this.discovery = { activate: wanted, viaCodemode };
		// No server loaded from a broken config: `mcp` stays declared, its status saying what is broken and
		// where (Pi 1.5's own MCP leaves the model nothing, and no word why).
		const reaches = this.piTools?.activateDiscovery(wanted) === true && viaCodemode && !brokenOnly(runtime);
		this.reach = reaches ? "codemode" : "mcp";
	}

	/** The `mcp` tool again, its description naming the session's servers; hidden from the model under codemode. */
	private describeServers(runtime: McpRuntime): void {
		const broken = brokenOnly(runtime) ? BROKEN_CONFIG : "";
		this.registerProxy(`${proxyDescription(runtime.serverBlurbs())}${broken}`, this.reach === "mcp");
		this.hideProxyUnderCodemode();
	}

	/**
	 * The `mcp` tool: declared to the model (pi 0.73, or `surface: "mcp"`), or on Pi 1.5 with codemode
	 * only callable (`deferred`: scripts call `tools.mcp(...)`, tool_search finds it by its name), so the model's
	 * context holds what Pi 1.5's own MCP puts there and no more.
	 */
	private registerProxy(description: string, declared = true): void {
		// Each registration after load makes Pi 1.5 rebuild its tool registry: only a change registers again.
		const key = `${declared}\0${description}`;
		if (key === this.shown.key) return;
		this.shown = { description, declared, key };
		this.pi.registerTool({
			name: PROXY_TOOL_NAME,
			label: "MCP",
			description,
			...(declared ? {} : { exposure: "deferred" }),
			parameters: ProxyParams,
			prepareArguments: normalizeProxyInput,
			execute: (_id, params, signal, onUpdate, ctx) => this.calls.proxy(params, signal, onUpdate, ctx),
			renderCall: (args, theme) => renderProxyCall(args, theme, (name) => this.lookup(name)),
			renderResult: (result, options, theme, context) =>
				renderProxyResult({ ...result, isError: context.isError }, options, theme),
		});
	}

	/** With codemode reaching MCP tools, the model does not see `mcp` declared (Pi 1.5's own MCP shows no such tool). */
	private hideProxyUnderCodemode(): void {
		const active = this.pi.getActiveTools();
		if (this.reach === "codemode" && active.includes(PROXY_TOOL_NAME))
			this.pi.setActiveTools(active.filter((name) => name !== PROXY_TOOL_NAME));
	}

	/** A call's tool as the TUI draws it: its server and name, when the runtime knows it. */
	private lookup(name: string): { server: string; tool: string } | undefined {
		const found = this.current()?.lifecycle.catalog.resolve(name);
		return found?.kind === "found" ? { server: found.tool.server, tool: found.tool.name } : undefined;
	}
}
