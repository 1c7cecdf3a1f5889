// What the model receives from Pi 1.x's own search tools, scored like bench/search-quality.ts scores
// `mcp({search})`: the real `pi` (Pi 1.6.0, npm's latest; BENCH_HOSTS=pi-1.5 for Pi 1.5.2, whose
// tool_search and codemode are the same code, file for file) with a scripted model, the 35 real catalogs served by
// fixture MCP servers (tests/fixtures/catalog-server.ts, one per catalog), once with Pi's built-in
// MCP (its tool_search and codemode: Pi's BM25) and once with this extension (both ranked by our
// engine). tool_search: one call per query, the tools listed in its answer scored (hit@1, hit@5),
// with bench/extensions/unload-searched.ts unloading what each call loaded so that every query
// searches the same tools. searchTools(): one codemode script runs every query (limit 5).
import { join } from "node:path";
import { CATALOG_DIR, type Catalog, loadCatalogs } from "../tests/support/catalogs.ts";
import { ROOT, TSX } from "../tests/support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../tests/support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../tests/support/pi-cli-harness.ts";
import { ensurePi1, PI15_VERSION, PI16_VERSION, pi1Host } from "../tests/support/pi-hosts.ts";
import { QUERIES, type Query } from "../tests/support/search-queries.ts";
import { SETUP_QUERIES, TEST_QUERIES } from "./search-test-queries.ts";

type Stack = "built-in" | "ours";
type Tool = "tool_search" | "searchTools";

const UNLOAD = join(ROOT, "bench", "extensions", "unload-searched.ts");
const CATALOG_SERVER = join(ROOT, "tests", "fixtures", "catalog-server.ts");

/** The Pi line measured. */
const VERSION = process.env.BENCH_HOSTS === "pi-1.5" ? PI15_VERSION : PI16_VERSION;
const HOST = pi1Host(VERSION);

/** Pi 1.x's name of a tool (`mcp__<server>__<tool>`, characters a name cannot hold as `_`). */
const piName = (answer: string) => {
	const [server, tool] = answer.split("/");
	const clean = (text: string) => text.replace(/[^A-Za-z0-9_]/g, "_");
	return `mcp__${clean(server)}__${clean(tool)}`;
};

export interface PiSearchReport {
	readonly queries: number;
	readonly hit1: number;
	readonly hit5: number;
}

function score(queries: readonly Query[], listed: readonly string[][]): PiSearchReport {
	let hit1 = 0;
	let hit5 = 0;
	queries.forEach(([, ...answers], i) => {
		const wanted = new Set(answers.map(piName));
		const rank = (listed[i] ?? []).findIndex((name) => wanted.has(name));
		if (rank === 0) hit1++;
		if (rank >= 0 && rank < 5) hit5++;
	});
	return { queries: queries.length, hit1: hit1 / queries.length, hit5: hit5 / queries.length };
}

/** A home whose mcp.json serves these catalogs, each from its own fixture server. */
async function homeFor(catalogs: readonly Catalog[], exposure: string): Promise<PiHome> {
	const mcpServers = Object.fromEntries(
		catalogs.map((c) => [
			c.server,
			{ command: process.execPath, args: [TSX, CATALOG_SERVER, join(CATALOG_DIR, `${c.server}.json`)], exposure },
		]),
	);
	return createPiHome({ mcpConfig: { mcpServers } });
}

const options = (stack: Stack, extra: string[] = []) => ({
	host: HOST,
	noExtension: stack === "built-in",
	builtins: stack === "ours" ? ["codemode", "tool-search"] : ["mcp", "codemode", "tool-search"],
	extraArgs: extra,
	timeoutMs: 900_000,
});

/**
 * Queries per session: every turn sends Pi the whole conversation again, so one session of 190
 * queries cost time by the square of its length (30-40 min of `npm run bench`); sessions of 25
 * keep each turn short, at one Pi start per 25 queries.
 */
const QUERIES_PER_SESSION = 25;

/** One tool_search call per query, in sessions of QUERIES_PER_SESSION; the names each answer lists. */
async function viaToolSearch(home: PiHome, stack: Stack, queries: readonly Query[]): Promise<string[][]> {
	const listed: string[][] = [];
	for (let from = 0; from < queries.length; from += QUERIES_PER_SESSION)
		listed.push(...(await toolSearchSession(home, stack, queries.slice(from, from + QUERIES_PER_SESSION))));
	return listed;
}

