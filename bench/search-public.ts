// Search quality on the public sets (bench/search-public-sets.ts): MetaTool's and MCP-Bench's
// tuning and held-out halves, side by side. For each set and each route the model searches through
// (`mcp({search})`'s answer, Pi 1.5's tool_search and codemode searchTools() as their ranker runs
// in Pi, the engine's own ranking) and for Pi's BM25 on the same tools: short queries' hit@1 and
// hit@5; a whole task as one query: hit@1, hit@5 (a needed tool first, in the first five),
// recall@10 (the share of its needed tools in the first ten) and the tasks with every tool in the
// first ten; one search per planned step: the share of needed tools found in their step's first
// five, and the tasks with every tool so found.
import type { ToolCatalog } from "../catalog/tool-catalog.ts";
import type { PiToolInfo } from "../pi-tools/tool-ranking.ts";
import { PiToolRanker } from "../pi-tools/tool-ranking.ts";
import { runProxy } from "../proxy/proxy-tool.ts";
import { contentText } from "../proxy/tool-results.ts";
import { searchCatalog } from "../search/engine.ts";
import { sessionOf } from "../tests/support/search-session.ts";
import { PiBm25, type PiTool } from "./search-pi-bm25.ts";
import { loadMcpBench, loadMetaTool, loadMetaToolTasks, type PublicSet } from "./search-public-sets.ts";

/** A ranking of tools (as `server/tool`) for a query, best first, at most `limit` (or what the route shows). */
type Rank = (query: string, limit: number) => Promise<string[]>;

/** Pi 1.5's name of an MCP tool (`mcp__<server>__<tool>`, what a name cannot hold as `_`). */
const clean = (text: string) => text.replace(/[^A-Za-z0-9_]/g, "_");
const piName = (server: string, tool: string) => `mcp__${clean(server)}__${clean(tool)}`;

/** The set's tools as Pi 1.5 lists them (namespace, description, parameters, annotations). */
function piTools(set: PublicSet): (PiToolInfo & PiTool)[] {
	return set.catalogs.flatMap((c) => {
		const about = set.servers.get(c.server);
		const namespace = {
			name: `mcp__${clean(c.server)}`,
			aliases: [c.server],
			...(about?.description ? { description: about.description } : {}),
			...(about?.instructions ? { instructions: about.instructions } : {}),
		};
		return c.tools.map((t) => ({
			name: piName(c.server, t.name),
			description: t.description,
			parameters: t.inputSchema,
			exposure: "codemode",
			namespace,
			...(t.annotations ? { annotations: t.annotations } : {}),
		}));
	});
}

