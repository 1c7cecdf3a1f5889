// Pi 1.5's `tool_search`, ranked by this package's engine. An extension that registers a tool named
// `tool_search` while it loads replaces Pi's built-in one (Pi 1.5 docs/mcp.md, "An extension that
// registers codemode or tool_search"), so the model searches with the ranking `mcp({search})` uses
// (bench/search-quality.ts) through the same tool as before. Everything else is Pi's: the input schema,
// the description, the answer's text and details, which tools it searches (every `codemode` or
// `deferred` tool not loaded yet, MCP or not; the `mcp` proxy only by its name) and how it loads
// them (added to the active tools, so they are declared from the next model call on, recorded in
// the transcript). It declares `reachesTools`, so Pi activates it for deferred servers and our
// `tool_call` wait connects the servers it may reach. codemode scripts' `searchTools()` is
// pi-tools/codemode-search.ts.

import { PROXY_TOOL_NAME } from "../proxy/surface.ts";
import { registerScriptSearch, SCRIPT_SEARCH_TOOL } from "./codemode-search.ts";
import { type McpToolTitles, PiToolRanker, type ToolSearchApi } from "./tool-ranking.ts";

export const TOOL_SEARCH_TOOL_NAME = "tool_search";
const DEFAULT_LIMIT = 8;

/** Pi 1.5.2's own words (extensions/tool-search/tool.js), so the model sees the tool it knows. */
export const TOOL_SEARCH_DESCRIPTION = `# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call.\n\nSome of the tools, such as tools of MCP servers, may not have been provided to you upfront, and you should use this tool (\`${TOOL_SEARCH_TOOL_NAME}\`) to search for the required tools. For MCP tool discovery, always use \`${TOOL_SEARCH_TOOL_NAME}\`.`;

/** Pi 1.5.2's schema, as JSON Schema (what its TypeBox `Type.Object` produces). */
export const TOOL_SEARCH_PARAMETERS = {
	type: "object",
	properties: {
		query: { type: "string", description: "Search query for deferred tools." },
		limit: { type: "number", description: `Maximum number of tools to return. Defaults to ${DEFAULT_LIMIT}.` },
	},
	required: ["query"],
} as const;

/** Whether tool_search can load a tool of this exposure (Pi 1.5's rule). */
const isSearchable = (exposure: string | undefined) => exposure === "codemode" || exposure === "deferred";

/**
 * Ranks the searchable tools not active yet and activates the best, as Pi's tool_search does; the
 * tool behind scripts' searchTools() is no tool for the model and is never loaded.
 */
async function searchAndLoad(
	pi: ToolSearchApi,
	ranker: PiToolRanker,
	query: string,
	limit: number,
): Promise<{ name: string; description: string }[]> {
	const active = pi.getActiveTools();
	const candidates = pi
		.getAllTools()
		.filter((tool) => isSearchable(tool.exposure) && !active.includes(tool.name) && tool.name !== SCRIPT_SEARCH_TOOL);
	// The `mcp` proxy only by its name: it reaches the MCP tools listed beside it, and its description
	// names every server, so it took a place in the answer of any query that named one.
	const names = await ranker.rank(query, candidates, limit, undefined, (tool) => tool.name === PROXY_TOOL_NAME);
	if (names.length > 0) pi.setActiveTools([...active, ...names]);
	return names.map((name) => ({
		name,
		description: candidates.find((tool) => tool.name === name)?.description ?? "",
	}));
}

/** The answer's text, word for word Pi 1.5's. */
function answerText(tools: readonly { name: string; description: string }[]): string {
	if (tools.length === 0) return "No matching tools found.";
	const lines = tools.map((tool) => `- ${tool.name}: ${tool.description.trim().split(/\r?\n/)[0]}`);
	return `Loaded ${tools.length} tool${tools.length === 1 ? "" : "s"}. They are available from your next call:\n${lines.join("\n")}`;
}

function toolSearchDefinition(pi: ToolSearchApi, ranker: PiToolRanker): Record<string, unknown> {
	return {
		name: TOOL_SEARCH_TOOL_NAME,
		label: TOOL_SEARCH_TOOL_NAME,
		description: TOOL_SEARCH_DESCRIPTION,
		promptSnippet: "Search for tools that are not loaded yet and load the matches",
		parameters: TOOL_SEARCH_PARAMETERS,
		// As Pi's: searching changes what the model sees, scripts have searchTools().
		exposure: "model-only",
		// Registered inactive, as Pi's: activated for deferred servers, by --tools or defaultTools.
		defaultActive: false,
		reachesTools: () => "all",
		async execute(_id: string, params: { query: string; limit?: number }) {
			if (params.query.trim() === "") throw new Error("query must not be empty");
			const max = params.limit ?? DEFAULT_LIMIT;
			if (!Number.isInteger(max) || max <= 0) throw new Error("limit must be a positive integer");
			const tools = await searchAndLoad(pi, ranker, params.query, max);
			return {
				content: [{ type: "text", text: answerText(tools) }],
				details: { loaded: tools.map((tool) => tool.name) },
			};
		},
	};
}

/**
 * Registers `tool_search` and what codemode scripts' searchTools() goes through. Called while the
 * extension loads: only a tool registered then replaces Pi's built-in one.
 */
export function registerToolSearch(pi: ToolSearchApi, titles?: McpToolTitles): void {
	pi.registerTool(toolSearchDefinition(pi, new PiToolRanker(titles)));
	registerScriptSearch(pi, titles);
}
