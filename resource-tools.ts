// A server's resources and resource templates, offered as `get_<name>` tools: a resource's tool
// takes no arguments and reads it with resources/read; a template's tool takes the template's
// variables, fills them in (RFC 6570, the SDK's UriTemplate) and reads the resulting URI. Lets
// the model find, describe and read documents through the same `mcp` modes as tools.
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema, ResourceMetadata, ResourceTemplateMetadata, ToolMetadata } from "./types.ts";

/** The tools for a server's resources; names never collide with its real tools or each other. */
export function resourceTools(server: string, resources: readonly ResourceMetadata[], taken: ReadonlySet<string>): ToolMetadata[] {
	const used = new Set(taken);
	return resources.map((resource) => ({
		server,
		name: uniqueName(resource.name, used),
		description: `${resource.description ?? `Read the resource ${resource.name}`} (resource ${resource.uri}${mime(resource)})`,
		inputSchema: { type: "object", properties: {} },
		resourceUri: resource.uri,
	}));
}

/** The tools for a server's resource templates: one string argument per template variable. */
export function templateTools(server: string, templates: readonly ResourceTemplateMetadata[], taken: ReadonlySet<string>): ToolMetadata[] {
	const used = new Set(taken);
	return templates.map((template) => ({
		server,
		name: uniqueName(template.name, used),
		description: `${template.description ?? `Read a ${template.name}`} (resource template ${template.uriTemplate}${mime(template)})`,
		inputSchema: templateSchema(template),
		resourceTemplate: template.uriTemplate,
	}));
}

/** Variables in `{?a,b}` and `{&c}` (query parts) may be left out; the others are part of the path. */
function templateSchema(template: ResourceTemplateMetadata): JsonSchema {
	const optional = new Set(
		[...template.uriTemplate.matchAll(/\{[?&]([^}]*)\}/g)].flatMap((m) => m[1].split(",").map((v) => v.replace(/[*]|:\d+$/g, "").trim())),
	);
	const properties = Object.fromEntries(template.variables.map((v) => [v, { type: "string", description: `{${v}} in ${template.uriTemplate}` }]));
	return { type: "object", properties, required: template.variables.filter((v) => !optional.has(v)) };
}

function uniqueName(label: string, used: Set<string>): string {
	const base = `get_${label.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "") || "resource"}`;
	let name = base;
	for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
	used.add(name);
	return name;
}

const mime = (item: { mimeType?: string }) => (item.mimeType ? `, ${item.mimeType}` : "");

/** resources/read contents as tool-result content blocks, so one converter serves both. */
export function resourceResultToContent(result: ReadResourceResult): { type: "resource"; resource: ReadResourceResult["contents"][number] }[] {
	return result.contents.map((resource) => ({ type: "resource" as const, resource }));
}
