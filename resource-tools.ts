// A server's resources and resource templates, offered as `get_<name>` tools: a resource's tool
// takes no arguments and reads it with resources/read; a template's tool takes the template's
// variables, fills them in (RFC 6570, the SDK's UriTemplate) and reads the resulting URI. Lets
// the model find, describe and read documents through the same `mcp` modes as tools.
// The SDK's UriTemplate comes with the SDK (v2 exports it only from the client's index, ~100 ms to
// load): never with the catalog at start-up; whoever uses a template first hands the loaded SDK to
// useUriTemplate() (the SDK's loader sits in transport/, a layer above this module).

import type { ReadResourceResult, UriTemplate as UriTemplateClass } from "@modelcontextprotocol/client";
import type { JsonSchema, ResourceMetadata, ResourceTemplateMetadata, ToolMetadata } from "./types.ts";

let UriTemplate: typeof UriTemplateClass | undefined;

/** Makes templates usable (expand, match, variables) with the loaded SDK's class (transport/mcp-sdk.lazy.ts). */
export function useUriTemplate(sdk: { readonly UriTemplate: typeof UriTemplateClass }): void {
	UriTemplate ??= sdk.UriTemplate;
}

/** The class, or a programming error (thrown outside the callers' parse-error handling, never read as "no match"). */
function templateClass(): typeof UriTemplateClass {
	if (!UriTemplate) throw new Error("resource templates are used before useUriTemplate()");
	return UriTemplate;
}

/** The tools for a server's resources; names never collide with its real tools or each other. */
export function resourceTools(
	server: string,
	resources: readonly ResourceMetadata[],
	taken: ReadonlySet<string>,
): ToolMetadata[] {
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
export function templateTools(
	server: string,
	templates: readonly ResourceTemplateMetadata[],
	taken: ReadonlySet<string>,
): ToolMetadata[] {
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
		[...template.uriTemplate.matchAll(/\{[?&]([^}]*)\}/g)].flatMap((m) =>
			m[1].split(",").map((v) => v.replace(/[*]|:\d+$/g, "").trim()),
		),
	);
	const properties = Object.fromEntries(
		template.variables.map((v) => [v, { type: "string", description: `{${v}} in ${template.uriTemplate}` }]),
	);
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

/** A template's variable names, or undefined for one that cannot be parsed (it is left out). */
export function templateVariables(template: string): string[] | undefined {
	const Template = templateClass();
	try {
		return new Template(template).variableNames;
	} catch {
		return undefined;
	}
}

/** The URI a template tool reads: its variables filled in from the call's arguments (as strings). */
export function expandTemplate(template: string, args: Record<string, unknown>): string {
	const variables: Record<string, string | string[]> = {};
	for (const [name, value] of Object.entries(args)) {
		if (value === undefined || value === null) continue;
		variables[name] = Array.isArray(value)
			? value.map(String)
			: typeof value === "object"
				? JSON.stringify(value)
				: String(value);
	}
	return new (templateClass())(template).expand(variables);
}

/** The resource and template tools a resource link can be read with. */
interface Reader {
	readonly qualifiedName: string;
	readonly resourceUri?: string;
	readonly resourceTemplate?: string;
}

/** The `mcp` call that reads a URI: its resource tool, a template tool it matches, or a read by URI. */
export function readCall(readers: readonly Reader[], server: string, uri: string): string {
	const exact = readers.find((r) => r.resourceUri === uri);
	if (exact) return `mcp({tool:"${exact.qualifiedName}"})`;
	for (const reader of readers) {
		if (!reader.resourceTemplate) continue;
		const matched = matchTemplate(reader.resourceTemplate, uri);
		if (matched) return `mcp({tool:"${reader.qualifiedName}",args:${JSON.stringify(matched)}})`;
	}
	return `mcp({tool:${JSON.stringify(uri)},server:"${server}"})`;
}

/** The variables a URI fills a template with, or undefined when it is not one of its URIs. */
export function matchTemplate(template: string, uri: string): Record<string, string | string[]> | undefined {
	const Template = templateClass();
	try {
		return new Template(template).match(uri) ?? undefined;
	} catch {
		return undefined;
	}
}

/** resources/read contents as tool-result content blocks, so one converter serves both. */
export function resourceResultToContent(
	result: ReadResourceResult,
): { type: "resource"; resource: ReadResourceResult["contents"][number] }[] {
	return result.contents.map((resource) => ({ type: "resource" as const, resource }));
}
