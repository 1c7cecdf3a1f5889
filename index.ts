// The Pi extension: wiring only. `createMcpExtension(options)` builds the parts of a session and
// hands each of Pi's events to the one that handles it:
//   pi-session/session.ts         the session's lifetime: its runtime, the start-up snapshot, start and
//                                 end; per-session services (pi-ui/: the status line and event) hang off it
//   pi-session/registrations.ts   what the session registers with Pi: `mcp`, direct tools, Pi 1.5's tools
//                                 and resource tools, prompt commands (their calls: pi-tools/session-calls.ts)
//   pi-commands/slash-commands.ts /mcp and /mcp-auth
//   pi-session/apps.ts, resource-updates.ts, skill-events.ts: MCP Apps' views, live resources told to
//                                 the model, servers' skills
//   start-up/: servers started ahead of their call (the streamed call, the learned history), the
//                                 warm-up while the model thinks, restored tools
// A new Pi event handler goes in the "Pi's events" part below; a service that lives as long as the
// session's runtime goes in `services`.

import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { RegisteredServer } from "./config.ts";
import type { McpRuntime, RuntimeOptions } from "./mcp-runtime.ts";
import { say } from "./pi-commands/command-io.ts";
import { registerCommands } from "./pi-commands/slash-commands.ts";
import { findAdapter, standsDownForAdapter } from "./pi-session/adapter-236.ts";
import { PiApps } from "./pi-session/apps.ts";
import { dependenciesInstalled } from "./pi-session/dependency-check.ts";
import { piSettingsFiles } from "./pi-session/pi-settings.ts";
import { Registrations } from "./pi-session/registrations.ts";
import { offerToSwitchOff } from "./pi-session/replaced-builtins.ts";
import { ResourceUpdates } from "./pi-session/resource-updates.ts";
import { McpSession } from "./pi-session/session.ts";
import { wireSkills } from "./pi-session/skill-events.ts";
import { isPi15, type Pi15ToolApi, waitForReachedServers } from "./pi-tools/pi-tools.ts";
import { SERVERS_SECTION } from "./pi-tools/servers-section.ts";
import { statusReports } from "./pi-ui/status-event.ts";
import { PROXY_TOOL_NAME } from "./proxy/surface.ts";
import { RestoredTools } from "./start-up/restored-tools.ts";
import { prestartOnStreamedCalls } from "./start-up/streamed-call.ts";
import { prestartTarget } from "./start-up/streamed-call-target.ts";
import { learnedWarmUp, whileModelThinks } from "./start-up/warm-up.ts";
import { resolveAgentDir } from "./storage/agent-dir.ts";

/** What the extension depends on, given (tests, other hosts) or taken from the process. */
export interface McpExtensionOptions {
	/** The command line: `--no-mcp`, `--mcp-servers` (default: process.argv). */
	readonly argv?: readonly string[];
	/** The environment: the agent dir, `PI_MCP_SERVERS`, what the config reads (default: process.env). */
	readonly env?: NodeJS.ProcessEnv;
	/** Makes a session's runtime (default: McpRuntime, loaded at its first build). */
	readonly createRuntime?: (options: RuntimeOptions) => McpRuntime;
}

/** What Pi 1.5 adds to the extension API; feature-tested, since pi 0.73 has none of it. */
interface Pi15Api {
	getMcpServers?: () => RegisteredServer[];
	on(
		event: "mcp_servers_change",
		handler: (event: { servers: RegisteredServer[] }, ctx: ExtensionContext) => void,
	): void;
}

/** Limits a session (a subagent) to named servers: the flag, or the variable a launcher sets. */
const SERVERS_FLAG = "mcp-servers";

/** `--mcp-servers a,b` as the command line gives it: Pi parses the flags an extension registers after loading it. */
function serversOnCommandLine(argv: readonly string[]): string | undefined {
	const at = argv.findIndex((arg) => arg === `--${SERVERS_FLAG}` || arg.startsWith(`--${SERVERS_FLAG}=`));
	if (at < 0) return undefined;
	return argv[at].includes("=") ? argv[at].slice(argv[at].indexOf("=") + 1) : argv[at + 1];
}

/** The servers a session is limited to, if it is: `--mcp-servers a,b` or `PI_MCP_SERVERS=a,b`. */
function onlyServers(pi: ExtensionAPI, argv: readonly string[], env: NodeJS.ProcessEnv): string[] | undefined {
	const flag = pi.getFlag(SERVERS_FLAG) ?? serversOnCommandLine(argv);
	const value = typeof flag === "string" && flag !== "" ? flag : env.PI_MCP_SERVERS;
	return value
		?.split(",")
		.map((name) => name.trim())
		.filter(Boolean);
}