/** Each route's ranking over one set's catalogs. */
function routes(set: PublicSet): Record<string, Rank> {
	const tools = piTools(set);
	const back = new Map(
		set.catalogs.flatMap((c) => c.tools.map((t) => [piName(c.server, t.name), `${c.server}/${t.name}`])),
	);
	const fromPi = (names: readonly string[]) => names.map((n) => back.get(n) ?? n);
	const lifecycle = sessionOf(set.catalogs);
	for (const c of set.catalogs) {
		const instructions = set.servers.get(c.server)?.instructions;
		if (instructions) lifecycle.catalog.set(c.server, { tools: c.tools, resources: [], instructions }, false);
	}
	const qualified = new Map(lifecycle.catalog.all().map((t) => [t.qualifiedName, `${t.server}/${t.name}`]));
	const titles = new Map(
		set.catalogs.flatMap((c) =>
			c.tools.flatMap((t) => (t.title ? [[piName(c.server, t.name), t.title] as const] : [])),
		),
	);
	const ranker = new PiToolRanker((name) => titles.get(name));
	const bm25 = new PiBm25(tools);
	return {
		"mcp({search})": async (query) => {
			const text = contentText((await runProxy(lifecycle, { search: query })).content);
			const listed = [...text.matchAll(/^- ([^\s:(]+)/gm)].map((m) => m[1]);
			const also = /^Also: (.*)$/m.exec(text)?.[1]?.split(", ") ?? [];
			return [...listed, ...also].map((name) => qualified.get(name) ?? name);
		},
		"tool_search, searchTools()": async (query, limit) => fromPi(await ranker.rank(query, tools, limit)),
		"engine ranking": async (query, limit) =>
			searchCatalog(lifecycle.catalog as ToolCatalog, query, { limit }).map((h) => `${h.tool.server}/${h.tool.name}`),
		"Pi's BM25": async (query, limit) => fromPi(bm25.rank(query, limit)),
	};
}

interface Figures {
	queries?: { n: number; hit1: number; hit5: number };
	tasks?: { n: number; hit1: number; hit5: number; recall10: number; all10: number };
	steps?: { n: number; tasks: number; share: number; allFound: number };
}

const share = (xs: readonly boolean[]) => xs.filter(Boolean).length / Math.max(1, xs.length);

async function measure(set: PublicSet, rank: Rank): Promise<Figures> {
	const out: Figures = {};
	if (set.queries.length > 0) {
		const ranks = await Promise.all(set.queries.map(async (q) => rankOf(await rank(q.query, 10), q.tools)));
		out.queries = {
			n: ranks.length,
			hit1: share(ranks.map((r) => r === 0)),
			hit5: share(ranks.map((r) => r >= 0 && r < 5)),
		};
	}
	if (set.tasks.length > 0) {
		const hit1: boolean[] = [];
		const hit5: boolean[] = [];
		const all10: boolean[] = [];
		let found = 0;
		let needed = 0;
		for (const task of set.tasks) {
			const ranked = (await rank(task.query, 10)).slice(0, 10);
			hit1.push(task.tools.includes(ranked[0]));
			hit5.push(ranked.slice(0, 5).some((name) => task.tools.includes(name)));
			const inTen = task.tools.filter((t) => ranked.includes(t)).length;
			found += inTen;
			needed += task.tools.length;
			all10.push(inTen === task.tools.length);
		}
		out.tasks = {
			n: set.tasks.length,
			hit1: share(hit1),
			hit5: share(hit5),
			recall10: found / needed,
			all10: share(all10),
		};
	}
	const planned = set.tasks.filter((t) => t.steps.length > 0);
	if (planned.length > 0) {
		let found = 0;
		let needed = 0;
		let steps = 0;
		const allFound: boolean[] = [];
		for (const task of planned) {
			const wanted = new Set(task.steps.flatMap((s) => s.tools));
			const seen = new Set<string>();
			for (const step of task.steps) {
				steps++;
				const five = (await rank(step.query, 5)).slice(0, 5);
				for (const tool of step.tools) if (five.includes(tool)) seen.add(tool);
			}
			found += seen.size;
			needed += wanted.size;
			allFound.push(seen.size === wanted.size);
		}
		out.steps = { n: steps, tasks: planned.length, share: found / needed, allFound: share(allFound) };
	}
	return out;
}

function rankOf(ranked: readonly string[], answers: readonly string[]): number {
	return ranked.findIndex((name) => answers.includes(name));
}

const pct = (x: number) => `${(x * 100).toFixed(1)}`.padStart(5);

function row(route: string, f: Figures): string {
	const cells = [route.padEnd(26)];
	if (f.queries) cells.push(`queries hit@1 ${pct(f.queries.hit1)} hit@5 ${pct(f.queries.hit5)}`);
	if (f.tasks)
		cells.push(
			`task hit@1 ${pct(f.tasks.hit1)} hit@5 ${pct(f.tasks.hit5)} recall@10 ${pct(f.tasks.recall10)} all@10 ${pct(f.tasks.all10)}`,
		);
	if (f.steps) cells.push(`steps: tools in first 5 ${pct(f.steps.share)}, tasks all found ${pct(f.steps.allFound)}`);
	return `  ${cells.join(" | ")}`;
}

function counts(set: PublicSet, f: Figures): string {
	const parts = [`${set.catalogs.reduce((n, c) => n + c.tools.length, 0)} tools`];
	if (f.queries) parts.push(`${f.queries.n} short queries`);
	if (f.tasks) parts.push(`${f.tasks.n} tasks`);
	if (f.steps) parts.push(`${f.steps.n} steps in ${f.steps.tasks} tasks`);
	return parts.join(", ");
}

/** Every route's figures on a set (or only those named). */
export async function measurePublicSet(set: PublicSet, only?: readonly string[]): Promise<Record<string, Figures>> {
	const out: Record<string, Figures> = {};
	for (const [route, rank] of Object.entries(routes(set)))
		if (!only || only.includes(route)) out[route] = await measure(set, rank);
	return out;
}

export async function main(): Promise<void> {
	console.log(
		"== search on public sets nobody here wrote (MetaTool, MCP-Bench: each a tuning half and a held-out half) ==",
	);
	const sets = [
		loadMetaTool(0),
		loadMetaTool(1),
		loadMetaToolTasks(0),
		loadMetaToolTasks(1),
		loadMcpBench(0),
		loadMcpBench(1),
	];
	for (const set of sets) {
		const figures = await measurePublicSet(set);
		console.log(`${set.name} (${counts(set, Object.values(figures)[0] as Figures)}):`);
		for (const [route, f] of Object.entries(figures)) console.log(row(route, f));
	}
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
