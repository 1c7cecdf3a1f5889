// What following the resources a session reads costs (issue 42 item 4): server-everything over
// stdio, 16 of its template's resources read, then read again, then the session ends; a started
// session (each first read subscribes, the end unsubscribes) beside a one-shot one (the shell
// command's: nothing subscribed). Medians of RUNS, the two taking turns so a busy moment hits both.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { McpRuntime } from "../mcp-runtime.ts";
import { runProxy } from "../proxy/proxy-tool.ts";
import { EVERYTHING } from "../tests/support/helpers.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const READS = 16;

interface Times {
	/** A first read of a resource (median). */
	readonly read: number;
	/** The same resource read again (median). */
	readonly reread: number;
	/** The session's end, its server closed. */
	readonly end: number;
	readonly followed: number;
}

async function session(started: boolean): Promise<Times> {
	const dir = mkdtempSync(join(tmpdir(), "bench-live-"));
	try {
		writeFileSync(
			join(dir, "mcp.json"),
			JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } }),
		);
		const runtime = new McpRuntime({
			cwd: dir,
			env: { ...process.env, PI_CODING_AGENT_DIR: join(dir, "agent") },
			configPath: join(dir, "mcp.json"),
		});
		if (started) runtime.start();
		await runtime.lifecycle.ensureConnected("everything");
		const read = async (id: number) => {
			const t0 = performance.now();
			const answer = await runProxy(
				runtime.lifecycle,
				{ tool: "everything_get_Dynamic_Text_Resource", args: { resourceId: String(id) } },
				{},
			);
			if (answer.isError) throw new Error(JSON.stringify(answer.content));
			return performance.now() - t0;
		};
		const first: number[] = [];
		const again: number[] = [];
		for (let id = 1; id <= READS; id++) first.push(await read(id));
		for (let id = 1; id <= READS; id++) again.push(await read(id));
		const followed = runtime.lifecycle.subscriptions.followed("everything").length;
		const t0 = performance.now();
		await runtime.shutdown();
		return { read: median(first), reread: median(again), end: performance.now() - t0, followed };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function main(): Promise<void> {
	await session(true); // the SDK and the connection code loaded once, for both
	const rows = { followed: [] as Times[], oneShot: [] as Times[] };
	for (let i = 0; i < RUNS; i++) {
		rows.followed.push(await session(true));
		rows.oneShot.push(await session(false));
	}
	const ms = (x: number) => `${x.toFixed(1)} ms`;
	const m = (list: Times[], pick: (t: Times) => number) => median(list.map(pick));
	console.log(
		`== Live resources, server-everything over stdio, ${READS} resources: medians of ${RUNS}, taking turns ==`,
	);
	for (const [name, list] of [
		["followed (a Pi session)", rows.followed],
		["one-shot (the CLI)     ", rows.oneShot],
	] as const) {
		console.log(
			`${name}: first read ${ms(m(list, (t) => t.read))}, read again ${ms(m(list, (t) => t.reread))}, end ${ms(m(list, (t) => t.end))}, ${m(list, (t) => t.followed)} followed`,
		);
	}
	const ratio = (pick: (t: Times) => number) => (m(rows.followed, pick) / m(rows.oneShot, pick)).toFixed(2);
	console.log(
		`followed / one-shot: first read ${ratio((t) => t.read)}x, read again ${ratio((t) => t.reread)}x, end ${ratio((t) => t.end)}x`,
	);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
