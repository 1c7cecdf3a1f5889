// Startup cost: the real `pi -p` CLI run with 50 lazy servers and a warm cache, against the same
// run without the extension (alternating runs, medians); the extension must start no server.
// Also the memory of an npx-launched server tree with and without npx resolution.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineServer } from "../config.ts";
import { NpxResolver } from "../npx-resolver.ts";
import { listDescendants } from "../process-tree.ts";
import { McpServerManager } from "../server-manager.ts";
import type { StdioServerEntry } from "../types.ts";
import { fakeCacheFor, TEST_NPM_CACHE, tempDir } from "../tests/helpers.ts";
import { runPiCli } from "../tests/pi-cli-harness.ts";

const SERVERS = 50;
const RUNS = 8;

/** 12 tools per server, each with one parameter: a plausible cache entry. */
const fakeTools = (server: string) =>
	Array.from({ length: 12 }, (_, t) => ({
		server,
		name: `tool_${t}`,
		description: `Tool ${t} of ${server}: does a thing with a resource.`,
		inputSchema: { type: "object", properties: { id: { type: "string", description: "The id" } }, required: ["id"] },
	}));

/** Wall time of a whole `pi -p` run (start, session_start, one scripted turn, exit). */
async function timeStartup(withExtension: boolean, mcpConfig: unknown, cache: string): Promise<number> {
	const started = performance.now();
	const run = await runPiCli({
		mcpConfig,
		steps: [() => ({ text: "ok" })],
		prompt: "hi",
		noExtension: !withExtension,
		agentFiles: { "mcp-cache.json": cache },
	});
	const elapsed = performance.now() - started;
	if (run.code !== 0) throw new Error(`pi failed: ${run.stderr}`);
	await run.cleanup();
	return elapsed;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function treeRssMb(pid: number): number {
	let kb = 0;
	for (const p of [pid, ...listDescendants(pid)]) {
		try {
			kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
		} catch {
			// exited
		}
	}
	return kb / 1024;
}

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
		const resolved = await measure(new McpServerManager({ launch: new NpxResolver({ agentDir: work.path, npmCache: TEST_NPM_CACHE }).launcher() }));
		console.log("\n== npx-launched server-memory: process tree ==");
		console.log(`plain npx:     ${plain.processes} processes, ${plain.mb.toFixed(0)} MB RSS, ready in ${plain.ms.toFixed(0)} ms`);
		console.log(`resolved bin:  ${resolved.processes} processes, ${resolved.mb.toFixed(0)} MB RSS, ready in ${resolved.ms.toFixed(0)} ms`);
		console.log(`memory ratio plain / resolved: ${(plain.mb / resolved.mb).toFixed(2)}x; ready-time ratio: ${(plain.ms / resolved.ms).toFixed(2)}x`);
	} finally {
		work.remove();
	}
}

export async function main(): Promise<void> {
	const spawnLog = join(tmpdir(), `pi-mcp-bench-spawns-${process.pid}.log`);
	const mcpServers = Object.fromEntries(
		// Each "server" only records that it was started: the count must stay zero.
		Array.from({ length: SERVERS }, (_, i) => [
			`server${i}`,
			{ command: process.execPath, args: ["-e", `require("fs").appendFileSync(${JSON.stringify(spawnLog)}, "${i} ")`] },
		]),
	);
	const mcpConfig = { mcpServers };
	const cache = await fakeCacheFor(mcpServers, fakeTools);
	const base: number[] = [];
	const withExt: number[] = [];
	for (let i = 0; i < RUNS + 2; i++) {
		const b = await timeStartup(false, mcpConfig, cache);
		const w = await timeStartup(true, mcpConfig, cache);
		if (i >= 2) {
			base.push(b);
			withExt.push(w);
		}
	}
	const spawned = existsSync(spawnLog) ? readFileSync(spawnLog, "utf8").trim().split(/\s+/).length : 0;
	rmSync(spawnLog, { force: true });
	console.log(`== pi -p start to exit (one scripted turn), ${SERVERS} lazy servers, warm cache (median of ${RUNS}) ==`);
	console.log(`without the extension: ${median(base).toFixed(1)} ms`);
	console.log(`with the extension:    ${median(withExt).toFixed(1)} ms`);
	console.log(`ratio with / without:  ${(median(withExt) / median(base)).toFixed(3)} (target < 1.10)`);
	console.log(`servers spawned:       ${spawned}`);
	await npxMemory();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
