// The adapter as an MCP client under the official conformance suite: connects to the scenario
// server (the last argument) through McpServerManager, lists its tools and calls each one with
// arguments built from its schema. Exit code 0 when every step worked.
import { McpServerManager } from "../server-manager.ts";
import { defineServer } from "../config.ts";
import type { JsonSchema } from "../types.ts";

/** Plausible arguments for a tool: the first enum value, 1 for numbers, "test" for strings, ... */
function sampleArgs(schema: JsonSchema): Record<string, unknown> {
	const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
	const out: Record<string, unknown> = {};
	for (const [name, prop] of Object.entries(props)) {
		if (Array.isArray(prop.enum)) out[name] = prop.enum[0];
		else if (prop.type === "number" || prop.type === "integer") out[name] = 1;
		else if (prop.type === "boolean") out[name] = true;
		else if (prop.type === "array") out[name] = [];
		else if (prop.type === "object") out[name] = {};
		else out[name] = "test";
	}
	return out;
}

const url = process.argv[process.argv.length - 1];
const entry = defineServer("conformance", { url });
const manager = new McpServerManager({ requestTimeoutMs: 20_000 });
let code = 0;
try {
	const connection = await manager.connect(entry);
	console.error(`[client] ${process.env.MCP_CONFORMANCE_SCENARIO}: connected over ${connection.transportKind}, ${connection.tools.length} tools`);
	for (const tool of connection.tools) {
		const result = await manager.callTool(entry.name, tool.name, sampleArgs(tool.inputSchema));
		console.error(`[client] ${tool.name}: ${JSON.stringify(result.content).slice(0, 200)}`);
		if (result.isError) code = 1;
	}
} catch (error) {
	console.error(`[client] failed: ${(error as Error).message}`);
	code = 1;
} finally {
	await manager.closeAll();
}
process.exit(code);
