// The start-up bench's floor for "every MCP tool is a Pi tool" (Pi 1.5): the metadata cache's tools
// registered as Pi tools by the smallest extension that can, with no config, trust or runtime.
import { readFileSync } from "node:fs";
import { join } from "node:path";

interface CachedTool {
	readonly name: string;
	readonly description?: string;
	readonly inputSchema: unknown;
}

export default function registrationsOnly(pi: { registerTool(definition: Record<string, unknown>): void }): void {
	const agentDir = process.env.PI_CODING_AGENT_DIR as string;
	const cache = JSON.parse(readFileSync(join(agentDir, "mcp-proxy-cache.json"), "utf8")) as {
		servers: Record<string, { tools: CachedTool[] }>;
	};
	for (const [server, { tools }] of Object.entries(cache.servers)) {
		for (const tool of tools) {
			pi.registerTool({
				name: `mcp__${server}__${tool.name}`,
				label: `${server}/${tool.name}`,
				description: tool.description ?? "",
				parameters: tool.inputSchema,
				exposure: "deferred",
				namespace: { name: `mcp__${server}`, aliases: [server] },
				execute: async () => ({ content: [{ type: "text", text: "" }] }),
			});
		}
	}
}
