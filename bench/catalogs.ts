// The real tool catalogs of tests/data/tool-catalogs (35 public servers, 656 tools), loaded as the adapter would hold them.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolMetadata } from "../types.ts";

export const CATALOG_DIR = join(import.meta.dirname, "..", "tests", "data", "tool-catalogs");

export interface Catalog {
	readonly server: string;
	readonly tools: ToolMetadata[];
}

export function loadCatalogs(dir: string = CATALOG_DIR): Catalog[] {
	return readdirSync(dir)
		.filter((f) => f.endsWith(".json"))
		.sort()
		.map((file) => {
			const data = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
				server: string;
				tools: { name: string; description?: string; inputSchema?: Record<string, unknown> }[];
			};
			return {
				server: data.server,
				tools: data.tools.map((t) => ({
					server: data.server,
					name: t.name,
					description: t.description ?? "",
					inputSchema: { type: "object", ...t.inputSchema },
				})),
			};
		});
}
