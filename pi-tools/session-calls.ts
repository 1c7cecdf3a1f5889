// Every route from Pi to a call in the session: the `mcp` tool's modes, Pi 1.5's tools (every MCP
// tool a Pi tool) and direct tools. Each builds what its request runs with (the runtime, in the
// caller's folder; progress and waits reported to Pi; the output guard; what the server's questions
// came to) and hands it to the proxy's call path, loaded at the first request: `mcp` by
// its mode and name, the others by their tool (no name to resolve). On Pi 1.5 a tool called through
// `mcp`, and a direct tool, run as the Pi tool they are (pi-tools/calls-through-pi.ts), so Pi's hooks and
// `--tools` see the real name.
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { McpRuntime } from "../mcp-runtime.ts";
import type { ProxyResult, ProxyRunOptions } from "../proxy/answer.ts";
import type { ToolRef } from "../proxy/calls.ts";
import { loadCallPath } from "../proxy/proxy-tool.lazy.ts";
import { callsTool, type ProxyInput } from "../proxy/surface.ts";
import type { McpResultLike } from "../proxy/tool-results.ts";
import type { Progress } from "../server-manager.ts";
import { callThroughPi, type PiRoutes, runThroughPi } from "./calls-through-pi.ts";
import type { DirectCall } from "./direct-pi-tools.ts";
import type { PiToolCall } from "./pi-tools.ts";

/** Progress and waits, as Pi's `onUpdate` takes them. */
type OnUpdate = (partial: { content: { type: "text"; text: string }[]; details: unknown }) => void;

/** What a tool's execute returns to Pi (a thrown error marks a failed call). */
type PiAnswer = { content: ProxyResult["content"]; details: unknown };

/** Pi 1.5's context of a running tool can call tools itself (`ctx.executeTool`); pi 0.73's cannot. */
export const callsNested = (ctx: unknown) => typeof (ctx as { executeTool?: unknown }).executeTool === "function";

export class SessionCalls {
	constructor(
		/** The session's runtime, built first if it is not yet. */
		private readonly runtime: (ctx: ExtensionContext) => Promise<McpRuntime>,
		/** Pi 1.5: the Pi tools a call may become; undefined on pi 0.73. */
		private readonly routes: () => PiRoutes | undefined,
		/** MCP Apps: what shows a call's view (a tool result's `ui://` resource), for a call run in `ctx`. */
		private readonly showApp?: (runtime: McpRuntime, ctx: ExtensionContext) => ProxyRunOptions["showApp"],
	) {}

	/** The `mcp` tool's execute. */
	async proxy(input: ProxyInput, signal: AbortSignal | undefined, onUpdate: unknown, ctx: ExtensionContext) {
		const { active, callPath, options } = await this.prepare(signal, onUpdate as OnUpdate | undefined, ctx);
		const routes = this.routes();
		// On Pi 1.5 a call through `mcp` is run as the Pi tool it is, so tool_call/tool_result hooks and
		// permission rules see (and may block) the real `mcp__server__tool` or `read_mcp_resource`.
		const viaPi =
			routes && callsTool(input) && callsNested(ctx)
				? await callThroughPi(routes, active, input, ctx, signal, onUpdate as OnUpdate)
				: undefined;
		return answerPi(viaPi ?? (await callPath.runProxy(active.lifecycle, input, options)), callPath.contentText);
	}

	/** A Pi 1.5 tool's execute: its MCP tool's whole result too, which is what scripts get. */
	readonly piTool: PiToolCall = async (tool, args, signal, onUpdate, ctx) => {
		let result: McpResultLike | undefined;
		const onResult = (whole: McpResultLike) => {
			result = whole;
		};
		const answer = await this.call(tool, args, signal, onUpdate, ctx as ExtensionContext, { onResult });
		return { content: answer.content, details: answer.details, isError: answer.isError, result };
	};

	/** A direct tool's execute: on Pi 1.5 run as the Pi tool it is, as `mcp` runs it. */
	readonly direct: DirectCall = async (tool, args, signal, onUpdate, ctx) => {
		const answer = await this.call(tool, args, signal, onUpdate, ctx as ExtensionContext, { viaPi: this.routes() });
		return answerPi(answer, (await loadCallPath()).contentText);
	};

	/** A Pi tool's or a direct tool's call, by its tool: planned (no name to resolve), then run here or as its Pi tool. */
	private async call(
		ref: ToolRef,
		args: unknown,
		signal: AbortSignal | undefined,
		onUpdate: unknown,
		ctx: ExtensionContext,
		how: { viaPi?: PiRoutes; onResult?: (result: McpResultLike) => void },
	): Promise<ProxyResult> {
		const { active, callPath, options } = await this.prepare(signal, onUpdate as OnUpdate, ctx, how.onResult);
		const plan = await callPath.planRefCall(active.lifecycle, ref, args, options);
		if (how.viaPi && callsNested(ctx)) {
			return runThroughPi(how.viaPi, active, plan, ctx, signal, onUpdate as OnUpdate);
		}
		return callPath.runCallPlan(active.lifecycle, plan, options);
	}

	/** What a request runs with: the runtime (in the caller's folder), the call path, and options that report to Pi. */
	private async prepare(
		signal: AbortSignal | undefined,
		onUpdate: OnUpdate | undefined,
		ctx: ExtensionContext,
		onResult?: (result: McpResultLike) => void,
	) {
		const active = await this.runtime(ctx);
		if (ctx.cwd !== active.cwd) await active.setWorkingFolder(ctx.cwd);
		// The proxy's call path loads at the first request, not with the extension (start-up cost).
		const callPath = await loadCallPath();
		const onProgress = (progress: Progress) =>
			onUpdate?.({
				content: [{ type: "text", text: callPath.progressText(progress) }],
				details: { mode: "tool", progress },
			});
		// Why an answer waits (a server installing or starting): shown to the user as the call's progress.
		const onWait = (text: string) => onUpdate?.({ content: [{ type: "text", text }], details: { waiting: text } });
		const notes = (server: string) => active.client.takeNotes(server);
		const showApp = this.showApp?.(active, ctx);
		const options: ProxyRunOptions = { signal, onProgress, onWait, output: active.output, notes, onResult, showApp };
		return { active, callPath, options };
	}
}

/** An answer as a tool's execute returns it: Pi marks a thrown error as a failed call, its message what the model reads. */
function answerPi(result: ProxyResult, text: (content: ProxyResult["content"]) => string): PiAnswer {
	if (result.isError) throw new Error(text(result.content));
	return { content: result.content, details: result.details };
}
