// The Pi extension: wires the runtime (config, approvals, cache, manager, lifecycle), the `mcp`
// proxy tool, direct tools, the /mcp commands and the status line into Pi's events. Logic lives
// in modules. The runtime is built at session_start, when Pi 1.5 knows whether the user trusts
// the project (an untrusted project's .pi/mcp.json is not even read) and which servers other
// extensions registered; it is built again when those registrations change. A start whose
// inputs match the last such start's snapshot (pi/start-snapshot.ts) registers the same from it
// and builds the runtime only at the first use, or while the model thinks.

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { ClientHost } from "./client/client-features.ts";
import type { RegisteredServer } from "./config.ts";
import { describeError } from "./errors.ts";
import {
	loadApprovalQuestion,
	loadApproveFlow,
	loadBrowser,
	loadCallPath,
	loadDialogs,
	loadOauthHandler,
	loadRuntime,
	loadSampling,
} from "./lazy.ts";
import type { McpRuntime, RuntimeOptions } from "./mcp-runtime.ts";
import { callsNested, callThroughPi, type PiRoutes, runThroughPi } from "./pi/calls-through-pi.ts";
import { say } from "./pi/command-io.ts";
import { dependenciesInstalled } from "./pi/dependency-check.ts";
import { DirectPiTools } from "./pi/direct-pi-tools.ts";
import { isPi15, McpPiTools, type Pi15ToolApi, type ToolRef, waitForReachedServers } from "./pi/pi-tools.ts";
import { prestartOnStreamedCalls } from "./pi/prestart.ts";
import { prestartTarget } from "./pi/prestart-target.ts";
import { PromptCommands } from "./pi/prompt-commands.ts";
import { ResourcePiTools } from "./pi/resource-pi-tools.ts";
import { SERVERS_SECTION, serversSection } from "./pi/servers-section.ts";
import { registerCommands, statusLine } from "./pi/slash-commands.ts";
import {
	matchesSession,
	readSnapshot,
	recordingEnv,
	type SessionInputs,
	type StartState,
	snapshotKey,
	writeSnapshot,
} from "./pi/start-snapshot.ts";
import { EMPTY_STATUS, emitStatus, statusSnapshot } from "./pi/status-event.ts";
import type { ToolSearchApi } from "./pi/tool-ranking.ts";
import { renderProxyCall, renderProxyResult, type ToolLookup } from "./pi/tool-render.ts";
import { registerToolSearch } from "./pi/tool-search.ts";
import { warmWhileModelThinks } from "./pi/warm-up.ts";
import type { ProxyResult } from "./proxy/answer.ts";
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
import { resolveAgentDir } from "./storage/agent-dir.ts";
import { type FileStamp, recordReads } from "./storage/file-guard.ts";
import { DIRECT_TOOLS_TOKEN_WARNING } from "./tool-registrar.ts";
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
async function clientHost(ctx: ExtensionContext): Promise<ClientHost> {
	const [{ safeDialogs }, { openSystemBrowser }] = await Promise.all([loadDialogs(), loadBrowser()]);
	return {
		dialogs: ctx.hasUI ? safeDialogs(ctx.ui) : undefined,
		// Loaded at the first sampling request, not with the extension.
		sampler: async () => (await loadSampling()).piSampler(ctx),
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

/** `--mcp-servers a,b` as the command line gives it: Pi parses the flags an extension registers after loading it. */
function serversOnCommandLine(): string | undefined {
	const argv = process.argv;
	const at = argv.findIndex((arg) => arg === `--${SERVERS_FLAG}` || arg.startsWith(`--${SERVERS_FLAG}=`));
	if (at < 0) return undefined;
	return argv[at].includes("=") ? argv[at].slice(argv[at].indexOf("=") + 1) : argv[at + 1];
}

/** The servers a session is limited to, if it is: `--mcp-servers a,b` or `PI_MCP_SERVERS=a,b`. */
function onlyServers(pi: ExtensionAPI): string[] | undefined {
	const flag = pi.getFlag(SERVERS_FLAG) ?? serversOnCommandLine();
	const value = typeof flag === "string" && flag !== "" ? flag : process.env.PI_MCP_SERVERS;
	return value === undefined
		? undefined
		: value
				.split(",")
				.map((name) => name.trim())
				.filter(Boolean);
}

/** What a start prints: config problems, the direct tools' cost, project servers awaiting approval. */
type Notes = StartState["notes"];

function showNotes(notes: Notes, ctx: ExtensionContext): void {
	if (!notes) return;
	if (ctx.hasUI) ctx.ui.notify(notes.text, notes.level);
	else console.error(notes.text);
}

export default async function mcpAdapter(pi: ExtensionAPI): Promise<void> {
	if (NO_MCP) return;
	pi.registerFlag(SERVERS_FLAG, {
		description: "Only these MCP servers (comma-separated) exist for this session; the others never start",
		type: "string",
	});
	if (!dependenciesInstalled(pi)) return;
	const pi15 = pi as unknown as Pi15Api;
	/** Read again at session start, when Pi has parsed the flag (at load the command line tells). */
	let only = onlyServers(pi);
	/** The session's runtime; undefined before the session starts, and after a start from a snapshot until first used. */
	let runtime: McpRuntime | undefined;
	let building: Promise<McpRuntime> | undefined;
	/** The session's context, for a runtime built after the start (a call, a command, warming up). */
	let sessionCtx: ExtensionContext | undefined;
	/** How this session's model reaches MCP tools (Pi 1.5 with codemode: as Pi 1.5's own MCP). */
	let surface: "codemode" | "mcp" = "mcp";
	/** The config reads the environment through this, so a snapshot knows which variables it depends on. */
	const configEnv = recordingEnv(process.env);
	/** The files each runtime read as it was built: a snapshot's inputs. */
	const inputsOf = new WeakMap<McpRuntime, Map<string, FileStamp>>();
	const agentDir = resolveAgentDir(process.env);
	const piLine = isPi15(pi) ? "pi-1.5" : "pi-0.73";
	let key = snapshotKey({ cwd: process.cwd(), onlyServers: only, piLine });

	const newRuntime = async (options: RuntimeOptions): Promise<McpRuntime> => {
		// Loaded here, not with the extension: a start from a snapshot never needs it.
		const { McpRuntime } = await loadRuntime();
		const { value, reads } = recordReads(() => new McpRuntime({ ...options, configEnv: configEnv.env }));
		inputsOf.set(value, reads);
		return value;
	};

	/** Builds the session's runtime; whoever needs it meanwhile waits for this one. */
	const build = (ctx: ExtensionContext, registered: readonly RegisteredServer[]): Promise<McpRuntime> => {
		const next: Promise<McpRuntime> = activate(ctx, registered).finally(() => {
			if (building === next) building = undefined;
		});
		building = next;
		return next;
	};

	/** The session's runtime, built now if the start came from a snapshot (undefined between sessions). */
	const ensureRuntime = (ctx?: ExtensionContext): Promise<McpRuntime | undefined> => {
		if (runtime) return Promise.resolve(runtime);
		if (building) return building;
		const at = ctx ?? sessionCtx;
		return at ? build(at, registeredServers()) : Promise.resolve(undefined);
	};
	const requireRuntime = async (ctx?: ExtensionContext): Promise<McpRuntime> => {
		const active = await ensureRuntime(ctx);
		if (!active) throw new Error("MCP is not running in this session.");
		return active;
	};

	/** A request in the session: its runtime (in the caller's folder), the call path, and options that report to Pi. */
	const prepare = async (
		signal: AbortSignal | undefined,
		onUpdate: OnUpdate | undefined,
		ctx: ExtensionContext,
		onResult?: (result: McpResultLike) => void,
	) => {
		const active = await requireRuntime(ctx);
		if (ctx.cwd !== active.cwd) await active.setWorkingFolder(ctx.cwd);
		// The proxy's call path loads at the first request, not with the extension (start-up cost).
		const callPath = await loadCallPath();
		const onProgress = (p: Progress) =>
			onUpdate?.({
				content: [{ type: "text", text: callPath.progressText(p) }],
				details: { mode: "tool", progress: p },
			});
		// Why an answer waits (a server installing or starting): shown to the user as the call's progress.
		const onWait = (text: string) => onUpdate?.({ content: [{ type: "text", text }], details: { waiting: text } });
		const notes = (server: string) => active.client.takeNotes(server);
		return { active, callPath, options: { signal, onProgress, onWait, output: active.output, notes, onResult } };
	};
	/** One proxy request in the session (connecting it first if needed). */
	const answer = async (
		input: ProxyInput,
		signal: AbortSignal | undefined,
		onUpdate: OnUpdate | undefined,
		ctx: ExtensionContext,
	) => {
		const { active, callPath, options } = await prepare(signal, onUpdate, ctx);
		return callPath.runProxy(active.lifecycle, input, options);
	};
	/**
	 * A Pi tool's or a direct tool's call, by its tool (no name to resolve). `viaPi`: a direct tool on
	 * Pi 1.5 runs as the Pi tool it is (hooks and --tools see its real name), as `mcp` runs it;
	 * `onResult` hears a call's whole result (what a Pi tool gives scripts).
	 */
	const callRef = async (
		ref: ToolRef,
		args: unknown,
		signal: AbortSignal | undefined,
		onUpdate: OnUpdate | undefined,
		ctx: ExtensionContext,
		how: { viaPi?: PiRoutes; onResult?: (result: McpResultLike) => void },
	): Promise<ProxyResult> => {
		const { active, callPath, options } = await prepare(signal, onUpdate, ctx, how.onResult);
		const plan = await callPath.planRefCall(active.lifecycle, ref, args, options);
		if (how.viaPi && callsNested(ctx)) return runThroughPi(how.viaPi, active, plan, ctx, signal, onUpdate);
		return callPath.runCallPlan(active.lifecycle, plan, options);
	};

	// Pi 1.5: MCP tools are Pi tools too (codemode, tool_search, permission hooks reach them).
	const piTools = isPi15(pi)
		? new McpPiTools(pi, async (tool, args, signal, onUpdate, ctx) => {
				let result: McpResultLike | undefined;
				const onResult = (r: McpResultLike) => {
					result = r;
				};
				const answered = await callRef(tool, args, signal, onUpdate as OnUpdate, ctx as ExtensionContext, { onResult });
				return { content: answered.content, details: answered.details, isError: answered.isError, result };
			})
		: undefined;
	const resourceTools = isPi15(pi) ? new ResourcePiTools(pi, () => requireRuntime()) : undefined;
	// Pi 1.5's tool_search and codemode's searchTools() ranked by our engine (registered while loading: that replaces Pi's).
	if (isPi15(pi)) registerToolSearch(pi as unknown as ToolSearchApi);

	const run = async (
		input: ProxyInput,
		signal: AbortSignal | undefined,
		onUpdate: OnUpdate | undefined,
		ctx: ExtensionContext,
	) => {
		// On Pi 1.5 a call through `mcp` is run as the Pi tool it is, so tool_call/tool_result hooks and
		// permission rules see (and may block) the real `mcp__server__tool` or `read_mcp_resource`.
		const routes = piTools && resourceTools ? { tools: piTools, resources: resourceTools } : undefined;
		const active = routes ? await requireRuntime(ctx) : undefined;
		const viaPi = routes && active ? await callThroughPi(routes, active, input, ctx, signal, onUpdate) : undefined;
		const result = viaPi ?? (await answer(input, signal, onUpdate, ctx));
		// Pi marks a thrown error as a failed tool call; its message is what the model reads.
		if (result.isError) throw new Error(contentText(result.content));
		return { content: result.content, details: result.details };
	};
	const direct = new DirectPiTools(
		pi as unknown as Pi15ToolApi,
		async (tool, args, signal, onUpdate, ctx) => {
			const viaPi = piTools && resourceTools ? { tools: piTools, resources: resourceTools } : undefined;
			const result = await callRef(tool, args, signal, onUpdate as OnUpdate, ctx as ExtensionContext, { viaPi });
			// Pi marks a thrown error as a failed tool call; its message is what the model reads.
			if (result.isError) throw new Error(contentText(result.content));
			return { content: result.content, details: result.details };
		},
		PROXY_TOOL_NAME,
		piTools !== undefined,
	);

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
	let proxyShown = { description: "", declared: true, key: "" };
	const registerProxy = (description: string, declared = true) => {
		// Each registration after load makes Pi 1.5 rebuild its tool registry: only a change registers again.
		const shown = `${declared}\0${description}`;
		if (shown === proxyShown.key) return;
		proxyShown = { description, declared, key: shown };
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
	/** With codemode reaching MCP tools, the model does not see `mcp` declared (Pi 1.5's own MCP shows no such tool). */
	const hideProxyUnderCodemode = () => {
		const activeTools = pi.getActiveTools();
		if (surface === "codemode" && activeTools.includes(PROXY_TOOL_NAME))
			pi.setActiveTools(activeTools.filter((name) => name !== PROXY_TOOL_NAME));
	};

	/** The `mcp` tool again, its description naming the session's servers; hidden from the model under codemode. */
	const describeServers = (active: McpRuntime) => {
		registerProxy(proxyDescription(active.serverBlurbs()), surface === "mcp");
		hideProxyUnderCodemode();
	};

	const registeredServers = (): RegisteredServer[] =>
		typeof pi15.getMcpServers === "function" ? pi15.getMcpServers() : [];

	/** What the session start sees of Pi that the config does not say (a snapshot holds only while it stays). */
	const sessionInputs = (ctx: ExtensionContext): SessionInputs => {
		const directNames = direct.names();
		const ours = new Set([
			PROXY_TOOL_NAME,
			...directNames,
			...(piTools?.names() ?? []),
			...(resourceTools?.names() ?? []),
		]);
		return {
			// Pi 1.5's trust decides only whether <cwd>/.pi/mcp.json is read (and approved).
			trusted: existsSync(join(ctx.cwd, ".pi", "mcp.json")) ? projectTrust(ctx) : undefined,
			// As Pi hands them over: the same extension registers the same servers the same way.
			registered: JSON.stringify(registeredServers()),
			// Direct tools are named around other extensions' tools; without direct tools they do not matter.
			otherTools:
				directNames.length > 0
					? pi
							.getAllTools()
							.map((t) => t.name)
							.filter((name) => !ours.has(name))
							.sort()
							.join(",")
					: "",
		};
	};

	/** Builds and starts a session's runtime (ending the previous one), and hooks it to Pi. */
	const activate = async (ctx: ExtensionContext, registered: readonly RegisteredServer[]): Promise<McpRuntime> => {
		void runtime?.shutdown();
		runtime = undefined;
		const options = { cwd: ctx.cwd, piTrusted: projectTrust(ctx), registered, onlyServers: only };
		const active = early?.servesLike({ ...options, configEnv: configEnv.env }) ? early : await newRuntime(options);
		early = undefined; // never started: nothing to end
		const host = await clientHost(ctx);
		runtime = active;
		active.client.host = host;
		active.start();
		direct.sync(active);
		piTools?.sync(active);
		resourceTools?.sync(active);
		// Pi 1.5 with its own tools reaching MCP tools (codemode, tool_search, direct ones): the model sees
		// what Pi 1.5's own MCP shows it; `settings.surface: "mcp"` keeps the `mcp` tool declared instead.
		const viaCodemode =
			piTools?.activateDiscovery(piTools.discoveryWanted(active)) === true && active.config.settings.surface !== "mcp";
		surface = viaCodemode ? "codemode" : "mcp";
		describeServers(active);
		const update = () => {
			const line = statusLine(active.lifecycle);
			ctx.ui.setStatus("mcp", line === undefined ? undefined : oneLine(line));
			if (active === runtime) prompts.sync(active); // prompts a server listed for the first time
			if (active === runtime) piTools?.sync(active); // tools of a server that connected for the first time
			if (active === runtime) resourceTools?.sync(active);
			// 2.36's status event, for the GUIs built on it.
			if (active === runtime) emitStatus(pi, statusSnapshot(active.lifecycle, direct.toolServers()));
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
		const active = runtime ?? (await building);
		if (!active || !(await active.reload(registered))) {
			await build(ctx, registered);
			return;
		}
		if (active !== runtime) return;
		// Prompts, Pi tools and resource tools followed already: the reload told the runtime's listeners.
		direct.sync(active);
		describeServers(active);
	};

	const prompts = new PromptCommands(
		pi,
		() => ensureRuntime(),
		(ctx, text, level) => say(ctx, runtime, text, level),
	);

	// What the last start registered, if every input is as it was: registered again from it, and the
	// runtime waits for the first use. Otherwise, on Pi 1.5, the cached tools of the servers that may
	// run without a question are registered now, when a registration is cheap (after load each one
	// makes Pi rebuild its tool registry); the session start registers only what differs.
	let snapshot = readSnapshot(agentDir, key, configEnv.env);
	let early: McpRuntime | undefined;
	if (snapshot) {
		const { state } = snapshot;
		try {
			piTools?.restore(state.piTools ?? { tools: [], byServer: {} });
			registerProxy(state.proxy.description, state.proxy.declared);
			resourceTools?.restore(state.resources);
			direct.restore(state.direct);
		} catch {
			// A snapshot this code cannot read (edited by hand): the long way, whose start registers
			// again whatever differs from what got registered here, and keeps a new snapshot.
			snapshot = undefined;
		}
	}
	if (!snapshot && piTools) {
		try {
			early = await newRuntime({ cwd: process.cwd(), piTrusted: false, onlyServers: only });
			piTools.sync(early);
			// `mcp` and the resource tools as the session start will most likely want them (the early
			// runtime's servers; hidden from the model unless `surface: "mcp"`): the start registers
			// them again only if that guess was wrong.
			registerProxy(proxyDescription(early.serverBlurbs()), early.config.settings.surface === "mcp");
			resourceTools?.sync(early);
		} catch {
			// A head start only: the session start builds the runtime again and reports what is wrong.
			early = undefined;
		}
	}
	if (!proxyShown.key) registerProxy(PROXY_DESCRIPTION);

	registerCommands(pi, {
		runtime: () => ensureRuntime(),
		names: () =>
			runtime
				? { servers: runtime.lifecycle.serverNames(), disabled: [...(runtime.config.disabled?.keys() ?? [])] }
				: { servers: snapshot?.state.servers ?? [], disabled: snapshot?.state.disabled ?? [] },
		direct: () => direct.summary,
		fromSnapshot: () => startedFromSnapshot,
		decided: (active) => {
			direct.sync(active);
			prompts.sync(active);
		},
		// Config problems were reported at start; /mcp lists them again on demand.
		reload: (ctx) => reload(ctx, registeredServers()),
	});
	// After /mcp, as a full start registers them.
	try {
		if (snapshot) prompts.restore(snapshot.state.prompts);
	} catch {
		snapshot = undefined; // as above: the long way
	}

	let startedFromSnapshot = false;
	let firstStart = true;
	/** From a snapshot: what the start showed, and the discovery tools it activated; no runtime yet. */
	const startFromSnapshot = (state: StartState, ctx: ExtensionContext) => {
		startedFromSnapshot = true;
		const viaCodemode = piTools?.activateDiscovery(state.discovery.activate) === true && state.discovery.viaCodemode;
		surface = viaCodemode ? "codemode" : "mcp";
		hideProxyUnderCodemode();
		ctx.ui.setStatus("mcp", state.status);
		showNotes(state.notes, ctx);
	};

	/** After a start that did nothing but show the cache: what it registered and showed, for the next one. */
	const keepSnapshot = (active: McpRuntime, notes: Notes, session: SessionInputs) => {
		const files = inputsOf.get(active);
		if (!files || !active.startsQuietly()) return;
		const line = statusLine(active.lifecycle);
		const state: StartState = {
			proxy: { description: proxyShown.description, declared: proxyShown.declared },
			...(piTools ? { piTools: piTools.state() } : {}),
			...(resourceTools?.state() ? { resources: resourceTools.state() } : {}),
			direct: direct.state(),
			prompts: prompts.state(),
			discovery: {
				activate: piTools?.discoveryWanted(active) ?? [],
				viaCodemode: active.config.settings.surface !== "mcp",
			},
			...(line === undefined ? {} : { status: oneLine(line) }),
			...(notes ? { notes } : {}),
			...(surface === "codemode" && serversSection(active) ? { section: serversSection(active) } : {}),
			servers: active.lifecycle.serverNames(),
			disabled: [...(active.config.disabled?.keys() ?? [])],
		};
		try {
			writeSnapshot(
				agentDir,
				{
					key,
					files,
					envNames: configEnv.names,
					env: configEnv.env,
					expiresAt: active.lifecycle.cacheExpiry(),
					session,
				},
				state,
			);
		} catch {
			// Only the next start's head start is lost (an unwritable agent dir): it starts the long way.
		}
	};

	pi.on("session_start", async (_event, ctx) => {
		sessionCtx = ctx;
		const limit = onlyServers(pi);
		const sameLimit = JSON.stringify(limit) === JSON.stringify(only);
		only = limit;
		key = snapshotKey({ cwd: ctx.cwd, onlyServers: only, piLine });
		// Only the first session after load: a later one (/new, /resume) follows what the last one left.
		const fresh = firstStart;
		firstStart = false;
		if (
			snapshot &&
			fresh &&
			sameLimit &&
			!runtime &&
			ctx.cwd === process.cwd() &&
			matchesSession(snapshot.session, sessionInputs(ctx))
		) {
			startFromSnapshot(snapshot.state, ctx);
			return;
		}
		startedFromSnapshot = false;
		const active = await build(ctx, registeredServers());
		const notes = await startNotes(active);
		showNotes(notes, ctx);
		const pending = active.pendingApproval();
		if (pending.length === 0) {
			keepSnapshot(active, notes, sessionInputs(ctx));
			return;
		}
		if (!ctx.hasUI) return;
		// Asked in the background: Pi starts at once, and the servers wait for the answer.
		const [{ askApproval }, { decidedAnswer }, { storedSignInNote }, { safeDialogs }] = await Promise.all([
			loadApprovalQuestion(),
			loadApproveFlow(),
			loadOauthHandler(),
			loadDialogs(),
		]);
		askApproval(safeDialogs(ctx.ui), pending, storedSignInNote(active.agentDir))
			.then(async (decided) => {
				if (active !== runtime) return;
				// The answer covers the launches shown: one changed meanwhile is not decided, and the user is told.
				const answer = await decidedAnswer(active, decided);
				if (answer.level !== "info") ctx.ui.notify(terminalSafe(answer.text), answer.level);
				direct.sync(active);
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
	});

	/** What a start prints: config problems, the direct tools' cost, project servers awaiting approval (without a UI). */
	const startNotes = async (active: McpRuntime): Promise<Notes> => {
		const lines = active.problemLines();
		const summary = direct.summary;
		if (summary && summary.tokens > DIRECT_TOOLS_TOKEN_WARNING) {
			lines.push(
				`warning: the ${summary.names.length} direct MCP tools cost about ${summary.tokens} tokens of context; consider fewer (directTools: ["tool", ...]).`,
			);
		}
		const pending = active.pendingApproval();
		if (pending.length > 0 && !sessionCtx?.hasUI) {
			// Everything each would run and send, with the code that approves exactly that later.
			const { pendingNotice } = await loadApproveFlow();
			lines.push(await pendingNotice(active, pending));
		}
		if (lines.length === 0) return undefined;
		const level = active.config.problems.some((p) => p.severity === "error") ? "error" : "warning";
		return { text: terminalSafe(`MCP:\n${lines.join("\n")}`), level };
	};

	// The servers codemode scripts reach, in the system prompt as Pi 1.5's MCP lists them (Pi appends a
	// changed section to the conversation instead of rewriting the prompt, so its cache holds).
	if (piTools)
		pi.on("before_agent_start", (event) => {
			const sections = (event as { systemPromptOptions?: { sections?: Record<string, string> } }).systemPromptOptions
				?.sections;
			if (!sections) return;
			const section = surface !== "codemode" ? undefined : runtime ? serversSection(runtime) : snapshot?.state.section;
			if (section) sections[SERVERS_SECTION] = section;
			else delete sections[SERVERS_SECTION];
		});

	// A codemode script or tool_search may reach servers whose tools are not registered yet (no
	// cache): they connect (and register their tools) before the call runs, as in Pi 1.5. A start
	// from a snapshot had every allowed server's tools cached: there is nothing to wait for.
	if (piTools)
		pi.on("tool_call", async (event, ctx) =>
			waitForReachedServers(pi as unknown as Pi15ToolApi, runtime, event, ctx.signal),
		);

	// Handling this event is how Pi 1.5 knows an extension serves the servers others register.
	pi15.on("mcp_servers_change", async (event, ctx) => {
		if (runtime || sessionCtx) await reload(ctx, event.servers);
	});

	// While the model thinks: the runtime is built (a start from a snapshot) and the MCP client loaded.
	const stopWarming = warmWhileModelThinks(pi, () => ({
		warmUp: () => {
			// A failed build here is not lost: the call that needs the runtime builds it and reports why.
			ensureRuntime().then(
				(active) => active?.warmUp(),
				() => undefined,
			);
		},
	}));

	// A server starts as soon as the model's streamed tool call names it (pi/prestart.ts).
	prestartOnStreamedCalls(pi, PROXY_TOOL_NAME, () =>
		runtime
			? prestartTarget(runtime, { direct, piTools, tools: isPi15(pi) ? (pi as unknown as Pi15ToolApi) : undefined })
			: undefined,
	);

	pi.on("session_shutdown", async () => {
		stopWarming();
		sessionCtx = undefined;
		const ending = runtime ?? (await building?.catch(() => undefined));
		runtime = undefined;
		await ending?.shutdown();
		emitStatus(pi, EMPTY_STATUS);
	});
}
