// What an MCP App's view may ask of a Pi session (apps/app-session.ts's `AppHost`), each through
// the route the model's own request takes. A tool the model may call too: on Pi 1.5 as its Pi tool
// through `ctx.executeTool` (Pi's `tool_call`/`tool_result` hooks, `--tools`, `approveTools`: the
// route of `mcp({tool})`, pi-tools/calls-through-pi.ts), on pi 0.73 through the proxy (`approveTools`,
// the project's approval, and its `--tools` allowlist as it limits the model: pi-tools/tool-selection.ts).
// A tool for the app only has no Pi tool (one would show it to the model): `approveTools` and the
// project's approval, and Pi's `--tools` and `--exclude-tools` as Pi applies them to MCP tools. A read:
// `read_mcp_resource` on Pi 1.5, the proxy's read on pi 0.73. A message: shown to the user whole,
// sent as theirs only on "Send" (Pi's `input` hooks see it, as any message an extension sends),
// refused when it holds what a screen does not show. A link: opened only on the user's "Open",
// one question at a time. Loaded with the first app.

import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { CallToolResult, ReadResourceResult } from "@modelcontextprotocol/client";
import type { AppHost } from "../apps/app-session.ts";
import type { AppsSetting } from "../apps/app-sessions.ts";
import { ToolPatterns } from "../catalog/tool-patterns.ts";
import { askPaged } from "../client/paged-question.ts";
import { safeDialogs } from "../client/user-dialogs.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { openFileInBrowser, openSystemBrowser } from "../oauth/open-browser.ts";
import { callThroughPi, type PiRoutes } from "../pi-tools/calls-through-pi.ts";
import { callsNested } from "../pi-tools/session-calls.ts";
import { pi15ToolLimit, pi073ToolLimit } from "../pi-tools/tool-selection.ts";
import { readResource } from "../proxy/calls.ts";
import { refusal, runProxy } from "../proxy/proxy-tool.ts";
import { PROXY_TOOL_NAME, type ProxyInput } from "../proxy/surface.ts";
import { contentText } from "../proxy/tool-results.ts";
import { terminalSafe } from "../trust/safe-text.ts";
import { exposureOf, type ToolMetadata } from "../types.ts";

const OPEN = "Open it in the browser";
const DONT_OPEN = "Don't open";
const SEND = "Send";
const DONT_SEND = "Don't send";
export const HIDDEN_IN_PROMPT =
	"the message holds characters a screen does not show (terminal sequences, invisible or reordering characters); only text the user can read is sent as theirs";

/**
 * The session's apps setting: on unless `settings.apps` is false; interactive where Pi has a UI;
 * each page opened through a private launch file in `launchDir`.
 */
export function appsSetting(runtime: McpRuntime, ctx: ExtensionContext, launchDir: string): AppsSetting {
	return {
		enabled: runtime.config.settings.apps,
		interactive: ctx.hasUI,
		launchDir,
		open: openFileInBrowser,
		notify: (text, level) => ctx.ui.notify(terminalSafe(text), level),
	};
}

