// Listing what a server exposes on connect: every tool, resource, resource template and prompt,
// across pages (at most 100 each), with a lenient schema (one tool lacking `type: "object"` must
// not lose a whole list) and schemas made safe to store and show.
import type { Client } from "@modelcontextprotocol/client";
import { safeSchema } from "../catalog/safe-schema.ts";
import { toolUiOf } from "../catalog/tool-ui.ts";
import { describeError } from "../errors.ts";
import { templateVariables, useUriTemplate } from "../resource-tools.ts";
import type {
	PromptMetadata,
	ResourceMetadata,
	ResourceTemplateMetadata,
	ToolAnnotations,
	ToolMetadata,
	TransportKind,
} from "../types.ts";
import { loadSdk } from "./mcp-sdk.lazy.ts";
import type { PromptsPage, ResourcesPage, TemplatesPage, ToolsPage } from "./mcp-sdk.ts";
import { dropInvalidHeaderTools } from "./param-headers.ts";
import { type ListedSkills, listSkills, NO_SKILLS } from "./skill-client.ts";

const MAX_PAGES = 100;

/** What a server lists on connect. */
export interface ListedMetadata extends ListedSkills {
	tools: ToolMetadata[];
	resources: ResourceMetadata[];
	templates: ResourceTemplateMetadata[];
	prompts: PromptMetadata[];
}

/**
 * Every tool, resource, resource template, prompt and skill of a server, across all pages; schemas
 * made safe to store and show. Of a skill only its entry is listed: no file of it is read here.
 */
export async function listMetadata(
	client: Client,
	name: string,
	kind: TransportKind,
	timeout: number,
	signal?: AbortSignal,
): Promise<ListedMetadata> {
	const sdk = await loadSdk();
	const options = { timeout, signal };
	const capabilities = client.getServerCapabilities() ?? {};
	const list = <P extends { nextCursor?: string }>(method: string, schema: Parameters<Client["request"]>[1]) =>
		allPages((cursor) => client.request({ method, params: cursorParams(cursor) }, schema, options) as Promise<P>);
	const [toolPages, resourcePages, templatePages, promptPages, skills] = await Promise.all([
		list<ToolsPage>("tools/list", sdk.LenientToolsPage),
		capabilities.resources ? list<ResourcesPage>("resources/list", sdk.LenientResourcesPage) : [],
		capabilities.resources
			? optionalList(list<TemplatesPage>("resources/templates/list", sdk.LenientTemplatesPage))
			: [],
		capabilities.prompts ? optionalList(list<PromptsPage>("prompts/list", sdk.LenientPromptsPage)) : [],
		// Skills are extras too: a listing that fails is told (/mcp), and the tools stay.
		listSkills(client, timeout, signal).catch(
			(error: unknown): ListedSkills => ({
				...NO_SKILLS,
				skillProblems: [`skills/list failed: ${describeError(error)}`],
			}),
		),
	]);
	for (const page of toolPages) dropInvalidHeaderTools(client, kind, page);
	const tools = toolPages.flatMap((page) =>
		page.tools.map((tool) => ({
			server: name,
			name: tool.name,
			title: tool.title,
			description: tool.description ?? "",
			inputSchema: safeSchema(tool.inputSchema),
			// The shape of its structuredContent (Pi 1.5's codemode declares it to scripts).
			...(isObject(tool.outputSchema) ? { outputSchema: safeSchema(tool.outputSchema) } : {}),
			annotations: annotationsOf(tool.annotations),
			taskSupport: taskSupportOf(tool.execution),
			// MCP Apps: the app rendering its results, and whether the model may see it at all.
			ui: toolUiOf(tool._meta),
		})),
	);
	const resources = resourcePages.flatMap((page) =>
		page.resources.map((r) => ({
			uri: r.uri,
			name: r.name ?? r.uri,
			description: r.description,
			mimeType: r.mimeType,
		})),
	);
	useUriTemplate(sdk);
	const templates = templatePages.flatMap((page) =>
		page.resourceTemplates.flatMap((t) => {
			const variables = templateVariables(t.uriTemplate);
			return variables
				? [
						{
							uriTemplate: t.uriTemplate,
							name: t.name ?? t.title ?? t.uriTemplate,
							description: t.description,
							mimeType: t.mimeType,
							variables,
						},
					]
				: [];
		}),
	);
	const prompts = promptPages.flatMap((page) =>
		page.prompts.map((p) => ({
			name: p.name,
			title: p.title,
			description: p.description,
			arguments: (p.arguments ?? []).map((a) => ({ name: a.name, description: a.description, required: a.required })),
		})),
	);
	return { tools, resources, templates, prompts, ...skills };
}

function isObject(value: unknown): value is object {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Templates and prompts are extras: a server that declares them but fails to list them still has its tools. */
async function optionalList<P>(pages: Promise<P[]>): Promise<P[]> {
	return pages.catch(() => []);
}

function taskSupportOf(execution: unknown): ToolMetadata["taskSupport"] {
	const support = (execution as { taskSupport?: unknown } | undefined)?.taskSupport;
	return support === "required" || support === "optional" ? support : undefined;
}

const cursorParams = (cursor: string | undefined) => (cursor ? { cursor } : {});

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/** The MCP annotations a server declared, kept only where they have the spec's types. */
function annotationsOf(raw: unknown): ToolAnnotations | undefined {
	if (typeof raw !== "object" || raw === null) return undefined;
	const source = raw as Record<string, unknown>;
	const out: Record<string, string | boolean> = {};
	if (typeof source.title === "string") out.title = source.title;
	for (const hint of HINTS) if (typeof source[hint] === "boolean") out[hint] = source[hint] as boolean;
	return Object.keys(out).length > 0 ? (out as ToolAnnotations) : undefined;
}

/** Follows `nextCursor` until the server stops sending one (at most MAX_PAGES, against a loop). */
async function allPages<P extends { nextCursor?: string }>(
	fetchPage: (cursor: string | undefined) => Promise<P>,
): Promise<P[]> {
	const pages: P[] = [];
	let cursor: string | undefined;
	do {
		const page = await fetchPage(cursor);
		pages.push(page);
		cursor = page.nextCursor;
	} while (cursor && pages.length < MAX_PAGES);
	return pages;
}
