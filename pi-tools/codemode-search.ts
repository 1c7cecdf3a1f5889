// codemode scripts' `searchTools()` on Pi 1.5, ranked by this package's engine. Pi's codemode ranks
// with its own BM25 in-process (extensions/codemode/execute.js: no hook, no delegation to tool_search),
// and replacing codemode would mean replacing its QuickJS sandbox. Pi offers another way: a
// `tool_call` handler may patch a call's input before it runs (docs/extensions.md, "tool_call":
// "Mutations to event.input affect the actual tool execution"; Pi validated a copy, so the transcript
// and what the model sees keep the script as written). A script that uses searchTools() gets one line
// in front of its first line that declares its own `searchTools` with Pi's signature, checks and
// answer shape (`{ name, description }[]`, the description being what `describeTool()` gives),
// ranked by a tool only scripts see (`deferred`: never declared, never listed by codemode). Line
// numbers stay as written. Where that tool cannot be called (a `--tools` allowlist left it out, a
// permission hook blocked it) the line hands over to Pi's own searchTools().

import { PROXY_TOOL_NAME } from "../proxy/surface.ts";
import {
	type McpToolTitles,
	type PiNamespace,
	type PiToolInfo,
	PiToolRanker,
	type ToolSearchApi,
} from "./tool-ranking.ts";

/** The tool the patched searchTools() calls. */
export const SCRIPT_SEARCH_TOOL = "mcp_adapter_search_tools";
const CODEMODE = "codemode";
const OPTIONS_PREFIX = "// @options:";
const DEFAULT_LIMIT = 8;

/** Pi 1.5's script identifier of a tool name (`mcp__dev-radius__x` → `mcp__dev_radius__x`). */
export function toCodemodeIdentifier(name: string): string {
	let identifier = "";
	for (const char of name) {
		const valid = identifier === "" ? /^[A-Za-z_$]$/.test(char) : /^[A-Za-z0-9_$]$/.test(char);
		identifier += valid ? char : "_";
	}
	return identifier === "" ? "_" : identifier;
}

/**
 * The line put in front of a script: Pi's checks and error messages, then our ranking, then each
 * tool's description as Pi's searchTools() gives it (`describeTool()`); Pi's own when ours is out of reach.
 */
const PRELUDE = [
	"const searchTools = ((original, tools, describe) => async (query, options) => {",
	'if (typeof query !== "string") throw new Error("searchTools() expects a query string");',
	`const limit = options?.limit ?? ${DEFAULT_LIMIT};`,
	'if (typeof limit !== "number" || !Number.isInteger(limit) || limit <= 0) throw new Error("searchTools() limit must be a positive integer");',
	"const namespace = options?.namespace;",
	'if (namespace !== undefined && namespace !== null && typeof namespace !== "string") throw new Error("searchTools() namespace must be a string");',
	`if (!(${JSON.stringify(SCRIPT_SEARCH_TOOL)} in tools)) return original(query, options);`,
	"let found;",
	`try { found = await tools[${JSON.stringify(SCRIPT_SEARCH_TOOL)}]({ query, limit, ...(namespace ? { namespace } : {}) }); }`,
	"catch { return original(query, options); }",
	'return Promise.all(found.tools.map(async (tool) => ({ name: tool.name, description: (await describe(tool.raw)) ?? "" })));',
	"})(globalThis.searchTools, globalThis.tools, globalThis.describeTool);",
].join(" ");

/**
 * The script with our searchTools() in front, or undefined to leave it as written: it does not use
 * searchTools(), declares its own, or is one Pi rejects before running (a misplaced or lone options
 * line, which the patch must not hide).
 */
