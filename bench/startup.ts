// Startup cost on the path a user walks: real first runs of `pi -p` fill the cache for 20 (then
// 50) lazy servers, then runs with and without the extension alternate (medians); the extension
// must start no server once the cache holds them. On Pi 1.x the floor is Pi registering the very
// tools our start registered (bench/extensions/registrations-only.ts): the first start after a
// config change (no snapshot) is held to that floor's CPU time plus 5%.
// Also the memory of an npx-launched server tree with and without npx resolution.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { listDescendants } from "../bounds/process-tree.ts";
import { defineServer } from "../config.ts";
import { CACHE_FILE } from "../metadata-cache.ts";
import { NpxResolver } from "../npx-resolver.ts";
import { ProxyParams } from "../proxy/surface.ts";
import { McpServerManager } from "../server-manager.ts";
import { SNAPSHOT_DIR, type StartState } from "../start-up/start-snapshot.ts";
import { MEMORY, TEST_NPM_CACHE, tempDir } from "../tests/support/helpers.ts";
import { BENCH_RUN_MS, createPiHome, type PiHome, runPi } from "../tests/support/pi-cli-harness.ts";
import type { PiHost } from "../tests/support/pi-hosts.ts";
import type { StdioServerEntry } from "../types.ts";
import { ALL_LINES } from "./pi-lines.ts";
import { treeRssMb } from "./process-memory.ts";

// 16: with 8 the median of a ~1.3 s run moved by ±10% between runs on a loaded 2-core machine (1.006 to 1.105).
const RUNS = Number(process.env.BENCH_RUNS ?? 16);

/**
 * What a timed run loads: this extension (from its start-up snapshot, as every start after the
 * second; or the long way, as the first start after a config change), none, or one of the floors
 * in bench/extensions.
 */
type Variant = "ours" | "ours-long" | "none" | "empty" | "registrations";
const FLOORS: Record<string, string> = {
	empty: join(import.meta.dirname, "extensions", "empty.ts"),
	registrations: join(import.meta.dirname, "extensions", "registrations-only.ts"),
};

const CPU_HOOK = pathToFileURL(join(import.meta.dirname, "cpu-at-exit.mjs")).href;

/** The file the registrations floor reads: every Pi tool definition this extension's last start registered. */
const floorTools = (home: PiHome) => join(home.root, "floor-tools.json");

/**
 * Writes the definitions the extension's start registered, from the start-up snapshot it kept (the
 * MCP tools as Pi tools, exactly; the `mcp` tool with its description and parameters), for the floor.
 */
function writeFloorTools(home: PiHome): number {
	const dir = join(home.agentDir, SNAPSHOT_DIR);
	const [file] = readdirSync(dir).filter((name) => name.endsWith(".json"));
	const { state } = JSON.parse(readFileSync(join(dir, file), "utf8")) as { state: StartState };
	const proxy = {
		name: "mcp",
		label: "MCP",
		description: state.proxy.description,
		parameters: ProxyParams,
		...(state.proxy.declared ? {} : { exposure: "deferred" }),
	};
	const definitions = [...(state.piTools?.tools ?? []).map((t) => t.definition), proxy];
	writeFileSync(floorTools(home), JSON.stringify(definitions));
	return definitions.length;
}

