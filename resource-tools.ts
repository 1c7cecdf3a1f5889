// A server's resources, offered as `get_<name>` tools that take no arguments and read the
// resource with resources/read. Lets the model reach documents without a separate resource API.
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { ResourceMetadata, ToolMetadata } from "./types.ts";

/** The tools for a server's resources; names never collide with its real tools or each other. */
export function resourceTools(server: string, resources: readonly ResourceMetadata[], taken: ReadonlySet<string>): ToolMetadata[] {
	const used = new Set(taken);
	const out: ToolMetadata[] = [];
	for (const resource of resources) {
		const base = `get_${resource.name.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "") || "resource"}`;
		let name = base;
		for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
		used.add(name);
		const what = resource.description ?? `Read the resource ${resource.name}`;
		out.push({
			server,
			name,
			description: `${what} (resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ""})`,
			inputSchema: { type: "object", properties: {} },
			resourceUri: resource.uri,
		});
	}
	return out;
}

/** resources/read contents as tool-result content blocks, so one converter serves both. */
export function resourceResultToContent(result: ReadResourceResult): { type: "resource"; resource: ReadResourceResult["contents"][number] }[] {
	return result.contents.map((resource) => ({ type: "resource" as const, resource }));
}
