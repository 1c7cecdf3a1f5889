// What the `mcp` tool costs the model, against the same servers' tools registered one by one, and
// what one server's listing (`mcp({server:"everything"})`) costs each time the model asks for it.
// Connects to the real everything, memory and filesystem servers over stdio and prints the ratio.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../config.ts";
import { ServerLifecycle } from "../lifecycle.ts";
import { runProxy } from "../proxy/proxy-tool.ts";
import { PROXY_TOOL_NAME, ProxyParams, proxyDescription } from "../proxy/surface.ts";
import { contentText } from "../proxy/tool-results.ts";
import { McpServerManager } from "../server-manager.ts";
import { countTokens, toolDefinitionTokens } from "../tests/support/token-count.ts";

const ROOT = join(import.meta.dirname, "..");
const pkg = (name: string) => join(ROOT, "node_modules/@modelcontextprotocol", name, "dist/index.js");

export async function measureTokenCost(): Promise<{
	proxy: number;
	direct: number;
	tools: number;
	perServer: number;
	listing: number;
}> {
	const dir = mkdtempSync(join(tmpdir(), "pi-mcp-bench-"));
	try {
		const configPath = join(dir, "mcp.json");
		writeFileSync(
			configPath,
			JSON.stringify({
				mcpServers: {
					everything: { command: process.execPath, args: [pkg("server-everything"), "stdio"] },
					memory: {
						command: process.execPath,
						args: [pkg("server-memory")],
						env: { MEMORY_FILE_PATH: join(dir, "m.jsonl") },
					},
					filesystem: { command: process.execPath, args: [pkg("server-filesystem"), dir] },
				},
			}),
		);
		const config = loadConfig({ cwd: dir, agentDir: dir, configPath });
		const lifecycle = new ServerLifecycle({ config, manager: new McpServerManager() });
		try {
			await lifecycle.ensureMetadata();
			const tools = lifecycle.catalog.all().filter((t) => !t.resourceUri);
			const direct = tools.reduce(
				(sum, t) =>
					sum + toolDefinitionTokens({ name: t.qualifiedName, description: t.description, parameters: t.inputSchema }),
				0,
			);
			// As a session describes it: the three servers by name (no description configured here).
			const cost = (names: readonly string[]) =>
				toolDefinitionTokens({
					name: PROXY_TOOL_NAME,
					description: proxyDescription(names.map((name) => ({ name }))),
					parameters: ProxyParams,
				});
			const proxy = cost(lifecycle.serverNames());
			const forty = Array.from({ length: 40 }, (_, i) => `server${i}`);
			const listed = await runProxy(lifecycle, { server: "everything" });
			const listing = countTokens(contentText(listed.content));
			return { proxy, direct, tools: tools.length, perServer: (cost(forty) - cost([])) / 40, listing };
		} finally {
			await lifecycle.shutdown();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

export async function main(): Promise<void> {
	const { proxy, direct, tools, perServer, listing } = await measureTokenCost();
	console.log("== token cost (o200k) — everything + memory + filesystem ==");
	console.log(
		`mcp proxy tool definition:           ${proxy} tokens (naming its 3 servers; +${perServer.toFixed(1)} per server)`,
	);
	console.log(`the same ${tools} tools registered one by one: ${direct} tokens`);
	console.log(`ratio direct / proxy:                ${(direct / proxy).toFixed(1)}x`);
	console.log(`one server's listing, mcp({server:"everything"}): ${listing} tokens`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
