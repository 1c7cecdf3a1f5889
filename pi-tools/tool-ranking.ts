// Pi 1.5's tools ranked by this package's search engine (search/engine.ts), for the tool_search
// that replaces Pi's (pi-tools/tool-search.ts) and for codemode scripts' searchTools() (pi-tools/codemode-search.ts).
// Any Pi tool is ranked, not only MCP ones: what Pi's own search could find stays findable. A tool
// of an MCP server is searched as the engine searches it through `mcp`: its own name and title, its
// server (the namespace's alias) and the server's own words (the namespace's description and
// instructions), its description and parameters, its annotations (Pi's tool list carries those; the
// title comes from this package, which registered the tool).

import type { CatalogTool } from "../catalog/tool-catalog.ts";
import { loadSearch } from "../search/engine.lazy.ts";
import type { ToolSearchIndex } from "../search/engine.ts";
import type { JsonSchema, ToolAnnotations } from "../types.ts";
import type { Pi15ToolApi } from "./pi-tools.ts";

/** What Pi 1.5 reports of a tool (`pi.getAllTools()`, or a tool context's `ctx.tools`). */
export interface PiToolInfo {
	readonly name: string;
	readonly description?: string;
	readonly parameters?: unknown;
	readonly exposure?: string;
	readonly namespace?: PiNamespace;
	/** What the tool does, as MCP's hints (`readOnlyHint`...): an MCP tool's are its server's. */
	readonly annotations?: ToolAnnotations;
}

/** A namespace (an MCP server's `mcp__<server>`, with the server's name among its aliases). */
export interface PiNamespace {
	readonly name: string;
	readonly aliases?: readonly string[];
	readonly description?: string;
	readonly instructions?: string;
}

/** What tool_search and searchTools() need of Pi 1.5's extension API. */
export interface ToolSearchApi extends Pi15ToolApi {
	getAllTools(): readonly (PiToolInfo & { reachesTools?: (input: Record<string, unknown>) => unknown })[];
	on(event: "tool_call", handler: (event: { toolName: string; input: Record<string, unknown> }) => unknown): void;
}

const isObject = (value: unknown): value is JsonSchema =>
	typeof value === "object" && value !== null && !Array.isArray(value);

/** What an MCP tool's server said of it that Pi's tool list does not carry: its title. */
export type McpToolTitles = (piName: string) => string | undefined;

/**
 * A Pi tool as the engine indexes it: `mcp__github__create_issue` is github's `create_issue`, with
 * its annotations, and its title when it is one of this package's (ranked as `mcp({search})` ranks it).
 */
export function searchable(tool: PiToolInfo, titles?: McpToolTitles): CatalogTool {
	const title = titles?.(tool.name);
	const namespace = tool.namespace;
	const prefix = namespace ? `${namespace.name}__` : undefined;
	return {
		server: namespace ? (namespace.aliases?.[0] ?? namespace.name) : "",
		name: prefix && tool.name.startsWith(prefix) ? tool.name.slice(prefix.length) : tool.name,
		qualifiedName: tool.name,
		description: tool.description ?? "",
		inputSchema: isObject(tool.parameters) ? tool.parameters : {},
		...(title ? { title } : {}),
		...(tool.annotations ? { annotations: tool.annotations } : {}),
	};
}

/** Lowercase, with what a script identifier cannot hold as `_` (as Pi 1.5 compares tool names). */
function normalizeName(name: string): string {
	return name
		.trim()
		.toLowerCase()
		.replace(/[^a-z0-9_$]/g, "_");
}

/** Whether the query is the tool's whole name, or its name after a `__` (as Pi 1.5's search puts those first). */
function isExactName(query: string, name: string): boolean {
	const wanted = normalizeName(query);
	const normalized = normalizeName(name);
	return normalized === wanted || normalized.endsWith(`__${wanted}`);
}

/**
 * One index over a changing list of Pi tools, brought to the list given at each search (in place:
 * tools that did not change keep their entries), so a search after a server connects costs that
 * server's tools only.
 */
export class PiToolRanker {
	private index?: ToolSearchIndex;

	constructor(private readonly titles?: McpToolTitles) {}

	/**
	 * The names of the `limit` best tools for the query, among `tools` (and of those, the ones `filter`
	 * keeps); a tool `byNameOnly` picks is found only when the query is its name.
	 */
	async rank(
		query: string,
		tools: readonly PiToolInfo[],
		limit: number,
		filter?: (tool: PiToolInfo) => boolean,
		byNameOnly?: (tool: PiToolInfo) => boolean,
	): Promise<string[]> {
		const engine = await loadSearch();
		this.index ??= new engine.ToolSearchIndex();
		const ranked = byNameOnly ? tools.filter((tool) => !byNameOnly(tool)) : tools;
		const searched = ranked.map((tool) => searchable(tool, this.titles));
		// A namespace's description and instructions are its server's own words (search/tool-text.ts).
		const about = new Map(ranked.flatMap((tool, i) => (tool.namespace ? [[searched[i].server, tool.namespace]] : [])));
		this.index.update(searched, (server) => about.get(server));
		const kept = filter ? new Set(tools.filter(filter).map((tool) => tool.name)) : undefined;
		const hits = this.index.search(query, {
			limit,
			filter: kept ? (tool) => kept.has(tool.qualifiedName) : undefined,
		});
		const names = hits.map((hit) => hit.tool.qualifiedName);
		// The exact name typed as the query comes first, found or not by the words.
		const exact = tools.find((tool) => (!kept || kept.has(tool.name)) && isExactName(query, tool.name));
		if (!exact) return names;
		return [exact.name, ...names.filter((name) => name !== exact.name)].slice(0, limit);
	}
}