/** The routes of a view opened by a call made in `ctx` (whose `executeTool` its calls use on Pi 1.5). */
export function piAppHost(
	pi: ExtensionAPI,
	ctx: ExtensionContext,
	runtime: McpRuntime,
	routes: PiRoutes | undefined,
	io: HostIo = {},
): AppHost {
	const { lifecycle } = runtime;
	const openBrowser = io.openBrowser ?? openSystemBrowser;
	// Pi 1.5's own check of a tool's name (`executeTool`) never sees a tool for the app only, nor
	// pi 0.73's any call of a view: what Pi's command line leaves out is refused here.
	const argv = io.argv ?? process.argv;
	const limit = routes
		? pi15ToolLimit(argv)
		: pi073ToolLimit(argv, PROXY_TOOL_NAME, (tool) => io.directName?.(tool.server, tool.name));
	/** Whether a question about a link is open: a view asks one at a time, a second is refused unasked. */
	let askingLink = false;
	/** Runs `input` as the model's `mcp(input)` would run; what the Pi tool hands scripts, if it ran. */
	const asModel = async (input: ProxyInput, signal: AbortSignal) => {
		let structured: object | undefined;
		const heard = (value: object) => {
			structured = value;
		};
		if (!routes) return { answer: await runProxy(lifecycle, input, { signal, onResult: heard }), structured };
		// On Pi 1.5 never around Pi: without a way through it (no executeTool here) the request is refused.
		const viaPi = callsNested(ctx)
			? await callThroughPi(routes, runtime, input, ctx, signal, undefined, heard)
			: undefined;
		return { answer: viaPi ?? refusal("Pi cannot run this request from here."), structured };
	};
	return {
		lifecycle,
		configured: (tool) => configured(runtime, tool),
		async callTool(route, args, signal) {
			const { tool } = route;
			const outOfReach = limit(tool, route.kind);
			if (outOfReach) return refusedResult(outOfReach);
			if (route.kind === "app-only") {
				const refused = await lifecycle.approveCall(tool, args, signal);
				if (refused) return refusedResult(refused.message);
				const options = { signal, taskSupport: tool.taskSupport };
				return (await lifecycle.callTool(tool.server, tool.name, args, options)) as CallToolResult;
			}
			const named = lifecycle.catalog.forServer(tool.server).find((t) => t.name === tool.name);
			if (!named) return refusedResult(`"${tool.name}" is not a tool of "${tool.server}" in this session.`);
			const { answer, structured } = await asModel({ tool: named.qualifiedName, server: tool.server, args }, signal);
			// Refused or blocked before the server (a hook, an approval): the answer says why.
			return structured ? (structured as CallToolResult) : refusedResult(contentText(answer.content));
		},
		async readResource(server, uri, signal) {
			if (!routes) {
				const read = await readResource(lifecycle, { server, uri, label: uri, details: { server, uri } }, { signal });
				if (read.contents) return { contents: read.contents };
				throw new Error(contentText(read.answer.content));
			}
			const { answer, structured } = await asModel({ tool: uri, server }, signal);
			const contents = (structured as { contents?: ReadResourceResult["contents"] } | undefined)?.contents;
			if (contents) return { contents };
			throw new Error(contentText(answer.content));
		},
		async sendPrompt(server, text) {
			if (!ctx.hasUI) return "declined";
			// The user's "Send" covers exactly what they read: a text the dialog would show otherwise
			// (terminal sequences, invisible characters such as Unicode tags) is refused unasked, and the
			// rest is shown whole, in pages, never cut.
			if (terminalSafe(text) !== text) return { refused: HIDDEN_IN_PROMPT };
			const question = [`The app of MCP server "${server}" asks to send this message to the agent, as yours:`, text];
			const answer = await askPaged(safeDialogs(ctx.ui), { text: question, safe: DONT_SEND, choices: [SEND] });
			if (answer !== SEND) return "declined";
			pi.sendUserMessage(text, { deliverAs: "followUp" });
			return "sent";
		},
		async openLink(server, url) {
			if (!ctx.hasUI || askingLink) return false;
			askingLink = true;
			try {
				const question = [`The app of MCP server "${server}" asks to open this page in your browser:`, url];
				const answer = await askPaged(safeDialogs(ctx.ui), { text: question, safe: DONT_OPEN, choices: [OPEN] });
				if (answer !== OPEN) return false;
				openBrowser(url);
				return true;
			} finally {
				askingLink = false;
			}
		},
	};
}

/** What `piAppHost` reaches outside Pi (injectable for tests). */
export interface HostIo {
	/** Opens a link the user agreed to (default: the system browser). */
	readonly openBrowser?: (url: string) => void;
	/** Pi's command line (default: process.argv). */
	readonly argv?: readonly string[];
	/** pi 0.73: the name of a tool's direct Pi tool, if it has one (its `--tools` may name it). */
	readonly directName?: (server: string, tool: string) => string | undefined;
}

/** Whether the user's config lets the tool be used at all: not `hidden`, kept by `includeTools`/`excludeTools`. */
function configured(runtime: McpRuntime, tool: ToolMetadata): boolean {
	const entry = runtime.config.servers.get(tool.server);
	if (!entry || exposureOf(entry.exposure, tool.name) === "hidden") return false;
	const { includeTools, excludeTools } = entry;
	if (!includeTools?.length && !excludeTools?.length) return true;
	const patterns = new ToolPatterns(entry.name, runtime.config.settings.toolPrefix, [tool]);
	return patterns.kept([tool], includeTools, excludeTools).length === 1;
}

function refusedResult(text: string): CallToolResult {
	return { isError: true, content: [{ type: "text", text }] };
}
