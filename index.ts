// The Pi extension: wires the runtime (config, approvals, cache, manager, lifecycle), the `mcp`
// proxy tool, direct tools, the /mcp commands and the status line into Pi's events. Logic lives
// in modules. The runtime is built at session_start, when Pi 1.5 knows whether the user trusts
// the project (an untrusted project's .pi/mcp.json is not even read) and which servers other
// extensions registered; it is built again when those registrations change.

import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { ClientHost } from "./client/client-features.ts";
import { safeDialogs } from "./client/user-dialogs.ts";
import type { RegisteredServer } from "./config.ts";
import { McpRuntime } from "./mcp-runtime.ts";
import { openSystemBrowser } from "./oauth/open-browser.ts";
import { storedSignInNote } from "./oauth-handler.ts";
import {
	callThroughPi,
	isPi15,
	McpPiTools,
	type Pi15ToolApi,
	SERVERS_SECTION,
	serversSection,
	waitForReachedServers,
} from "./pi/pi-tools.ts";
import { PromptCommands } from "./pi/prompt-commands.ts";
import { ResourcePiTools } from "./pi/resource-pi-tools.ts";
import { registerCommands, say, statusLine } from "./pi/slash-commands.ts";
import { renderProxyCall, renderProxyResult, type ToolLookup } from "./pi/tool-render.ts";
import { warmWhileModelThinks } from "./pi/warm-up.ts";
import {
	normalizeProxyInput,
	PROXY_DESCRIPTION,
	PROXY_TOOL_NAME,
	type ProxyInput,
	ProxyParams,
	proxyDescription,
} from "./proxy/surface.ts";
import { contentText, type McpResultLike } from "./proxy/tool-results.ts";
import type { Progress } from "./server-manager.ts";
import { DIRECT_TOOLS_TOKEN_WARNING, type DirectPlan, directSelection, planDirectTools } from "./tool-registrar.ts";
import { describeError } from "./transport/errors.ts";
import { askApproval } from "./trust/project-approval.ts";
import { oneLine, terminalSafe } from "./trust/safe-text.ts";

type OnUpdate = (partial: { content: { type: "text"; text: string }[]; details: unknown }) => void;

/** What Pi 1.5 adds to the extension API; feature-tested, since pi 0.73 has none of it. */
interface Pi15Api {
	getMcpServers?: () => RegisteredServer[];
	on(
		event: "mcp_servers_change",
		handler: (event: { servers: RegisteredServer[] }, ctx: ExtensionContext) => void,
	): void;
}

/** What servers may use of the session: its dialogs (when there is a UI) and its current model. */
function clientHost(ctx: ExtensionContext): ClientHost {
	return {
		dialogs: ctx.hasUI ? safeDialogs(ctx.ui) : undefined,
		// Loaded at the first sampling request, not with the extension.
		sampler: async () => (await import("./client/sampling.ts")).piSampler(ctx),
		openBrowser: openSystemBrowser,
	};
}

/** Pi 1.5's project trust; undefined on Pi lines without it (pi 0.73). */
function projectTrust(ctx: ExtensionContext): boolean | undefined {
	const trusted = (ctx as { isProjectTrusted?: () => boolean }).isProjectTrusted;
	return typeof trusted === "function" ? trusted.call(ctx) : undefined;
}

/** Pi 1.5's `--no-mcp`: no server starts and no MCP tool is reachable, ours included. */
const NO_MCP = process.argv.includes("--no-mcp");
/** Limits a session (a subagent) to named servers: the flag, or the variable a launcher sets. */
const SERVERS_FLAG = "mcp-servers";

/** The servers a session is limited to, if it is: `--mcp-servers a,b` or `PI_MCP_SERVERS=a,b`. */
function onlyServers(pi: ExtensionAPI): string[] | undefined {
	const flag = pi.getFlag(SERVERS_FLAG);
	const value = typeof flag === "string" && flag !== "" ? flag : process.env.PI_MCP_SERVERS;
	return value === undefined
		? undefined
		: value
				.split(",")
				.map((name) => name.trim())
				.filter(Boolean);
}

/**
 * Pi 1.5: the cached tools of the servers that may run without a question (the user's own, and
 * project servers approved before) are registered while the extension loads, when a registration
 * is cheap; after that, each one makes Pi rebuild its tool registry (~3 ms per server's tools).
 * The session start registers only what differs (a trusted project's .pi/mcp.json, a limit given
 * by flag, servers of other extensions). Nothing starts here; a config problem is reported by the
 * session start, which reads the files again.
 */
