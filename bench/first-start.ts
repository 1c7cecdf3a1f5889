// A first start as quick as any later one: `pi -p hi` (no server) in a home where the package is
// installed as a user installs it, the first run on an empty temp folder (after a reboot; Pi's
// loader keeps what it compiles there) against the next run on the same folder, on each Pi line.
// Installed two ways: `pi install npm:pi-mcp-proxy` from a registry (verdaccio on 127.0.0.1, the
// tarball `npm pack` built: JavaScript, nothing to compile), and `pi install <folder>` of a clone
// (the TypeScript, compiled by Pi's loader); and Pi without the extension for the floor. Each home
// has had one session before the timed runs (the start-up snapshot written, as after any first day).
// Wall time and Pi's own CPU time, medians of runs taking turns: a loaded machine moves the first
// by seconds, the second barely.
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tempDir } from "../tests/support/helpers.ts";
import { emptyHome, type Home, homeEnv, piSession, runCommand } from "../tests/support/install-harness.ts";
import { copyWorkingTree, startRegistry } from "../tests/support/local-registry.ts";
import { PI_HOSTS, type PiHost } from "../tests/support/pi-hosts.ts";

const RUNS = Number(process.env.FIRST_START_RUNS ?? 5);

type Install = "npm" | "clone" | "none";
const LABELS: Record<Install, string> = {
	npm: "pi install npm:pi-mcp-proxy (built JavaScript)",
	clone: "pi install <clone> (TypeScript, compiled by Pi)",
	none: "Pi without the extension",
};

/** A run's wall time and Pi's own CPU time, in ms. */
interface Cost {
	readonly wall: number;
	readonly cpu: number;
}

interface Timed {
	readonly first: Cost[];
	readonly next: Cost[];
}

/** Preloaded into Pi: its CPU time at exit, which a loaded machine barely moves (wall time it does). */
const CPU_HOOK = pathToFileURL(join(import.meta.dirname, "cpu-at-exit.mjs")).href;

/** One `pi -p hi` in `at` with the temp folder `tmp`: its wall time, and the CPU time of Pi's process (this one's child). */
async function timedRun(host: PiHost, at: Home, env: NodeJS.ProcessEnv, tmp: string): Promise<Cost> {
	const cpuFile = join(tmp, "cpu.jsonl");
	const started = performance.now();
	const run = await piSession(
		host,
		at,
		{ ...env, TMPDIR: tmp, NODE_OPTIONS: `--import=${CPU_HOOK}`, BENCH_CPU_FILE: cpuFile },
		[() => ({ text: "ok" })],
		"hi",
	);
	const wall = performance.now() - started;
	if (run.code !== 0) throw new Error(`pi exited ${run.code}: ${run.out}`);
	const pi = readFileSync(cpuFile, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { ppid: number; cpuUs: number })
		.find((report) => report.ppid === process.pid);
	if (!pi) throw new Error("pi reported no CPU time");
	rmSync(cpuFile);
	return { wall, cpu: pi.cpuUs / 1000 };
}

/** A home with the package installed from `source` (`pi install <source>`; none without), no MCP server configured. */
async function installedHome(root: string, host: PiHost, name: Install, registry: string, source?: string) {
	const at = emptyHome(root, `${host.name}-${name}`);
	rmSync(join(at.agentDir, "mcp.json"));
	const env = homeEnv(at, registry);
	if (source) {
		const install = await runCommand(host.node, [host.cli, "install", source], at.cwd, env);
		if (install.code !== 0) throw new Error(`pi install ${source} failed: ${install.out}`);
	}
	return { at, env };
}

async function measure(host: PiHost, root: string, registry: string, clone: string): Promise<Map<Install, Timed>> {
	const homes: [Install, { at: Home; env: NodeJS.ProcessEnv }][] = [
		["npm", await installedHome(root, host, "npm", registry, "npm:pi-mcp-proxy")],
		["clone", await installedHome(root, host, "clone", registry, clone)],
		["none", await installedHome(root, host, "none", registry)],
	];
	const times = new Map<Install, Timed>(homes.map(([install]) => [install, { first: [], next: [] }]));
	// The first session of each home (the snapshot written), not timed.
	const warm = join(root, "warm");
	mkdirSync(warm);
	for (const [, { at, env }] of homes) await timedRun(host, at, env, warm);
	// Taking turns, so a busy moment hits all of them.
	for (let i = 0; i < RUNS; i++) {
		for (const [install, { at, env }] of homes) {
			const tmp = join(root, `tmp-${install}-${i}`);
			mkdirSync(tmp);
			times.get(install)?.first.push(await timedRun(host, at, env, tmp));
			times.get(install)?.next.push(await timedRun(host, at, env, tmp));
			rmSync(tmp, { recursive: true, force: true });
		}
	}
	return times;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const medians = (costs: Cost[]) => ({
	wall: median(costs.map((c) => c.wall)),
	cpu: median(costs.map((c) => c.cpu)),
});
/** The medians of wall and CPU time. */
const pair = (costs: Cost[]) => [medians(costs).wall.toFixed(0), medians(costs).cpu.toFixed(0)];
/** Medians of `a` over medians of `b`: wall, CPU. */
const ratio = (a: Cost[], b: Cost[]) => [
	`x${(medians(a).wall / medians(b).wall).toFixed(2)}`,
	`x${(medians(a).cpu / medians(b).cpu).toFixed(2)}`,
];

export async function main(): Promise<void> {
	// BENCH_HOSTS=pi-1.6 (or pi-1.5, pi-0.73) measures one line only.
	const only = process.env.BENCH_HOSTS?.split(",");
	const dir = tempDir("pi-mcp-first-start-");
	const registry = await startRegistry(dir.path);
	try {
		// A clone as `pi install <folder>` takes it: the working tree, its dependencies installed.
		const clone = join(dir.path, "clone");
		copyWorkingTree(clone);
		const deps = await runCommand("npm", ["install", "--omit=dev", "--no-audit", "--no-fund"], clone, {
			...process.env,
			npm_config_registry: registry.url,
		});
		if (deps.code !== 0) throw new Error(`npm install in the clone failed: ${deps.out}`);
		for (const host of PI_HOSTS.filter((h) => !only || only.includes(h.name))) {
			const times = await measure(host, join(dir.path, host.name), registry.url, clone);
			console.log(
				`== ${host.name}: pi -p hi (no server), first run on an empty temp folder vs the next (median of ${RUNS}) ==`,
			);
			const columns = ["first", "next", "first/next"].flatMap((c) => [`${c} wall`, `${c} CPU`]);
			console.log(`${"(ms)".padEnd(50)} ${columns.map((c) => c.padStart(15)).join(" ")}`);
			for (const [install, { first, next }] of times) {
				const cells = [...pair(first), ...pair(next), ...ratio(first, next)];
				console.log(`${LABELS[install].padEnd(50)} ${cells.map((c) => c.padStart(15)).join(" ")}`);
			}
			const built = times.get("npm") as Timed;
			const sources = times.get("clone") as Timed;
			console.log(
				`built / TypeScript (wall, CPU): first ${ratio(built.first, sources.first).join(", ")}; next ${ratio(built.next, sources.next).join(", ")}`,
			);
			console.log();
		}
	} finally {
		await registry.close();
		dir.remove();
	}
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
