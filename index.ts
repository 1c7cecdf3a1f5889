// The Pi extension: wires the runtime (config, cache, manager, lifecycle), the `mcp` proxy tool,
// direct tools, the /mcp commands and the status line into Pi's events. Logic lives in modules.
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { formatProblem } from "./config.ts";
import { McpRuntime } from "./mcp-runtime.ts";
import { normalizeProxyInput, PROXY_DESCRIPTION, PROXY_TOOL_NAME, type ProxyInput, ProxyParams, progressText, runProxy } from "./proxy-tool.ts";
import type { Progress } from "./server-manager.ts";
import { registerCommands, statusLine } from "./slash-commands.ts";
import { contentText, DIRECT_TOOLS_TOKEN_WARNING, type DirectPlan, directSelection, planDirectTools } from "./tool-registrar.ts";

type OnUpdate = (partial: { content: { type: "text"; text: string }[]; details: unknown }) => void;

export default function mcpAdapter(pi: ExtensionAPI): void {
	// Built at load from the cache alone (no server starts), so direct tools exist before the first turn.
	let runtime: McpRuntime | undefined = new McpRuntime({ cwd: process.cwd() });
	const direct: DirectPlan = planDirectTools(
		runtime.lifecycle.catalog,
		directSelection(runtime.config, runtime.env),
		runtime.lifecycle.serverNames(),
	);
	let started = false;

	const current = (cwd: string): McpRuntime => {
		if (!runtime || runtime.cwd !== cwd) runtime = new McpRuntime({ cwd });
		if (!started) {
			runtime.start();
			started = true;
		}
		return runtime;
	};

	const run = async (input: ProxyInput, signal: AbortSignal | undefined, onUpdate: OnUpdate | undefined, ctx: ExtensionContext) => {
		const active = current(ctx.cwd);
		const onProgress = (p: Progress) =>
			onUpdate?.({ content: [{ type: "text", text: progressText(p) }], details: { mode: "tool", progress: p } });
		const result = await runProxy(active.lifecycle, input, { signal, onProgress, output: active.output });
		// Pi marks a thrown error as a failed tool call; its message is what the model reads.
		if (result.isError) throw new Error(contentText(result.content));
		return { content: result.content, details: result.details };
	};

	pi.registerTool({
		name: PROXY_TOOL_NAME,
		label: "MCP",
		description: PROXY_DESCRIPTION,
		parameters: ProxyParams,
		prepareArguments: normalizeProxyInput,
		execute: (_id, params, signal, onUpdate, ctx) => run(params, signal, onUpdate, ctx),
	});

	for (const tool of direct.tools) {
		pi.registerTool({
			name: tool.name,
			label: `${tool.tool.server}: ${tool.tool.name}`,
			description: tool.description,
			// The server's own JSON Schema: Pi validates plain JSON Schemas as well as TypeBox ones.
			parameters: tool.parameters as unknown as typeof ProxyParams,
			execute: (_id, params, signal, onUpdate, ctx) =>
				run({ tool: tool.tool.qualifiedName, server: tool.tool.server, args: params }, signal, onUpdate, ctx),
		});
	}

	registerCommands(pi, { runtime: () => runtime, direct: () => direct });

	pi.on("session_start", (_event, ctx) => {
		const active = current(ctx.cwd);
		const update = () => ctx.ui.setStatus("mcp", statusLine(active.lifecycle));
		active.onChange(update);
		update();
		report(active, direct, ctx);
	});

	pi.on("session_shutdown", async () => {
		const ending = runtime;
		runtime = undefined;
		started = false;
		await ending?.shutdown();
	});
}

function report(runtime: McpRuntime, direct: DirectPlan, ctx: ExtensionContext): void {
	const lines = runtime.config.problems.map(formatProblem);
	if (direct.tokens > DIRECT_TOOLS_TOKEN_WARNING) {
		lines.push(`warning: the ${direct.tools.length} direct MCP tools cost about ${direct.tokens} tokens of context; consider fewer (directTools: ["tool", ...]).`);
	}
	if (lines.length === 0) return;
	const message = `MCP:\n${lines.join("\n")}`;
	if (ctx.hasUI) ctx.ui.notify(message, runtime.config.problems.some((p) => p.severity === "error") ? "error" : "warning");
	else console.error(message);
}