export function createMcpExtension(options: McpExtensionOptions = {}): (pi: ExtensionAPI) => Promise<void> {
	return async (pi) => {
		const argv = options.argv ?? process.argv;
		const env = options.env ?? process.env;
		// Pi 1.5's `--no-mcp`: no server starts and no MCP tool is reachable, ours included.
		if (argv.includes("--no-mcp")) return;
		pi.registerFlag(SERVERS_FLAG, {
			description: "Only these MCP servers (comma-separated) exist for this session; the others never start",
			type: "string",
		});
		const agentDir = resolveAgentDir(env);
		// pi-mcp-adapter loaded too: Pi would stop at its start; this one stands down (pi-session/adapter-236.ts).
		if (standsDownForAdapter(pi, findAdapter(piSettingsFiles(agentDir, process.cwd()), argv, process.cwd()))) return;
		if (!dependenciesInstalled(pi)) return;
		const pi15 = pi as unknown as Pi15Api;
		const registered = (): RegisteredServer[] => (typeof pi15.getMcpServers === "function" ? pi15.getMcpServers() : []);

		// The session's parts. Each refers to the others only through these closures.
		const registrations: Registrations = new Registrations(pi, {
			runtime: (ctx) => session.require(ctx as ExtensionContext | undefined),
			ensureRuntime: () => session.ensure(),
			current: () => session.current(),
			say: (ctx, text, level) => say(ctx, session.current(), text, level),
			showApp: (active, ctx) => apps.forCall(active, ctx),
		});
		// MCP Apps: a result's `ui://` view, in the browser; its requests take the model's routes.
		const apps: PiApps = new PiApps(pi, registrations.routes(), {
			argv,
			agentDir,
			directName: (server, tool) => registrations.direct.nameOf(server, tool),
		});
		// The warm-up, while the model thinks (start-up/warm-up.ts): at the first prompt the servers this
		// project's recent sessions called start ahead (the learned start), then the MCP client and the call path load.
		const learned = learnedWarmUp(pi, agentDir, () => session.ensure());
		const stopWarming = whileModelThinks(pi, () => void learned.warm().then(() => session.warmUp()));
		const session: McpSession = new McpSession({
			registrations,
			agentDir,
			env,
			piLine: isPi15(pi) ? "pi-1.5" : "pi-0.73",
			onlyServers: () => onlyServers(pi, argv, env),
			registered,
			createRuntime: options.createRuntime,
			onServerUsed: learned.used,
			services: [
				statusReports(pi, () => registrations.direct.toolServers()),
				{ end: stopWarming },
				// A resource the session read changed at its server: the model is told.
				new ResourceUpdates(pi),
				{ end: () => apps.closeAll() },
			],
		});
		// Skills the allowed servers list, as Pi skills: fetched when first used.
		const skills = wireSkills(pi, { agentDir, runtime: () => session.require(), listings: () => session.skills() });
		registerCommands(pi, {
			runtime: () => session.ensure(),
			names: () => session.names(),
			direct: () => registrations.directSummary,
			skills: (server) => skills.describe(server),
			fromSnapshot: () => session.fromSnapshot,
			decided: (active) => registrations.sync(active, "decided"),
			// Config problems were reported at start; /mcp lists them again on demand.
			reload: (ctx) => session.reload(ctx),
			// Feature-tested, not by version: a Pi tool that declares it reaches other tools (Pi 1.5's codemode, tool_search).
			discoveryTools: () =>
				pi
					.getAllTools()
					.filter((tool) => (tool as { reachesTools?: unknown }).reachesTools)
					.map((tool) => tool.name),
		});
		// What the last start registered, from its snapshot; or (Pi 1.5) a runtime built now.
		await session.load();

		// Pi's events.
		pi.on("session_start", (_event, ctx) => session.start(ctx));
		pi.on("session_shutdown", () => session.shutdown());
		// Pi 1.x warns at each start about the built-ins this replaces: said once, and switched off with a yes.
		if (isPi15(pi))
			pi.on("session_start", (_event, ctx) =>
				offerToSwitchOff(ctx, argv, agentDir, (work) => session.keepUntilEnd(work)),
			);
		// Handling this event is how Pi 1.5 knows an extension serves the servers others register.
		pi15.on("mcp_servers_change", (event, ctx) => session.serversChanged(ctx, event.servers));
		// A server starts ahead as soon as the model's streamed tool call names it (start-up/streamed-call.ts).
		prestartOnStreamedCalls(pi, PROXY_TOOL_NAME, () => {
			const active = session.current();
			const tools = isPi15(pi) ? (pi as unknown as Pi15ToolApi) : undefined;
			return active && prestartTarget(active, { direct: registrations.direct, piTools: registrations.piTools, tools });
		});
		if (!registrations.piTools) return;
		// Pi 1.5: the servers codemode scripts reach, in the system prompt as Pi 1.5's MCP lists them (Pi
		// appends a changed section to the conversation instead of rewriting the prompt, so its cache holds).
		pi.on("before_agent_start", (event) => {
			const sections = (event as { systemPromptOptions?: { sections?: Record<string, string> } }).systemPromptOptions
				?.sections;
			if (!sections) return;
			const section = session.serversSection();
			if (section) sections[SERVERS_SECTION] = section;
			else delete sections[SERVERS_SECTION];
		});
		// A codemode script or tool_search may reach servers whose tools are not registered yet (no
		// cache): they connect (and register their tools) before the call runs, as in Pi 1.5.
		pi.on("tool_call", async (event, ctx) =>
			waitForReachedServers(pi as unknown as Pi15ToolApi, session.current(), event, ctx.signal),
		);
		// The tools tool_search loaded, restored by Pi on a resume or /reload: those of a server with no
		// cache yet are waited for at the session's first prompt (start-up/restored-tools.ts).
		const restored = new RestoredTools({
			pi: pi as unknown as Pi15ToolApi,
			runtime: () => session.ensure(),
			listed: (active) => registrations.sync(active, "listed"),
		});
		pi.on("session_start", () => restored.started());
		pi.on("before_agent_start", (_event, ctx) => restored.beforePrompt(ctx));
	};
}

export default createMcpExtension();
