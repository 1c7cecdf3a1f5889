// What a Pi 1.x line (1.5.2, 1.6.0) sends the model before any message (every tool definition and the
// system prompt), with its built-in MCP or with this extension on the same config: the tools
// declared, the `mcp_servers` section, and the o200k tokens of it all. Used by the exposure e2e test
// and the bench.

import type { ChatRequest, Step } from "./mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "./pi-cli-harness.ts";
import type { PiHost } from "./pi-hosts.ts";
import { countTokens } from "./token-count.ts";

export interface Pi15Context {
	/** The names of the tools declared, sorted. */
	readonly tools: string[];
	/** Each declared tool's definition as sent (JSON). */
	readonly definitions: Record<string, string>;
	/** The `mcp_servers` section of the system prompt, if any. */
	readonly section?: string;
	/** o200k tokens of the tool definitions and the system prompt (the temp folder's path normalized). */
	readonly tokens: number;
}

export type Pi15Mcp = "none" | "built-in" | "ours";

/** The context of a request, its temp folder written as `<cwd>` so two homes compare. */
export function contextOf(request: ChatRequest, cwd: string): Pi15Context {
	const system = request.messages
		.filter((m) => m.role === "system" || m.role === "developer")
		.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
		.join("\n")
		.split(cwd)
		.join("<cwd>");
	const tools = request.tools ?? [];
	const section = /<mcp_servers>\n([\s\S]*?)\n<\/mcp_servers>/.exec(system)?.[1];
	return {
		tools: tools.map((t) => t.function.name).sort(),
		definitions: Object.fromEntries(tools.map((t) => [t.function.name, JSON.stringify(t)])),
		...(section === undefined ? {} : { section }),
		tokens: countTokens(JSON.stringify(tools)) + countTokens(system),
	};
}

/** Runs a Pi 1.x with the built-in MCP, this extension, or no MCP at all, in `home` (codemode and tool_search loaded). */
export function runPi15(host: PiHost, home: PiHome, mcp: Pi15Mcp, prompt: string, steps: Step[], timeoutMs?: number) {
	return runPi(home, prompt, {
		host,
		steps,
		noExtension: mcp !== "ours",
		builtins: mcp === "built-in" ? ["mcp", "codemode", "tool-search"] : ["codemode", "tool-search"],
		...(timeoutMs ? { timeoutMs } : {}),
	});
}

/**
 * The first request's context on a warm second run (ours names its tools from the cache the first
 * run filled; the built-in connects at each start anyway).
 */
export async function firstContext(
	host: PiHost,
	mcpServers: Record<string, unknown>,
	mcp: Pi15Mcp,
	timeoutMs?: number,
) {
	const home = await createPiHome({ mcpConfig: { mcpServers: mcp === "none" ? {} : mcpServers } });
	try {
		const warm = await runPi15(host, home, mcp, "hi", [() => ({ text: "ok" })], timeoutMs);
		if (warm.code !== 0) throw new Error(`pi exited with ${warm.code}: ${warm.stderr}`);
		const run = await runPi15(host, home, mcp, "hi", [() => ({ text: "ok" })], timeoutMs);
		if (run.code !== 0) throw new Error(`pi exited with ${run.code}: ${run.stderr}`);
		return contextOf(home.model.requests[0], home.cwd);
	} finally {
		await home.dispose();
	}
}
