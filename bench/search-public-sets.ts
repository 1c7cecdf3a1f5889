// Two public tool-selection sets nobody here wrote (tests/data/public-sets, their sources and
// licenses in its README): MetaTool (199 ChatGPT plugins, how people ask for each, and requests
// needing two) and MCP-Bench (28 real MCP servers, 258 tools, 104 tasks annotated with the tools
// they use and the steps that call them). MetaTool's tools are split in two halves by name: the
// queries of one half are what the engine learns from (scripts/learn-search.ts) and tunes on, the
// other half's are held out; MCP-Bench is held out whole.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolMetadata } from "../types.ts";
import { asListed, type Catalog, type RawTool } from "./catalogs.ts";

export const PUBLIC_SETS_DIR = join(import.meta.dirname, "..", "tests", "data", "public-sets");

/** A request and every tool (server/tool) it needs. */
export interface Task {
	readonly id: string;
	readonly query: string;
	readonly tools: readonly string[];
	/** The steps a plan would search for, each with the tools it calls. */
	readonly steps: readonly { readonly query: string; readonly tools: readonly string[] }[];
}

/** One public set: its catalogs, short queries (one tool each) and tasks (several tools). */
export interface PublicSet {
	readonly name: string;
	readonly catalogs: readonly Catalog[];
	/** Servers' own words beyond their tools, by server. */
	readonly servers: ReadonlyMap<string, ServerWords>;
	readonly queries: readonly Task[];
	readonly tasks: readonly Task[];
}

export interface ServerWords {
	readonly title?: string;
	readonly description?: string;
	readonly instructions?: string;
}

const METATOOL_SERVER = "metatool";

/** Which half of MetaTool a tool is in: 0 learns and tunes, 1 is held out (FNV-1a of its name, even or odd). */
export function metaToolHalf(tool: string): 0 | 1 {
	let hash = 0x811c9dc5;
	for (let i = 0; i < tool.length; i++) hash = Math.imul(hash ^ tool.charCodeAt(i), 0x01000193);
	return ((hash >>> 0) % 2) as 0 | 1;
}

interface MetaToolFile {
	readonly tools: { readonly name: string; readonly description: string }[];
	readonly queries: readonly (readonly [string, string])[];
	readonly multi: readonly (readonly [string, ...string[]])[];
}

/** MetaTool, one half of it (0: tuning, 1: held out); every tool is searched whatever the half. */
export function loadMetaTool(half: 0 | 1): PublicSet {
	const file = JSON.parse(readFileSync(join(PUBLIC_SETS_DIR, "metatool.json"), "utf8")) as MetaToolFile;
	const tools: ToolMetadata[] = file.tools.map((t) => ({
		server: METATOOL_SERVER,
		name: t.name,
		description: t.description,
		inputSchema: { type: "object" },
	}));
	const answer = (tool: string) => `${METATOOL_SERVER}/${tool}`;
	const queries = file.queries
		.filter(([, tool]) => metaToolHalf(tool) === half)
		.map(([query, tool], i) => ({ id: `q${i}`, query, tools: [answer(tool)], steps: [] }));
	// A request needing two tools goes to the half of its index (MetaTool's 15 merged tools cannot be split).
	const tasks = file.multi
		.filter((_, i) => i % 2 === half)
		.map(([query, ...needed], i) => ({ id: `m${i}`, query, tools: needed.map(answer), steps: [] }));
	return {
		name: `MetaTool ${half === 0 ? "tuning" : "held-out"}`,
		catalogs: [{ server: METATOOL_SERVER, tools }],
		servers: new Map(),
		queries,
		tasks,
	};
}

/** How many of a half's requests one composed task tells. */
const COMPOSED = 3;

/**
 * A task told at length, made of MetaTool's own requests: three requests for three different tools
 * of one half, one after the other as one text (each a step of it). What a request with several
 * needs looks like in a set that has only one or two needs a request.
 */
export function loadMetaToolTasks(half: 0 | 1): PublicSet {
	const set = loadMetaTool(half);
	const byTool = new Map<string, Task[]>();
	for (const q of set.queries) byTool.set(q.tools[0], [...(byTool.get(q.tools[0]) ?? []), q]);
	const tools = [...byTool.keys()];
	const tasks: Task[] = [];
	// Task i takes the i-th request of tools i, i+7 and i+14 (mod the half's tools): different tools, all of them used.
	for (let i = 0; i < 150; i++) {
		const picked = Array.from({ length: COMPOSED }, (_, k) => {
			const requests = byTool.get(tools[(i + 7 * k) % tools.length]) as Task[];
			return requests[Math.floor(i / tools.length) % requests.length];
		});
		tasks.push({
			id: `c${i}`,
			query: picked.map((q) => q.query).join(" "),
			tools: picked.map((q) => q.tools[0]),
			steps: picked.map((q) => ({ query: q.query, tools: q.tools })),
		});
	}
	return {
		...set,
		name: `MetaTool ${half === 0 ? "tuning" : "held-out"}, three requests as one task`,
		queries: [],
		tasks,
	};
}

interface McpBenchFile {
	readonly servers: {
		readonly server: string;
		readonly name: string;
		readonly serverInfo?: { readonly name?: string; readonly title?: string; readonly description?: string };
		readonly instructions?: string;
		readonly tools: readonly RawTool[];
	}[];
	readonly tasks: {
		readonly id: string;
		readonly task: string;
		readonly tools: readonly string[];
		readonly steps: readonly (readonly [string, ...string[]])[];
	}[];
}

/** MCP-Bench, held out whole: its tasks as one query each, and each of their steps that names a tool. */
export function loadMcpBench(): PublicSet {
	const file = JSON.parse(readFileSync(join(PUBLIC_SETS_DIR, "mcp-bench.json"), "utf8")) as McpBenchFile;
	const catalogs = file.servers.map((s) => ({
		server: s.server,
		tools: s.tools.map((t) => asListed(s.server, t)),
	}));
	const servers = new Map(
		file.servers.map((s) => [
			s.server,
			{ title: s.serverInfo?.title, description: s.serverInfo?.description, instructions: s.instructions },
		]),
	);
	const tasks = file.tasks.map((t) => ({
		id: t.id,
		query: t.task,
		tools: t.tools,
		steps: t.steps.map(([query, ...tools]) => ({ query, tools })),
	}));
	return { name: "MCP-Bench held-out", catalogs, servers, queries: [], tasks };
}
