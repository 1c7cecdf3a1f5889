// The real tool catalogs of tests/data/tool-catalogs (35 public servers, 656 tools), loaded as the adapter would hold them.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolMetadata } from "../../types.ts";

export const CATALOG_DIR = join(import.meta.dirname, "..", "data", "tool-catalogs");

export interface Catalog {
	readonly server: string;
	readonly tools: ToolMetadata[];
	/** The server's instructions from initialize, as the catalog holds them (searched with its tools). */
	readonly instructions?: string;
}

/** A tool as `tools/list` sent it. */
export interface RawTool {
	readonly name: string;
	readonly title?: string;
	readonly description?: string;
	readonly inputSchema?: Record<string, unknown>;
	readonly annotations?: ToolMetadata["annotations"];
}

/**
 * A listed tool as the adapter holds it (transport/list-metadata.ts): the search reads the title,
 * and a question ranks a tool its server marks as changing things lower.
 */
export function asListed(server: string, t: RawTool): ToolMetadata {
	return {
		server,
		name: t.name,
		...(t.title ? { title: t.title } : {}),
		...(t.annotations ? { annotations: t.annotations } : {}),
		description: t.description ?? "",
		inputSchema: { type: "object", ...t.inputSchema },
	};
}

export function loadCatalogs(dir: string = CATALOG_DIR): Catalog[] {
	return readdirSync(dir)
		.filter((f) => f.endsWith(".json"))
		.sort()
		.map((file) => {
			const data = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
				server: string;
				instructions?: string;
				tools: {
					name: string;
					title?: string;
					description?: string;
					inputSchema?: Record<string, unknown>;
					annotations?: ToolMetadata["annotations"];
				}[];
			};
			return {
				server: data.server,
				...(data.instructions ? { instructions: data.instructions } : {}),
				tools: data.tools.map((t) => asListed(data.server, t)),
			};
		});
}