function registerCachedTools(pi: ExtensionAPI, piTools: McpPiTools): McpRuntime | undefined {
	try {
		const early = new McpRuntime({ cwd: process.cwd(), piTrusted: false, onlyServers: onlyServers(pi) });
		piTools.sync(early);
		return early;
	} catch {
		// A head start only: the session start builds the runtime again and reports what is wrong.
		return undefined;
	}
}

export default function mcpAdapter(pi: ExtensionAPI): void {
	if (NO_MCP) return;
	pi.registerFlag(SERVERS_FLAG, {
		description: "Only these MCP servers (comma-separated) exist for this session; the others never start",
		type: "string",
	});
	const pi15 = pi as unknown as Pi15Api;
	let runtime: McpRuntime | undefined;
	let direct: DirectPlan | undefined;
	const registeredDirect = new Set<string>();
	/** How this session's model reaches MCP tools (Pi 1.5 with codemode: as Pi 1.5's own MCP). */
	let surface: "codemode" | "mcp" = "mcp";

	/** One proxy request in the session (connecting it first if needed); `onResult` hears a call's whole result. */
	const answer = async (
		input: ProxyInput,
		signal: AbortSignal | undefined,
		onUpdate: OnUpdate | undefined,
		ctx: ExtensionContext,
		onResult?: (result: McpResultLike) => void,
	) => {
		const active = runtime ?? activate(ctx, registeredServers());
		if (ctx.cwd !== active.cwd) await active.setWorkingFolder(ctx.cwd);
		// The proxy's call path loads at the first request, not with the extension (start-up cost).
		const { progressText, runProxy } = await import("./proxy/proxy-tool.ts");
		const onProgress = (p: Progress) =>
			onUpdate?.({ content: [{ type: "text", text: progressText(p) }], details: { mode: "tool", progress: p } });
		const notes = (server: string) => active.client.takeNotes(server);
		return runProxy(active.lifecycle, input, { signal, onProgress, output: active.output, notes, onResult });
	};

	// Pi 1.5: MCP tools are Pi tools too (codemode, tool_search, permission hooks reach them).
	const piTools = isPi15(pi)
		? new McpPiTools(pi, async (tool, args, signal, onUpdate, ctx) => {
				let result: McpResultLike | undefined;
				const input = { tool: tool.qualifiedName, server: tool.server, args };
				const answered = await answer(input, signal, onUpdate as OnUpdate, ctx as ExtensionContext, (r) => {
					result = r;
				});
				return { content: answered.content, details: answered.details, isError: answered.isError, result };
			})
		: undefined;
	const resourceTools = isPi15(pi) ? new ResourcePiTools(pi, () => runtime) : undefined;
	/** Built while the extension loaded (Pi 1.5); the session start takes it when it would read the same config. */
	let early = piTools ? registerCachedTools(pi, piTools) : undefined;

	const run = async (
		input: ProxyInput,
		signal: AbortSignal | undefined,
		onUpdate: OnUpdate | undefined,
		ctx: ExtensionContext,
	) => {
		// On Pi 1.5 a call through `mcp` is run as the Pi tool it is, so tool_call/tool_result hooks and
		// permission rules see (and may block) the real `mcp__server__tool`, as for any other call.
		const viaPi = piTools && runtime ? await callThroughPi(piTools, runtime, input, ctx, signal) : undefined;
		const result = viaPi ?? (await answer(input, signal, onUpdate, ctx));
		// Pi marks a thrown error as a failed tool call; its message is what the model reads.
		if (result.isError) throw new Error(contentText(result.content));
		return { content: result.content, details: result.details };
	};

	const lookup: ToolLookup = (name) => {
		const found = runtime?.lifecycle.catalog.resolve(name);
		return found?.kind === "found" ? { server: found.tool.server, tool: found.tool.name } : undefined;
	};
	/**
	 * The `mcp` tool, registered again at session start with the description naming that session's
	 * servers: declared to the model (pi 0.73, or `surface: "mcp"`), or on Pi 1.5 with codemode
	 * only callable (`deferred`: scripts call `tools.mcp(...)`, tool_search finds it), so the model's
	 * context holds what Pi 1.5's own MCP puts there and no more.
	 */
	let proxyShown = "";
	const registerProxy = (description: string, declared = true) => {
		// Each registration after load makes Pi 1.5 rebuild its tool registry: only a change registers again.
		const shown = `${declared}\0${description}`;
		if (shown === proxyShown) return;
		proxyShown = shown;
		pi.registerTool({
			name: PROXY_TOOL_NAME,
			label: "MCP",
			description,
			...(declared ? {} : { exposure: "deferred" }),
			parameters: ProxyParams,
			prepareArguments: normalizeProxyInput,
			execute: (_id, params, signal, onUpdate, ctx) => run(params, signal, onUpdate, ctx),
			renderCall: (args, theme) => renderProxyCall(args, theme, lookup),
			renderResult: (result, options, theme, context) =>
				renderProxyResult({ ...result, isError: context.isError }, options, theme),
		});
	};
	// Pi 1.5: registered as the session start will most likely want it (the early runtime's servers;
	// hidden from the model unless `surface: "mcp"`), while registrations are cheap; the start
	// registers it again only if that guess was wrong. The same for the resource tools.
	if (early) {
		registerProxy(proxyDescription(early.serverBlurbs()), early.config.settings.surface === "mcp");
		resourceTools?.sync(early);
	} else registerProxy(PROXY_DESCRIPTION);

	/** The `mcp` tool again, its description naming the session's servers; hidden from the model under codemode. */
	const describeServers = (active: McpRuntime) => {
		registerProxy(proxyDescription(active.serverBlurbs()), surface === "mcp");
		const activeTools = pi.getActiveTools();
		if (surface === "codemode" && activeTools.includes(PROXY_TOOL_NAME))
			pi.setActiveTools(activeTools.filter((name) => name !== PROXY_TOOL_NAME));
	};

	/** Registers the direct tools of allowed servers that are not registered yet (at start, and after an approval). */
	const syncDirectTools = (active: McpRuntime) => {
		const allowed = active.lifecycle.serverNames().filter((n) => !active.lifecycle.blocked(n));
		const others = pi
			.getAllTools()
			.map((t) => t.name)
			.filter((name) => name !== PROXY_TOOL_NAME && !registeredDirect.has(name));
		const selection = directSelection(active.config, active.env);
		// On Pi 1.5 the tools its exposure makes direct are Pi tools already (pi/pi-tools.ts).
		const ours = piTools
			? { ...selection, isDirect: (s: string, t: string) => selection.isDirect(s, t) && !selection.piNamed?.(s, t) }
			: selection;
		direct = planDirectTools(active.lifecycle.catalog, ours, allowed, others);
		for (const tool of direct.tools) {
			if (registeredDirect.has(tool.name)) continue;
			registeredDirect.add(tool.name);
			pi.registerTool({
				name: tool.name,
				label: `${tool.tool.server}: ${tool.tool.name}`,
				description: tool.description,
				// The server's own JSON Schema: Pi validates plain JSON Schemas as well as TypeBox ones.
				parameters: tool.parameters as unknown as typeof ProxyParams,
				// Pi 1.5 hands these to permission extensions (pi.getAllTools()); pi 0.73 ignores them.
				...(tool.annotations ? { annotations: tool.annotations } : {}),
				execute: (_id, params, signal, onUpdate, ctx) =>
					run({ tool: tool.tool.qualifiedName, server: tool.tool.server, args: params }, signal, onUpdate, ctx),
				renderResult: (result, options, theme, context) =>
					renderProxyResult({ ...result, isError: context.isError }, options, theme),
			});
		}
	};

	const registeredServers = (): RegisteredServer[] =>
		typeof pi15.getMcpServers === "function" ? pi15.getMcpServers() : [];

	/** Builds and starts a session's runtime (ending the previous one), and hooks it to Pi. */
	const activate = (ctx: ExtensionContext, registered: readonly RegisteredServer[]): McpRuntime => {
		void runtime?.shutdown();
		const options = { cwd: ctx.cwd, piTrusted: projectTrust(ctx), registered, onlyServers: onlyServers(pi) };
		const active = early?.servesLike(options) ? early : new McpRuntime(options);
		early = undefined; // never started: nothing to end
		runtime = active;
		active.client.host = clientHost(ctx);
		active.start();
		syncDirectTools(active);
		piTools?.sync(active);
		resourceTools?.sync(active);
		// Pi 1.5 with codemode reaching MCP tools: the model sees codemode and the mcp_servers section,
		// as with Pi 1.5's own MCP; `settings.surface: "mcp"` keeps the `mcp` tool declared instead.
		const viaCodemode = piTools?.activateDiscovery(active) === true && active.config.settings.surface !== "mcp";
		surface = viaCodemode ? "codemode" : "mcp";
		describeServers(active);
		const update = () => {
			const line = statusLine(active.lifecycle);
			ctx.ui.setStatus("mcp", line === undefined ? undefined : oneLine(line));
			if (active === runtime) prompts.sync(active); // prompts a server listed for the first time
			if (active === runtime) piTools?.sync(active); // tools of a server that connected for the first time
			if (active === runtime) resourceTools?.sync(active);
		};
		active.onChange(update);
		update();
		return active;
	};

	/**
	 * The config changed (/mcp enable|disable, another extension's servers): applied to the running
	 * session when only servers changed, so the others keep running; else a new runtime.
	 */
	const reload = async (ctx: ExtensionContext, registered: readonly RegisteredServer[]): Promise<void> => {
		const active = runtime;
		if (!active || !(await active.reload(registered))) {
			activate(ctx, registered);
			return;
		}
		if (active !== runtime) return;
		// Prompts, Pi tools and resource tools followed already: the reload told the runtime's listeners.
		syncDirectTools(active);
		describeServers(active);
	};

	const prompts = new PromptCommands(
		pi,
		() => runtime,
		(ctx, text, level) => say(ctx, runtime, text, level),
	);
	registerCommands(pi, {
		runtime: () => runtime,
		direct: () => direct,
		decided: (active) => {
			syncDirectTools(active);
			prompts.sync(active);
		},
		// Config problems were reported at start; /mcp lists them again on demand.
		reload: (ctx) => reload(ctx, registeredServers()),
	});

	pi.on("session_start", (_event, ctx) => {
		const active = activate(ctx, registeredServers());
		report(active, direct, ctx);
		const pending = active.pendingApproval();
		if (pending.length > 0 && ctx.hasUI) {
			// Asked in the background: Pi starts at once, and the servers wait for the answer.
			askApproval(safeDialogs(ctx.ui), pending, storedSignInNote(active.agentDir))
				.then(async ({ approved, denied }) => {
					if (active !== runtime) return;
					if (approved.length > 0) await active.decide(approved, "approved");
					if (denied.length > 0) await active.decide(denied, "denied");
					syncDirectTools(active);
					prompts.sync(active);
				})
				// The decision could not be saved (the approvals file is locked or unwritable): the user must know.
				.catch((error: unknown) =>
					ctx.ui.notify(
						terminalSafe(
							`MCP: your decision could not be saved: ${describeError(error)}. Use /mcp approve or /mcp deny.`,
						),
						"error",
					),
				);
		}
	});

	// The servers codemode scripts reach, in the system prompt as Pi 1.5's MCP lists them (Pi appends a
	// changed section to the conversation instead of rewriting the prompt, so its cache holds).
	if (piTools)
		pi.on("before_agent_start", (event) => {
			const sections = (event as { systemPromptOptions?: { sections?: Record<string, string> } }).systemPromptOptions
				?.sections;
			const section = surface === "codemode" && runtime ? serversSection(runtime) : undefined;
			if (!sections) return;
			if (section) sections[SERVERS_SECTION] = section;
			else delete sections[SERVERS_SECTION];
		});

	// A codemode script or tool_search may reach servers whose tools are not registered yet (no
	// cache): they connect (and register their tools) before the call runs, as in Pi 1.5.
	if (piTools)
		pi.on("tool_call", async (event, ctx) =>
			waitForReachedServers(pi as unknown as Pi15ToolApi, runtime, event, ctx.signal),
		);

	// Handling this event is how Pi 1.5 knows an extension serves the servers others register.
	pi15.on("mcp_servers_change", async (event, ctx) => {
		if (runtime) await reload(ctx, event.servers);
	});

	const stopWarming = warmWhileModelThinks(pi, () => runtime);

	pi.on("session_shutdown", async () => {
		stopWarming();
		const ending = runtime;
		runtime = undefined;
		await ending?.shutdown();
	});
}

function report(runtime: McpRuntime, direct: DirectPlan | undefined, ctx: ExtensionContext): void {
	const lines = runtime.problemLines();
	if (direct && direct.tokens > DIRECT_TOOLS_TOKEN_WARNING) {
		lines.push(
			`warning: the ${direct.tools.length} direct MCP tools cost about ${direct.tokens} tokens of context; consider fewer (directTools: ["tool", ...]).`,
		);
	}
	const pending = runtime.pendingApproval();
	if (pending.length > 0 && !ctx.hasUI) {
		// Everything each would run and send, so that a later `/mcp approve` is a yes to what was shown.
		lines.push(`${pending.length} server(s) from this project's config await approval and will not run:`);
		lines.push(
			...pending.map((e) => `  ${runtime.describeLaunch(e)}`),
			"Run /mcp approve to allow them (/mcp approve <name> for one).",
		);
	}
	if (lines.length === 0) return;
	const message = terminalSafe(`MCP:\n${lines.join("\n")}`);
	if (ctx.hasUI)
		ctx.ui.notify(message, runtime.config.problems.some((p) => p.severity === "error") ? "error" : "warning");
	else console.error(message);
}
