// Eight subagent-style `pi -p` sessions at once, each calling one tool on each of three npx
// servers (server-memory, server-everything, server-filesystem), with the servers shared through
// the broker and not shared, side by side in one run: server processes started, peak RSS of every
// process involved (Pi, servers, npx, the broker), and each session's time to its first tool result.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { listDescendants } from "../bounds/process-tree.ts";
import { readBrokerFile } from "../broker/wire.ts";
import { TEST_NPM_CACHE } from "../tests/support/helpers.ts";
import type { ChatRequest, Step } from "../tests/support/mock-openai.ts";
import { BENCH_RUN_MS, createPiHome, type PiHome, runPi } from "../tests/support/pi-cli-harness.ts";
import { rssMb } from "./process-memory.ts";

const SESSIONS = 8;
const CALLS = [
	{ tool: "memory_read_graph", args: {} },
	{ tool: "everything_get-sum", args: { a: 1, b: 2 } },
	{ tool: "filesystem_list_allowed_directories", args: {} },
];

function npxServer(log: string, name: string, pkg: string, extra: string[] = []): Record<string, unknown> {
	return {
		command: "sh",
		args: ["-c", `echo ${name} >> '${log}'; exec npx -y ${pkg} "$@"`, "sh", ...extra],
		env: { npm_config_cache: TEST_NPM_CACHE },
	};
}

/** Peak RSS (MB) of the processes `pids` lists, sampled every 100 ms until stopped. */
function samplePeakRss(pids: () => number[]): { stop(): number } {
	let peak = 0;
	const timer = setInterval(() => (peak = Math.max(peak, rssMb(pids()))), 100);
	return {
		stop() {
			clearInterval(timer);
			return peak;
		},
	};
}

interface Outcome {
	readonly starts: number;
	readonly peakMb: number;
	readonly firstResultMs: number[];
	readonly wallMs: number;
}

async function eightSessions(shared: boolean): Promise<Outcome> {
	const started = new Map<number, number>();
	const firstResult = new Map<number, number>();
	// Each session's prompt carries its number; the n-th tool result of a session asks for the next call.
	const router: Step = (request: ChatRequest) => {
		const prompt = JSON.stringify(request.messages.find((m) => m.role === "user")?.content ?? "");
		const session = Number(/session (\d+)/.exec(prompt)?.[1] ?? -1);
		const results = request.messages.filter((m) => m.role === "tool").length;
		if (results === 1 && !firstResult.has(session)) firstResult.set(session, performance.now());
		const next = CALLS[results];
		return next ? { toolCall: { name: "mcp", arguments: next } } : { text: "done" };
	};
	const home: PiHome = await createPiHome({ steps: Array.from({ length: 500 }, () => router) });
	const log = join(home.root, "starts.log");
	home.writeAgentFile(
		"mcp.json",
		JSON.stringify({
			settings: { shareServers: shared },
			mcpServers: {
				memory: { ...npxServer(log, "memory", "@modelcontextprotocol/server-memory@2026.8.31"), idleTimeout: 0.1 },
				everything: {
					...npxServer(log, "everything", "@modelcontextprotocol/server-everything@2026.8.31", ["stdio"]),
					idleTimeout: 0.1,
				},
				filesystem: {
					...npxServer(log, "filesystem", "@modelcontextprotocol/server-filesystem@2026.8.31", [home.cwd]),
					idleTimeout: 0.1,
				},
			},
		}),
	);
	const env = { PI_MCP_BROKER_IDLE_MS: "1000" };
	try {
		// A first run fills the metadata cache (and npm's), as a user's first session would.
		await runPi(home, "session 99", { env, timeoutMs: BENCH_RUN_MS });
		await new Promise((resolve) => setTimeout(resolve, 9000)); // the shared servers' linger (6 s) passes
		const starts = () => readFileSync(log, "utf8").trim().split("\n").length;
		const before = starts();
		// Every Pi (children of this process) with its servers, and the detached broker with its servers.
		const broker = () => readBrokerFile(home.agentDir)?.pid;
		const rss = samplePeakRss(() => [
			...listDescendants(process.pid),
			...[broker()].flatMap((pid) => (pid ? [pid, ...listDescendants(pid)] : [])),
		]);
		const t0 = performance.now();
		const runs = await Promise.all(
			Array.from({ length: SESSIONS }, (_, i) => {
				started.set(i, performance.now());
				return runPi(home, `session ${i}: use the tools`, { env, timeoutMs: BENCH_RUN_MS });
			}),
		);
		const wallMs = performance.now() - t0;
		const peakMb = rss.stop();
		for (const run of runs) if (run.code !== 0) throw new Error(`a session failed: ${run.stderr.slice(0, 500)}`);
		const firstResultMs = [...started].map(([i, t]) => (firstResult.get(i) ?? Number.NaN) - t);
		return { starts: starts() - before, peakMb, firstResultMs, wallMs };
	} finally {
		await new Promise((resolve) => setTimeout(resolve, 8000)); // lingering shared servers and the broker end
		await home.dispose();
	}
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function main(): Promise<void> {
	const alone = await eightSessions(false);
	const shared = await eightSessions(true);
	console.log(
		`== ${SESSIONS} concurrent pi -p sessions, each calling 3 npx servers (memory, everything, filesystem) ==`,
	);
	const row = (name: string, o: Outcome) =>
		`${name} ${String(o.starts).padStart(2)} server starts, peak RSS ${o.peakMb.toFixed(0)} MB, first result median ${median(o.firstResultMs).toFixed(0)} ms (max ${Math.max(...o.firstResultMs).toFixed(0)}), all done in ${(o.wallMs / 1000).toFixed(1)} s`;
	console.log(row("not shared:", alone));
	console.log(row("shared:    ", shared));
	console.log(
		`ratios not shared / shared: server starts ${(alone.starts / Math.max(1, shared.starts)).toFixed(1)}x, peak RSS ${(alone.peakMb / shared.peakMb).toFixed(2)}x, first result ${(median(alone.firstResultMs) / median(shared.firstResultMs)).toFixed(2)}x`,
	);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
