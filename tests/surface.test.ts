// The whole MCP surface the model receives — the `mcp` definition plus anything added to the
// system prompt — measured on what the real Pi sends: at most 180 o200k tokens with three servers,
// and the same with forty.
import { join } from "node:path";
import { fauxAssistantMessage, fauxText } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { countTokens, toolDefinitionTokens } from "../bench/token-count.ts";
import { everythingStdio, fakeCacheFor, FILESYSTEM, MEMORY, tempDir, warmCacheFor } from "./helpers.ts";
import { startPi } from "./pi-harness.ts";

async function surface(mcpServers: Record<string, unknown> | undefined, cache?: string): Promise<{ tool: number; prompt: string }> {
	const pi = await startPi({
		mcpConfig: { mcpServers: mcpServers ?? {} },
		agentFiles: cache ? { "mcp-cache.json": cache } : {},
		extension: mcpServers !== undefined,
		responses: [fauxAssistantMessage(fauxText("ok"))],
	});
	try {
		await pi.session.prompt("hi");
		const context = pi.contexts[0];
		const mcp = context.tools?.find((t) => t.name === "mcp");
		// The prompt names the (random) temp cwd and the date: normalized, so runs compare.
		const prompt = (context.systemPrompt ?? "").split(pi.cwd).join("<cwd>").replace(/\d{4}-\d{2}-\d{2}[^\n]*/g, "<date>");
		return { tool: mcp ? toolDefinitionTokens(mcp) : 0, prompt };
	} finally {
		await pi.dispose();
	}
}

describe("the MCP surface", () => {
	it("costs at most 180 tokens with three servers and does not grow with forty", async () => {
		const dir = tempDir();
		try {
			const three = {
				everything: everythingStdio(),
				memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir.path, "m.jsonl") } },
				filesystem: { command: process.execPath, args: [FILESYSTEM, dir.path] },
			};
			const forty = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`server${i}`, { command: process.execPath, args: [`/nonexistent/${i}.js`] }]));
			const baseline = await surface(undefined);
			const withThree = await surface(three, await warmCacheFor(three));
			const twentyTools = (server: string) => Array.from({ length: 20 }, (_, i) => ({ server, name: `tool_${i}`, description: `Does thing ${i}.`, inputSchema: { type: "object" } }));
			const withForty = await surface(forty, await fakeCacheFor(forty, twentyTools));
			const added = (prompt: string) => countTokens(prompt) - countTokens(baseline.prompt);
			expect(withThree.prompt).toBe(baseline.prompt); // nothing added to the system prompt
			const total = withThree.tool + added(withThree.prompt);
			expect(total).toBeLessThanOrEqual(180);
			expect(withForty.tool + added(withForty.prompt)).toBe(total);
		} finally {
			dir.remove();
		}
	});
});
