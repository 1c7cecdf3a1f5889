// The start-up bench's floor for "every MCP tool is a Pi tool" (Pi 1.x): the very definitions this
// extension's start registered (each tool's name, description, parameters, output schema, exposure,
// namespace, annotations, and the `mcp` tool), read from one file the bench wrote before timing
// (BENCH_FLOOR_TOOLS) and registered by the smallest extension that can: no config, cache, trust
// or runtime. What Pi itself costs for those tools.
import { readFileSync } from "node:fs";

export default function registrationsOnly(pi: { registerTool(definition: Record<string, unknown>): void }): void {
	const definitions = JSON.parse(readFileSync(process.env.BENCH_FLOOR_TOOLS as string, "utf8")) as Record<
		string,
		unknown
	>[];
	for (const definition of definitions)
		pi.registerTool({ ...definition, execute: async () => ({ content: [{ type: "text", text: "" }] }) });
}