async function toolSearchSession(home: PiHome, stack: Stack, queries: readonly Query[]): Promise<string[][]> {
	const listed: string[][] = [];
	const steps = [...queries, undefined].map((query, i) => (request: ChatRequest) => {
		if (i > 0) listed.push([...lastToolMessage(request).matchAll(/^- ([^\s:]+):/gm)].map((m) => m[1]));
		return query ? { toolCall: { name: "tool_search", arguments: { query: query[0] } } } : { text: "done" };
	});
	const run = await runPi(home, "find tools", { ...options(stack, ["-e", UNLOAD]), steps });
	if (run.code !== 0) throw new Error(`pi (${stack}) exited ${run.code}: ${run.stderr.slice(-2000)}`);
	return listed;
}

/** One codemode script that runs searchTools() for every query; the names of each answer. */
async function viaSearchTools(home: PiHome, stack: Stack, queries: readonly Query[]): Promise<string[][]> {
	const script = [
		'// @options: {"max_output_tokens": 1000000}',
		`const queries = ${JSON.stringify(queries.map(([query]) => query))};`,
		"const out = [];",
		"for (const query of queries) out.push((await searchTools(query, { limit: 5 })).map((tool) => tool.name));",
		"return JSON.stringify(out);",
	].join("\n");
	let answer = "";
	const steps = [
		() => ({ toolCall: { name: "codemode", arguments: { code: script } } }),
		(request: ChatRequest) => {
			answer = lastToolMessage(request);
			return { text: "done" };
		},
	];
	const run = await runPi(home, "find tools", { ...options(stack), steps });
	if (run.code !== 0) throw new Error(`pi (${stack}) exited ${run.code}: ${run.stderr.slice(-2000)}`);
	return JSON.parse(answer.slice(answer.indexOf("[["), answer.lastIndexOf("]]") + 2)) as string[][];
}

/** One query set over some catalogs, on both stacks, through one of the tools. */
export async function measureSet(
	catalogs: readonly Catalog[],
	queries: readonly Query[],
	tool: Tool,
): Promise<Record<Stack, PiSearchReport>> {
	const home = await homeFor(catalogs, tool === "tool_search" ? "deferred" : "codemode");
	try {
		// A first session fills our cache (a warm start, as users run it); Pi's built-in lists at each start.
		await runPi(home, "hi", { ...options("ours"), steps: [() => ({ text: "ok" })] });
		const out = {} as Record<Stack, PiSearchReport>;
		for (const stack of ["built-in", "ours"] as const) {
			const listed =
				tool === "tool_search" ? await viaToolSearch(home, stack, queries) : await viaSearchTools(home, stack, queries);
			out[stack] = score(queries, listed);
		}
		return out;
	} finally {
		await home.dispose();
	}
}

/** Query-weighted mean of several parts. */
function merge(parts: readonly PiSearchReport[]): PiSearchReport {
	const queries = parts.reduce((n, p) => n + p.queries, 0);
	const mean = (key: "hit1" | "hit5") => parts.reduce((sum, p) => sum + p[key] * p.queries, 0) / queries;
	return { queries, hit1: mean("hit1"), hit5: mean("hit5") };
}

export async function measurePiSearch(tool: Tool): Promise<Record<"tuning" | "test", Record<Stack, PiSearchReport>>> {
	const catalogs = loadCatalogs();
	const tuning = await measureSet(catalogs, QUERIES, tool);
	const parts = [await measureSet(catalogs, TEST_QUERIES, tool)];
	for (const setup of SETUP_QUERIES)
		parts.push(
			await measureSet(
				catalogs.filter((c) => setup.servers.includes(c.server)),
				setup.queries,
				tool,
			),
		);
	const test = {
		"built-in": merge(parts.map((p) => p["built-in"])),
		ours: merge(parts.map((p) => p.ours)),
	};
	return { tuning, test };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export async function main(): Promise<void> {
	ensurePi1(VERSION);
	console.log(`${HOST.name}'s search tools, what the model receives (real pi, scripted model, 35 catalog servers):`);
	for (const tool of ["tool_search", "searchTools"] as const) {
		const { tuning, test } = await measurePiSearch(tool);
		for (const stack of ["built-in", "ours"] as const) {
			const t = tuning[stack];
			const h = test[stack];
			console.log(
				`  ${tool.padEnd(11)} ${stack === "ours" ? "with the extension" : "Pi's built-in     "}: test hit@1 ${pct(h.hit1)} hit@5 ${pct(h.hit5)} | tuning hit@1 ${pct(t.hit1)} hit@5 ${pct(t.hit5)} | gap ${((t.hit1 - h.hit1) * 100).toFixed(1)} / ${((t.hit5 - h.hit5) * 100).toFixed(1)} points`,
			);
		}
	}
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