/** Wall time and Pi's own CPU time of a whole `pi -p` run (start, session_start, one scripted turn, exit) in a home. */
async function timeRun(home: PiHome, variant: Variant, host: PiHost): Promise<{ wall: number; cpu: number }> {
	const cpuFile = join(home.root, "cpu.jsonl");
	rmSync(cpuFile, { force: true });
	let pid = -1;
	const started = performance.now();
	// Pi 1.x as users run it: its default built-in extensions (MCP aside, which ours replaces) on both sides.
	const builtins = host.pi1 ? ["codemode", "tool-search", "llama.cpp"] : [];
	const floor = FLOORS[variant];
	// The long way: no snapshot to start from (it is written again by this run).
	if (variant === "ours-long") rmSync(join(home.agentDir, SNAPSHOT_DIR), { recursive: true, force: true });
	const run = await runPi(home, "hi", {
		host,
		builtins,
		steps: [() => ({ text: "ok" })],
		noExtension: variant !== "ours" && variant !== "ours-long",
		extraArgs: floor ? ["-e", floor] : [],
		env: { NODE_OPTIONS: `--import=${CPU_HOOK}`, BENCH_CPU_FILE: cpuFile, BENCH_FLOOR_TOOLS: floorTools(home) },
		timeoutMs: BENCH_RUN_MS,
		onSpawn: (spawned) => {
			pid = spawned;
		},
	});
	const wall = performance.now() - started;
	if (run.code !== 0)
		throw new Error(`pi exited ${run.code ?? "killed (no exit within its time limit)"}: ${run.stderr}`);
	// Pi's own process: a process it started would report too, under another pid.
	const own = readFileSync(cpuFile, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { pid: number; cpuUs: number })
		.find((report) => report.pid === pid);
	if (!own) throw new Error("pi reported no CPU time");
	return { wall, cpu: own.cpuUs / 1000 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function npxMemory(): Promise<void> {
	const work = tempDir();
	try {
		const entry = defineServer("memory", {
			command: "npx",
			args: ["-y", "@modelcontextprotocol/server-memory@2026.8.31"],
			env: { npm_config_cache: TEST_NPM_CACHE, MEMORY_FILE_PATH: join(work.path, "m.jsonl") },
			cwd: work.path,
		}) as StdioServerEntry;
		const measure = async (manager: McpServerManager) => {
			const t = performance.now();
			const connection = await manager.connect(entry);
			const ms = performance.now() - t;
			await new Promise((r) => setTimeout(r, 500));
			const mb = treeRssMb(connection.pid as number);
			const processes = 1 + listDescendants(connection.pid as number).length;
			await manager.closeAll();
			return { ms, mb, processes };
		};
		await measure(new McpServerManager()); // make sure npx has it cached
		const plain = await measure(new McpServerManager());
		const resolved = await measure(
			new McpServerManager({ launch: new NpxResolver({ agentDir: work.path, npmCache: TEST_NPM_CACHE }).launcher() }),
		);
		console.log("\n== npx-launched server-memory: process tree ==");
		console.log(
			`plain npx:     ${plain.processes} processes, ${plain.mb.toFixed(0)} MB RSS, ready in ${plain.ms.toFixed(0)} ms`,
		);
		console.log(
			`resolved bin:  ${resolved.processes} processes, ${resolved.mb.toFixed(0)} MB RSS, ready in ${resolved.ms.toFixed(0)} ms`,
		);
		console.log(
			`memory ratio plain / resolved: ${(plain.mb / resolved.mb).toFixed(2)}x; ready-time ratio: ${(plain.ms / resolved.ms).toFixed(2)}x`,
		);
	} finally {
		work.remove();
	}
}

/**
 * `count` real lazy servers (server-memory, each counting its starts). Real first runs fill the
 * cache, exactly as a user's would (no cache is written here); then runs with and without the
 * extension alternate, and the medians compare. Every server start is counted.
 */
export async function startupWith(count: number, host: PiHost): Promise<void> {
	const home = await createPiHome({});
	try {
		const log = join(home.root, "starts.log");
		const mcpServers = Object.fromEntries(
			Array.from({ length: count }, (_, i) => [
				`server${i}`,
				{
					command: "sh",
					args: ["-c", `echo ${i} >> '${log}'; exec '${process.execPath}' '${MEMORY}'`],
					env: { MEMORY_FILE_PATH: join(home.root, `m${i}.jsonl`) },
				},
			]),
		);
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers }));
		const cached = () => {
			try {
				return Object.keys(JSON.parse(readFileSync(join(home.agentDir, CACHE_FILE), "utf8")).servers).length;
			} catch {
				return 0;
			}
		};
		let firstRuns = 0;
		let firstMs = 0;
		while (cached() < count && firstRuns < 5) {
			firstMs += (await timeRun(home, "ours", host)).wall;
			firstRuns++;
		}
		const starts = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split(/\s+/).length : 0);
		// A start with the cache full keeps a snapshot: what it registered is what the floor registers.
		await timeRun(home, "ours", host);
		const floorCount = host.pi1 ? writeFloorTools(home) : 0;
		const startsBefore = starts();
		// Pi 0.73 has no tool registry of MCP tools to fill: its floor is the empty extension.
		const variants: Variant[] = host.pi1
			? ["none", "empty", "registrations", "ours", "ours-long"]
			: ["none", "empty", "ours", "ours-long"];
		const times = new Map<Variant, { wall: number[]; cpu: number[] }>(variants.map((v) => [v, { wall: [], cpu: [] }]));
		for (let i = 0; i < RUNS + 1; i++) {
			for (const variant of variants) {
				const { wall, cpu } = await timeRun(home, variant, host);
				if (i === 0) continue; // round 0 warms up
				times.get(variant)?.wall.push(wall);
				times.get(variant)?.cpu.push(cpu);
			}
		}
		console.log(
			`== ${host.name}: pi -p start to exit (one scripted turn), ${count} lazy servers (median of ${RUNS}) ==`,
		);
		console.log(
			`the cache, filled by real first runs: ${cached()}/${count} servers after ${firstRuns} run(s), ${(firstMs / 1000).toFixed(1)} s`,
		);
		const base = times.get("none") as { wall: number[]; cpu: number[] };
		const labels: Record<Variant, string> = {
			none: "without the extension",
			empty: "an empty extension (Pi loading any extension)",
			registrations: "the same tools registered, nothing else (Pi's own cost)",
			ours: "the extension, from its start-up snapshot",
			"ours-long": "the extension the long way (no snapshot: after a config change)",
		};
		console.log(
			`${"".padEnd(70)} ${"wall ms".padStart(9)} ${"ratio".padStart(7)} ${"Pi's CPU ms".padStart(12)} ${"ratio".padStart(7)}`,
		);
		for (const variant of variants) {
			const { wall, cpu } = times.get(variant) as { wall: number[]; cpu: number[] };
			console.log(
				`${labels[variant].padEnd(70)} ${median(wall).toFixed(1).padStart(9)} ${`x${(median(wall) / median(base.wall)).toFixed(3)}`.padStart(7)} ${median(cpu).toFixed(1).padStart(12)} ${`x${(median(cpu) / median(base.cpu)).toFixed(3)}`.padStart(7)}`,
			);
		}
		if (floorCount > 0) {
			const cpu = (v: Variant) => median(times.get(v)?.cpu ?? []);
			const over = (v: Variant) => `x${(cpu(v) / cpu("registrations")).toFixed(3)}`;
			console.log(
				`over the floor of ${floorCount} tools registered (Pi's CPU; target <= x1.05): from the snapshot ${over("ours")}, the long way ${over("ours-long")}`,
			);
		}
		console.log(`servers started during the timed runs: ${starts() - startsBefore}`);
	} finally {
		await home.dispose();
	}
}

export async function main(): Promise<void> {
	// BENCH_HOSTS=pi-1.5 (or pi-0.73) measures one line only, for an A/B between two commits.
	const only = process.env.BENCH_HOSTS?.split(",");
	for (const host of ALL_LINES.filter((h) => !only || only.includes(h.name))) {
		await startupWith(20, host);
		console.log();
		await startupWith(50, host);
		console.log();
	}
	await npxMemory();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
