// The Pi extension: wires config, metadata cache, server manager, lifecycle and the `mcp` proxy
// tool into Pi's session events. Logic lives in the modules; this file only connects them.
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { formatProblem, loadConfig, resolveAgentDir } from "./config.ts";
import { ServerLifecycle } from "./lifecycle.ts";
import { MetadataCache } from "./metadata-cache.ts";
import { NpxResolver } from "./npx-resolver.ts";
import { PROXY_DESCRIPTION, PROXY_TOOL_NAME, ProxyParams, runProxy } from "./proxy-tool.ts";
import { McpServerManager } from "./server-manager.ts";
import { contentText } from "./tool-registrar.ts";

export default function mcpAdapter(pi: ExtensionAPI): void {
	let lifecycle: ServerLifecycle | undefined;
	let killOnExit: (() => void) | undefined;
	let resolver: NpxResolver | undefined;

	const start = (cwd: string): ServerLifecycle => {
		const agentDir = resolveAgentDir();
		const config = loadConfig({ cwd, agentDir });
		resolver = new NpxResolver({ agentDir });
		const manager = new McpServerManager({ requestTimeoutMs: config.settings.requestTimeoutMs, launch: resolver.launcher() });
		const current = new ServerLifecycle({ config, manager, cache: new MetadataCache(agentDir) });
		// If Pi exits without awaiting session_shutdown, no server may outlive it.
		killOnExit = () => manager.killAllSync();
		process.once("exit", killOnExit);
		current.start();
		lifecycle = current;
		return current;
	};

	pi.registerTool({
		name: PROXY_TOOL_NAME,
		label: "MCP",
		description: PROXY_DESCRIPTION,
		parameters: ProxyParams,
		async execute(_id, params, signal, _onUpdate, ctx) {
			const result = await runProxy(lifecycle ?? start(ctx.cwd), params, { signal });
			// Pi marks a thrown error as a failed tool call; its message is what the model reads.
			if (result.isError) throw new Error(contentText(result.content));
			return { content: result.content, details: result.details };
		},
	});

	pi.on("session_start", (_event, ctx) => {
		if (lifecycle) return;
		reportProblems(start(ctx.cwd), ctx);
	});

	pi.on("session_shutdown", async () => {
		const current = lifecycle;
		lifecycle = undefined;
		if (killOnExit) process.off("exit", killOnExit);
		resolver?.dispose();
		await current?.shutdown();
	});
}

function reportProblems(lifecycle: ServerLifecycle, ctx: ExtensionContext): void {
	const problems = lifecycle.config.problems;
	if (problems.length === 0) return;
	const message = `MCP config:\n${problems.map(formatProblem).join("\n")}`;
	if (ctx.hasUI) ctx.ui.notify(message, problems.some((p) => p.severity === "error") ? "error" : "warning");
	else console.error(message);
}
