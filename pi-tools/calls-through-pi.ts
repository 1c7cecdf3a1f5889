// Pi 1.5: a call through `mcp({tool})`, from the model, a codemode script (`tools.mcp(...)`) or a
// direct tool, runs as the Pi tool it is, through `ctx.executeTool`: `tool_call` and `tool_result`
// hooks, permission extensions and `--tools`/`--exclude-tools` see the real name and may block
// it (`mcp__server__tool`; `read_mcp_resource` for a resource read by URI or through its `get_`
// tool), and a blocked call never reaches the server. The name is resolved first, connecting its
// server when the cache does not know it (through the approval gate), and its Pi tool registered
// if it is not yet, so a first session, a changed config, an expired cache and a tool a server
// added later all take this one route. pi 0.73 has no nested tool calls: there the proxy answers.

import type { McpRuntime } from "../mcp-runtime.ts";
import type { ProxyResult } from "../proxy/answer.ts";
import type { CallPlan } from "../proxy/calls.ts";
import { loadCallPath } from "../proxy/proxy-tool.lazy.ts";
import { callsTool, type ProxyInput } from "../proxy/surface.ts";
import type { PiContent } from "../proxy/tool-results.ts";
import type { Progress } from "../server-manager.ts";
import type { McpPiTools } from "./pi-tools.ts";
import type { ResourcePiTools } from "./resource-pi-tools.ts";

/** Progress, as the `mcp` tool reports it (and its Pi tool, whose updates it passes on). */
type OnUpdate = (partial: { content: { type: "text"; text: string }[]; details: unknown }) => void;

/** What Pi 1.5 adds to a running tool's context (ExtensionToolContext): the tools it may call, and the call. */
interface ToolContext {
	readonly tools?: readonly { readonly name: string }[];
	executeTool?(
		name: string,
		args: unknown,
		options?: { signal?: AbortSignal; onUpdate?: OnUpdate },
	): Promise<{ isError: boolean; result?: { content?: unknown[]; details?: unknown; structuredContent?: unknown } }>;
}

/** The Pi tools a call may become. */
export interface PiRoutes {
	readonly tools: McpPiTools;
	readonly resources: ResourcePiTools;
}

/**
 * Runs `mcp({tool})` as its Pi tool; `ctx` calls tools itself (Pi 1.5's `ctx.executeTool`, which
 * the caller checked). Undefined when the input calls no tool (status, search, describe, a server's
 * list, connect: the proxy answers those, and none reaches a tool).
 * `onStructured` hears what the Pi tool hands scripts: a call's whole `CallToolResult`, a read's
 * `{ server, uri, contents }`.
 */
export async function callThroughPi(
	routes: PiRoutes,
	runtime: McpRuntime,
	input: ProxyInput,
	ctx: unknown,
	signal: AbortSignal | undefined,
	onUpdate?: OnUpdate,
	onStructured?: (value: object) => void,
): Promise<ProxyResult | undefined> {
	if (!callsTool(input)) return undefined;
	const { planToolCall, progressText } = await loadCallPath();
	const onProgress = (progress: Progress) =>
		onUpdate?.({ content: [{ type: "text", text: progressText(progress) }], details: { mode: "tool", progress } });
	// Why the call waits (its server installing or starting), shown as its progress.
	const onWait = (text: string) => onUpdate?.({ content: [{ type: "text", text }], details: { waiting: text } });
	const plan = await planToolCall(runtime.lifecycle, input, { signal, onProgress, onWait });
	return runThroughPi(routes, runtime, plan, ctx, signal, onUpdate, onStructured);
}

/** Runs a planned call (its tool resolved, its arguments parsed) as the Pi tool it is; `ctx` must call nested tools. */
export async function runThroughPi(
	routes: PiRoutes,
	runtime: McpRuntime,
	plan: CallPlan,
	ctx: unknown,
	signal: AbortSignal | undefined,
	onUpdate?: OnUpdate,
	onStructured?: (value: object) => void,
): Promise<ProxyResult> {
	const context = ctx as ToolContext & Required<Pick<ToolContext, "executeTool">>;
	if (plan.kind === "failed") return plan.result;
	const { refusal } = await loadCallPath();
	const target =
		plan.kind === "read"
			? { name: routes.resources.reader(runtime), args: { server: plan.read.server, uri: plan.read.uri } }
			: { name: routes.tools.registeredName(runtime, plan.tool), args: plan.args };
	// Never run past Pi: a tool it does not know or may not call is refused, not called directly.
	if (!target.name) {
		const tool = plan.kind === "call" ? plan.tool.qualifiedName : plan.read.label;
		return refusal(`${tool} cannot run now: its server's tools are not registered with Pi (see /mcp).`);
	}
	if (!context.tools?.some((tool) => tool.name === target.name)) {
		return refusal(
			`${target.name} cannot be called in this session: --tools, --exclude-tools or its exposure leave it out.`,
		);
	}
	const outcome = await context.executeTool(target.name, target.args, { signal, onUpdate });
	const structured = outcome.result?.structuredContent;
	if (typeof structured === "object" && structured !== null) onStructured?.(structured);
	const content = (outcome.result?.content ?? []) as PiContent[];
	// The Pi tool's details are the proxy's own answer's (server, tool, what was for the user only).
	const details = typeof outcome.result?.details === "object" ? outcome.result.details : {};
	return { content, isError: outcome.isError, details: { ...details, mode: "tool", via: target.name } };
}
