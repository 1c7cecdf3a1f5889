// Search quality and cost over the 35 real catalogs (656 tools): hit@1, hit@5 and MRR on the
// tuning set (search-queries.ts) and the held-out test set (search-test-queries.ts: all catalogs
// at once, plus small setups of a few servers), and the gap between them; the token cost of the
// model's whole MCP surface, the median tokens of a search result, and search latency and index
// build at 10,000 tools, side by side with the engine of issue 14's start.

import { ToolCatalog } from "../catalog/tool-catalog.ts";
import { runProxy } from "../proxy/proxy-tool.ts";
import { PROXY_DESCRIPTION, PROXY_TOOL_NAME, ProxyParams } from "../proxy/surface.ts";
import { contentText } from "../proxy/tool-results.ts";
import { searchCatalog, ToolSearchIndex } from "../search/engine.ts";
import { type Catalog, loadCatalogs } from "../tests/support/catalogs.ts";
import { QUERIES, type Query, type Setup } from "../tests/support/search-queries.ts";
import { sessionOf } from "../tests/support/search-session.ts";
import { countTokens, toolDefinitionTokens } from "../tests/support/token-count.ts";
import { loadBaselineEngine, type SearchFn } from "./baseline-engine.ts";
import { FRESH_QUERIES, FRESH_SETUP_QUERIES } from "./search-fresh-queries.ts";
import { SETUP_QUERIES, TEST_QUERIES } from "./search-test-queries.ts";

/** Queries over every catalog at once, and queries asked in small setups of a few servers. */
interface QuerySet {
	readonly queries: readonly Query[];
	readonly setups: readonly Setup[];
}
const TEST_SET: QuerySet = { queries: TEST_QUERIES, setups: SETUP_QUERIES };
const FRESH_SET: QuerySet = { queries: FRESH_QUERIES, setups: FRESH_SETUP_QUERIES };

function catalogOf(catalogs: readonly Catalog[], copies = 1): ToolCatalog {
	const names = catalogs.flatMap((c) =>
		Array.from({ length: copies }, (_, i) => (i === 0 ? c.server : `${c.server}${i + 1}`)),
	);
	const catalog = new ToolCatalog("server", names);
	for (const c of catalogs) {
		for (let i = 0; i < copies; i++) {
			const server = i === 0 ? c.server : `${c.server}${i + 1}`;
			const instructions = c.instructions ? { instructions: c.instructions } : {};
			catalog.set(server, { tools: c.tools.map((t) => ({ ...t, server })), resources: [], ...instructions }, false);
		}
	}
	return catalog;
}

export interface QualityReport {
	readonly queries: number;
	readonly hit1: number;
	readonly hit5: number;
	/** What the model receives only: a hit anywhere in the answer (the five described and those by name after them). */
	readonly hitShown?: number;
	readonly mrr: number;
	readonly misses: { query: string; got: string[] }[];
}

export function measureQuality(catalog: ToolCatalog, queries: readonly Query[] = QUERIES): QualityReport {
	const known = new Set(catalog.all().map((t) => `${t.server}/${t.name}`));
	let hit1 = 0;
	let hit5 = 0;
	let rr = 0;
	const misses: { query: string; got: string[] }[] = [];
	for (const [query, ...answers] of queries) {
		for (const a of answers) if (!known.has(a)) throw new Error(`query "${query}": no tool ${a} in the catalogs`);
		const ranked = searchCatalog(catalog, query, { limit: 10 }).map((h) => `${h.tool.server}/${h.tool.name}`);
		const rank = ranked.findIndex((r) => answers.includes(r));
		if (rank === 0) hit1++;
		if (rank >= 0 && rank < 5) hit5++;
		if (rank >= 0) rr += 1 / (rank + 1);
		if (rank !== 0) misses.push({ query, got: ranked.slice(0, 3) });
	}
	return {
		queries: queries.length,
		hit1: hit1 / queries.length,
		hit5: hit5 / queries.length,
		mrr: rr / queries.length,
		misses,
	};
}

/**
 * What the model receives, scored as a model reads it: the tool names on the answer's `- name`
 * lines (the answer of `mcp({search})`, with its weak-answer cut), hit@1 and hit@5 of those, and
 * hit@shown of those and the names on its `Also:` line; and the answers' token cost.
 */
