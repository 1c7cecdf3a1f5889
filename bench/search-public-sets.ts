// Two public tool-selection sets nobody here wrote (tests/data/public-sets, their sources and
// licenses in its README): MetaTool (199 ChatGPT plugins, how people ask for each, and requests
// needing two) and MCP-Bench (28 real MCP servers, 258 tools, 104 tasks annotated with the tools
// they use and the steps that call them). Each is split in two halves by a fixed rule: MetaTool's
// tools by name (the queries of one half are tuned on, the other half's held out), MCP-Bench's
// tasks by the servers they use (the two tasks MCP-Bench wrote for each set of servers stay in
// one half: a held-out task is never a sibling of a tuned one). Every tool is searched whatever
// the half.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { asListed, type Catalog, type RawTool } from "../tests/support/catalogs.ts";
import type { ToolMetadata } from "../types.ts";

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

/** Which half a key is in: 0 tunes, 1 is held out (FNV-1a of the key, even or odd). */
export function halfOf(key: string): 0 | 1 {
	let hash = 0x811c9dc5;
	for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
	return ((hash >>> 0) % 2) as 0 | 1;
}

const halfName = (half: 0 | 1) => (half === 0 ? "tuning" : "held-out");

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
		.filter(([, tool]) => halfOf(tool) === half)
		.map(([query, tool], i) => ({ id: `q${i}`, query, tools: [answer(tool)], steps: [] }));
	// A request needing two tools goes to the half of its index (MetaTool's 15 merged tools cannot be split).
	const tasks = file.multi
		.filter((_, i) => i % 2 === half)
		.map(([query, ...needed], i) => ({ id: `m${i}`, query, tools: needed.map(answer), steps: [] }));
	return {
		name: `MetaTool ${halfName(half)}`,
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
		name: `MetaTool ${halfName(half)}, three requests as one task`,
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
		readonly servers: readonly string[];
		readonly task: string;
		readonly tools: readonly string[];
		readonly steps: readonly (readonly [string, ...string[]])[];
	}[];
}

/** Which half of MCP-Bench a task is in: by the set of servers it uses (halfOf their names, sorted). */
export function mcpBenchHalf(servers: readonly string[]): 0 | 1 {
	return halfOf([...servers].sort().join(","));
}

/** MCP-Bench, one half of it (0: tuning, 1: held out): its tasks as one query each, and each of their steps that names a tool. */
export function loadMcpBench(half: 0 | 1): PublicSet {
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
	const tasks = file.tasks
		.filter((t) => mcpBenchHalf(t.servers) === half)
		.map((t) => ({
			id: t.id,
			query: t.task,
			tools: t.tools,
			steps: t.steps.map(([query, ...tools]) => ({ query, tools })),
		}));
	return { name: `MCP-Bench ${halfName(half)}`, catalogs, servers, queries: [], tasks };
}