export function patchScript(code: string): string | undefined {
	if (!/\bsearchTools\b/.test(code)) return undefined;
	if (/\b(?:var|let|const|function|class)\s+searchTools\b/.test(code)) return undefined;
	const lines = code.split("\n");
	if (lines.slice(1).some((line) => line.trimStart().startsWith(OPTIONS_PREFIX))) return undefined;
	const hasOptions = lines[0].replace(/\r$/, "").trimStart().startsWith(OPTIONS_PREFIX);
	const head = hasOptions ? `${lines[0]}\n` : "";
	const body = hasOptions ? lines.slice(1).join("\n") : code;
	if (body.trim() === "") return undefined;
	// A "use strict" directive only counts first: the line keeps the script strict.
	const strict = /^\s*(["'])use strict\1/.test(body) ? '"use strict"; ' : "";
	return `${head}${strict}${PRELUDE} ${body}`;
}

/** Whether a namespace answers to a name, as Pi 1.5's searchTools() matches one: its name or an alias, as written or as an identifier. */
function isNamespaceName(namespace: PiNamespace | undefined, wanted: string): boolean {
	if (!namespace) return false;
	const id = toCodemodeIdentifier(wanted);
	return [namespace.name, ...(namespace.aliases ?? [])].some(
		(name) => name === wanted || toCodemodeIdentifier(name) === id,
	);
}

interface ScriptSearchInput {
	query: string;
	limit?: number;
	namespace?: string;
}

/**
 * The tools searchTools() ranks: those a script may call, as Pi hands them to the tool (`ctx.tools`),
 * with their namespaces and annotations. Not the `mcp` proxy: a script calls the MCP tools it reaches directly, and
 * its description names every server, so it took a place in the answer of any query that named one.
 */
function callableTools(pi: ToolSearchApi, ctx: unknown): PiToolInfo[] {
	const listed = new Map(pi.getAllTools().map((tool) => [tool.name, tool]));
	const given = (ctx as { tools?: readonly PiToolInfo[] } | undefined)?.tools;
	const tools = Array.isArray(given) ? (given as readonly PiToolInfo[]) : [];
	const ranked = (name: string) => name !== CODEMODE && name !== SCRIPT_SEARCH_TOOL && name !== PROXY_TOOL_NAME;
	return tools
		.filter((tool) => ranked(tool.name))
		.map((tool) => {
			const { namespace, annotations } = listed.get(tool.name) ?? {};
			return { name: tool.name, description: tool.description, parameters: tool.parameters, namespace, annotations };
		});
}

function scriptSearchDefinition(pi: ToolSearchApi, ranker: PiToolRanker): Record<string, unknown> {
	return {
		name: SCRIPT_SEARCH_TOOL,
		label: "searchTools",
		description:
			"What codemode scripts' searchTools() ranks with: the callable tools best matching a query, as script identifiers.",
		parameters: {
			type: "object",
			properties: {
				query: { type: "string" },
				limit: { type: "integer", minimum: 1 },
				namespace: { type: "string" },
			},
			required: ["query"],
		},
		outputSchema: {
			type: "object",
			properties: {
				tools: {
					type: "array",
					items: { type: "object", properties: { name: { type: "string" }, raw: { type: "string" } } },
				},
			},
			required: ["tools"],
		},
		// Callable from scripts only: never declared, never listed, never loaded by tool_search.
		exposure: "deferred",
		annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
		async execute(_id: string, params: ScriptSearchInput, _signal: unknown, _onUpdate: unknown, ctx: unknown) {
			const { namespace } = params;
			const names = await ranker.rank(
				params.query,
				callableTools(pi, ctx),
				params.limit ?? DEFAULT_LIMIT,
				namespace ? (tool) => isNamespaceName(tool.namespace, namespace) : undefined,
			);
			const tools = names.map((raw) => ({ name: toCodemodeIdentifier(raw), raw }));
			return {
				content: [{ type: "text", text: tools.map((tool) => tool.name).join("\n") }],
				details: { tools: names },
				structuredContent: { tools },
			};
		},
	};
}

/** Whether `codemode` is Pi's own (an extension's replacement may run scripts another way). */
function isPisCodemode(pi: ToolSearchApi): boolean {
	const tool = pi.getAllTools().find((t) => t.name === CODEMODE) as { sourceInfo?: { source?: string } } | undefined;
	return tool?.sourceInfo?.source === "builtin";
}

/** Registers the tool scripts' searchTools() calls, and the patch that makes them call it. */
export function registerScriptSearch(pi: ToolSearchApi, titles?: McpToolTitles): void {
	pi.registerTool(scriptSearchDefinition(pi, new PiToolRanker(titles)));
	pi.on("tool_call", (event) => {
		if (event.toolName !== CODEMODE || typeof event.input.code !== "string" || !isPisCodemode(pi)) return undefined;
		const patched = patchScript(event.input.code);
		if (patched !== undefined) event.input.code = patched;
		return undefined;
	});
}