export async function measureAnswers(
	catalogs: readonly Catalog[],
	queries: readonly Query[],
): Promise<QualityReport & { tokens: number[] }> {
	const lifecycle = sessionOf(catalogs);
	const qualified = new Map(lifecycle.catalog.all().map((t) => [t.qualifiedName, `${t.server}/${t.name}`]));
	let hit1 = 0;
	let hit5 = 0;
	let hitShown = 0;
	let rr = 0;
	const tokens: number[] = [];
	const misses: { query: string; got: string[] }[] = [];
	for (const [query, ...answers] of queries) {
		const text = contentText((await runProxy(lifecycle, { search: query })).content);
		tokens.push(countTokens(text));
		const listed = [...text.matchAll(/^- ([^\s:(]+)/gm)].map((m) => qualified.get(m[1]) ?? m[1]);
		const rank = listed.findIndex((name) => answers.includes(name));
		if (rank === 0) hit1++;
		if (rank >= 0 && rank < 5) hit5++;
		if (rank >= 0) rr += 1 / (rank + 1);
		if (rank !== 0) misses.push({ query, got: listed.slice(0, 3) });
		const also = /^Also: (.*)$/m.exec(text)?.[1]?.split(", ") ?? [];
		if ([...listed, ...also.map((name) => qualified.get(name) ?? name)].some((name) => answers.includes(name)))
			hitShown++;
	}
	const n = queries.length;
	return { queries: n, hit1: hit1 / n, hit5: hit5 / n, hitShown: hitShown / n, mrr: rr / n, misses, tokens };
}

/** A set's answers: every catalog at once, then each small setup on its own catalogs. */
async function measureSetAnswers(
	catalogs: readonly Catalog[],
	set: QuerySet = TEST_SET,
): Promise<QualityReport & { tokens: number[] }> {
	const parts = [await measureAnswers(catalogs, set.queries)];
	for (const setup of set.setups) {
		parts.push(
			await measureAnswers(
				catalogs.filter((c) => setup.servers.includes(c.server)),
				setup.queries,
			),
		);
	}
	const queries = parts.reduce((n, p) => n + p.queries, 0);
	const mean = (key: "hit1" | "hit5" | "hitShown" | "mrr") =>
		parts.reduce((sum, p) => sum + (p[key] ?? 0) * p.queries, 0) / queries;
	return {
		queries,
		hit1: mean("hit1"),
		hit5: mean("hit5"),
		hitShown: mean("hitShown"),
		mrr: mean("mrr"),
		misses: parts.flatMap((p) => p.misses),
		tokens: parts.flatMap((p) => p.tokens),
	};
}

/** A set (the test set unless told): every catalog at once, then each small setup on its own catalogs. */
export function measureSet(catalogs: readonly Catalog[], set: QuerySet = TEST_SET): QualityReport {
	const parts = [measureQuality(catalogOf(catalogs), set.queries)];
	for (const setup of set.setups) {
		parts.push(measureQuality(catalogOf(catalogs.filter((c) => setup.servers.includes(c.server))), setup.queries));
	}
	const queries = parts.reduce((n, p) => n + p.queries, 0);
	const mean = (key: "hit1" | "hit5" | "mrr") => parts.reduce((sum, p) => sum + p[key] * p.queries, 0) / queries;
	return { queries, hit1: mean("hit1"), hit5: mean("hit5"), mrr: mean("mrr"), misses: parts.flatMap((p) => p.misses) };
}

const line = (r: QualityReport) =>
	`hit@1 ${(r.hit1 * 100).toFixed(1)}%   hit@5 ${(r.hit5 * 100).toFixed(1)}%   MRR ${r.mrr.toFixed(3)}`;

/** What the `mcp` tool's search asks of the engine (the engine of issue 14's start knows only `limit`). */
const AS_THE_PROXY_ASKS = { limit: 5, keep: { top: 20, share: 0.15 } } as const;

/** This process's CPU time in ms: on a shared machine it moves far less than wall time. */
const cpuMs = () => {
	const { user, system } = process.cpuUsage();
	return (user + system) / 1000;
};

/** Wall and CPU time of one call. */
function timed(run: () => void): { wall: number; cpu: number } {
	const [wall, cpu] = [performance.now(), cpuMs()];
	run();
	return { wall: performance.now() - wall, cpu: cpuMs() - cpu };
}

interface ScaleReport {
	/** Wall and CPU ms, medians over BUILDS fresh catalogs. */
	readonly build: { wall: number; cpu: number };
	/** The first build in this process (the code least warmed up). */
	readonly firstBuild: { wall: number; cpu: number };
	readonly changed: { wall: number; cpu: number };
	readonly p50: { wall: number; cpu: number };
	readonly p99: { wall: number; cpu: number };
}

/** Fresh catalogs built (and servers changed) per engine: on a shared machine one run can land on a busy moment. */
const BUILDS = 3;

/** Build, update after one server's change, and latency of one engine over `copies` copies of the catalogs. */
function scale(catalogs: readonly Catalog[], copies: number, search: SearchFn): ScaleReport {
	const builds: { wall: number; cpu: number }[] = [];
	const changes: { wall: number; cpu: number }[] = [];
	const times: number[] = [];
	const cpuTimes: number[] = [];
	const github = catalogs.find((c) => c.server === "github") as Catalog;
	for (let run = 0; run < BUILDS; run++) {
		const big = catalogOf(catalogs, copies);
		builds.push(timed(() => search(big, "warm up")));
		if (run === 0)
			for (let round = 0; round < 3; round++) {
				for (const [query] of QUERIES) {
					const one = timed(() => search(big, query, AS_THE_PROXY_ASKS));
					times.push(one.wall);
					cpuTimes.push(one.cpu);
				}
			}
		// A server reconnects with one tool's description changed: the next search pays for the update.
		big.set(
			"github",
			{
				tools: github.tools.map((tool, i) => ({
					...tool,
					server: "github",
					description: i === 0 ? `${tool.description} (v2)` : tool.description,
				})),
				resources: [],
			},
			false,
		);
		changes.push(timed(() => search(big, "create an issue", AS_THE_PROXY_ASKS)));
	}
	const median = (xs: { wall: number; cpu: number }[]) => ({
		wall: percentile(
			xs.map((x) => x.wall),
			0.5,
		),
		cpu: percentile(
			xs.map((x) => x.cpu),
			0.5,
		),
	});
	return {
		build: median(builds),
		firstBuild: builds[0],
		changed: median(changes),
		p50: { wall: percentile(times, 0.5), cpu: percentile(cpuTimes, 0.5) },
		p99: { wall: percentile(times, 0.99), cpu: percentile(cpuTimes, 0.99) },
	};
}

const ms = ({ wall, cpu }: { wall: number; cpu: number }, digits = 0) =>
	`${wall.toFixed(digits)} ms (CPU ${cpu.toFixed(digits)})`;

function scaleLine(r: ScaleReport): string {
	return `build ${ms(r.build)} (first ${ms(r.firstBuild)}), one server changed ${ms(r.changed)}, search p50 ${ms(r.p50, 2)}, p99 ${ms(r.p99, 2)}`;
}

/** The goals of issue 41 against the current engine's wall times. */
function goals(r: ScaleReport): string {
	const check = (label: string, value: number, goal: number) =>
		`${label} ${value.toFixed(value < 10 ? 1 : 0)} < ${goal} ms ${value < goal ? "met" : "NOT met"}`;
	return [
		check("build", r.build.wall, 300),
		check("one server changed", r.changed.wall, 100),
		check("p50", r.p50.wall, 5),
		check("p99", r.p99.wall, 20),
	].join("; ");
}

/** The longest single step of a background build: how long Pi's event loop is held at once. */
function backgroundPause(big: ToolCatalog): number {
	const steps = new ToolSearchIndex().updating(big.all());
	let longest = 0;
	for (;;) {
		const t = performance.now();
		const done = steps.next().done;
		longest = Math.max(longest, performance.now() - t);
		if (done) return longest;
	}
}

const percentile = (xs: number[], p: number) =>
	[...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

const points = (a: number, b: number) => `${((a - b) * 100).toFixed(1)}`;

export async function main(): Promise<void> {
	const catalogs = loadCatalogs();
	const catalog = catalogOf(catalogs);
	const quality = measureQuality(catalog);
	const fresh = measureSet(catalogs, FRESH_SET);
	const test = measureSet(catalogs);
	console.log(`== mcp({search}): search quality over ${catalogs.length} catalogs, ${catalog.all().length} tools ==`);
	console.log("the engine's ranking:");
	console.log(`  tuning set (${quality.queries} queries):  ${line(quality)}`);
	console.log(`  fresh tuning set (${fresh.queries}):    ${line(fresh)}`);
	console.log(`  test set   (${test.queries} held-out):    ${line(test)}`);
	console.log(
		`  gap tuning - test: hit@1 ${points(quality.hit1, test.hit1)} points, hit@5 ${points(quality.hit5, test.hit5)}; fresh tuning - test: hit@1 ${points(fresh.hit1, test.hit1)}, hit@5 ${points(fresh.hit5, test.hit5)}`,
	);

	// What the model receives (the answer text, parsed as a model reads it), beside the engine's ranking.
	const tuningAnswers = await measureAnswers(catalogs, QUERIES);
	const freshAnswers = await measureSetAnswers(catalogs, FRESH_SET);
	const testAnswers = await measureSetAnswers(catalogs);
	const cost = (r: { tokens: number[] }) =>
		`median ${percentile(r.tokens, 0.5)} tokens, p95 ${percentile(r.tokens, 0.95)}`;
	const shown = (r: QualityReport) => `hit@shown ${((r.hitShown ?? 0) * 100).toFixed(1)}%`;
	console.log(
		"what the model receives (hit@1/hit@5: the five tools described; hit@shown: those and the up to eight more named on the Also: line):",
	);
	console.log(`  tuning set: ${line(tuningAnswers)}   ${shown(tuningAnswers)}   (${cost(tuningAnswers)})`);
	console.log(`  fresh set:  ${line(freshAnswers)}   ${shown(freshAnswers)}   (${cost(freshAnswers)})`);
	console.log(`  test set:   ${line(testAnswers)}   ${shown(testAnswers)}   (${cost(testAnswers)})`);
	console.log(
		`  gap tuning - test: hit@1 ${points(tuningAnswers.hit1, testAnswers.hit1)} points, hit@5 ${points(tuningAnswers.hit5, testAnswers.hit5)}, hit@shown ${points(tuningAnswers.hitShown ?? 0, testAnswers.hitShown ?? 0)}`,
	);
	const meets = (value: number, goal: number) =>
		`${(value * 100).toFixed(1)}% >= ${goal}% ${value * 100 >= goal ? "met" : "NOT met"}`;
	console.log(`  goals (test set): hit@5 ${meets(testAnswers.hit5, 85)}; hit@1 ${meets(testAnswers.hit1, 60)}`);

	const surface = toolDefinitionTokens({
		name: PROXY_TOOL_NAME,
		description: PROXY_DESCRIPTION,
		parameters: ProxyParams,
	});
	console.log(
		`MCP surface the model receives: ${surface} o200k tokens (the mcp tool; nothing added to the system prompt; goal <= 180)`,
	);

	const copies = Math.ceil(10_000 / catalog.all().length);
	const baseline = await loadBaselineEngine();
	console.log(
		`index at ${copies * catalog.all().length} tools, side by side in this run (build and change: medians of ${BUILDS} fresh catalogs):`,
	);
	if (baseline) console.log(`  engine of issue 14's start (${scaleLine(scale(catalogs, copies, baseline))})`);
	else console.log("  (no git history: the engine of issue 14's start is not measured)");
	const current = scale(catalogs, copies, searchCatalog);
	console.log(`  current engine           (${scaleLine(current)})`);
	console.log(
		`  current engine, built in the background: longest pause ${backgroundPause(catalogOf(catalogs, copies)).toFixed(0)} ms`,
	);
	console.log(`  goals (wall time): ${goals(current)}`);
	if (process.argv.includes("--misses"))
		for (const m of quality.misses) console.log(`  miss: ${m.query} -> ${m.got.join(", ")}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
