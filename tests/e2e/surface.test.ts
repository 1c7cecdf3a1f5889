// The whole MCP surface the model receives — the `mcp` definition plus anything added to the
// system prompt — measured on what the real Pi sends: under 180 o200k tokens with three servers,
// a few tokens more per server, naming each server (with its few words), and the same on every
// request of a session, whatever connects meanwhile (the prompt cache holds).
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { everythingStdio, FILESYSTEM, MEMORY, tempDir } from "../support/helpers.ts";
import { startPi } from "../support/pi-harness.ts";
import { countTokens, toolDefinitionTokens } from "../support/token-count.ts";

type Surface = { tool: number; prompt: string; descriptions: string[] };

async function surface(mcpServers: Record<string, unknown> | undefined, calls = false): Promise<Surface> {
	const pi = await startPi({
		mcpConfig: { mcpServers: mcpServers ?? {} },
		extension: mcpServers !== undefined,
		responses: calls
			? [
					fauxAssistantMessage(fauxToolCall("mcp", { tool: "everything_echo", args: { message: "x" } })),
					fauxAssistantMessage(fauxText("ok")),
				]
			: [fauxAssistantMessage(fauxText("ok"))],
	});
	try {
		await pi.session.prompt("hi");
		const mcp = (i: number) => pi.contexts[i].tools?.find((t) => t.name === "mcp");
		const first = mcp(0);
		// The prompt names the (random) temp cwd and the date: normalized, so runs compare.
		const prompt = (pi.contexts[0].systemPrompt ?? "")
			.split(pi.cwd)
			.join("<cwd>")
			.replace(/\d{4}-\d{2}-\d{2}[^\n]*/g, "<date>");
		return {
			tool: first ? toolDefinitionTokens(first) : 0,
			prompt,
			descriptions: pi.contexts.map((_, i) => mcp(i)?.description ?? ""),
		};
	} finally {
		await pi.dispose();
	}
}

describe("the MCP surface", () => {
	it("is under 180 tokens with three servers, names them, grows a few tokens per server, and stays put in a session", async () => {
		const dir = tempDir();
		try {
			const three = {
				everything: everythingStdio(),
				memory: {
					command: process.execPath,
					args: [MEMORY],
					env: { MEMORY_FILE_PATH: join(dir.path, "m.jsonl") },
					description: "A knowledge graph that remembers facts",
				},
				filesystem: {
					command: process.execPath,
					args: [FILESYSTEM, dir.path],
					description: "Read and write files in one folder.",
				},
			};
			const forty = Object.fromEntries(
				Array.from({ length: 40 }, (_, i) => [
					`server${i}`,
					{ command: process.execPath, args: [`/nonexistent/${i}.js`] },
				]),
			);
			const baseline = await surface(undefined);
			const none = await surface({});
			const withThree = await surface(three, true);
			const withForty = await surface(forty);
			const added = (prompt: string) => countTokens(prompt) - countTokens(baseline.prompt);
			expect(withThree.prompt).toBe(baseline.prompt); // nothing added to the system prompt
			expect(withForty.prompt).toBe(baseline.prompt);
			expect(withThree.tool + added(withThree.prompt)).toBeLessThanOrEqual(180);
			expect(withThree.descriptions[0]).toContain(
				"Servers: everything, memory (A knowledge graph that remembers facts), filesystem (Read and write files in one folder).",
			);
			// A server connected during the session (everything, with its instructions) changes nothing.
			expect(new Set(withThree.descriptions).size).toBe(1);
			expect((withForty.tool - none.tool) / 40).toBeLessThanOrEqual(5);
		} finally {
			dir.remove();
		}
	});
});
