// Where a cold start goes (issue 40 item 2): one call to server-everything over stdio, from no
// process to the answer, measured in one process side by side. The floor is a bare MCP SDK client
// (its own StdioClientTransport: spawn, initialize, tools/list, one tools/call); ours is the server manager as
// a session uses it (our stdio transport, the listing of tools, resources and prompts the catalog
// needs, then the call). A Node process that starts and exits is the spawn's own floor. Each
// variant's phases are medians of RUNS, the variants taking turns so a busy moment hits them all.
import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { defineServer } from "../config.ts";
import { McpServerManager } from "../server-manager.ts";
import { EVERYTHING } from "../tests/support/helpers.ts";
import type { StdioServerEntry } from "../types.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const ARGS = { a: 1, b: 2 };

interface Phases {
	/** Spawn to the tool list (the server's own start, the handshake, the listing). */
	readonly connect: number;
	readonly call: number;
}

async function bare(): Promise<Phases> {
	const { Client } = await import("@modelcontextprotocol/client");
	const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
	const t0 = performance.now();
	const client = new Client({ name: "bench", version: "1" });
	// The environment ours gives a server (the user's, whole): the SDK's default is a minimal one,
	// and a variable like NODE_EXTRA_CA_CERTS (a 220 KB bundle read by every Node server at start)
	// alone made the bare client's starts ~190 ms shorter here.
	const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
	await client.connect(
		new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], env, stderr: "ignore" }),
	);
	await client.listTools();
	const t1 = performance.now();
	await client.callTool({ name: "get-sum", arguments: ARGS });
	const t2 = performance.now();
	await client.close();
	return { connect: t1 - t0, call: t2 - t1 };
}

async function ours(manager: McpServerManager, name: string): Promise<Phases> {
	const entry = defineServer(name, { command: process.execPath, args: [EVERYTHING, "stdio"] }) as StdioServerEntry;
	const t0 = performance.now();
	await manager.connect(entry); // lists tools, resources, templates and prompts, as a session's catalog needs
	const t1 = performance.now();
	await manager.callTool(name, "get-sum", ARGS);
	const t2 = performance.now();
	await manager.close(name);
	return { connect: t1 - t0, call: t2 - t1 };
}

function nodeFloor(): number {
	const t0 = performance.now();
	spawnSync(process.execPath, ["-e", ""]);
	return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function main(): Promise<void> {
	const manager = new McpServerManager({ requestTimeoutMs: 60_000 });
	// Both loaded once first: a session loads the SDK while the model thinks (pi/warm-up.ts).
	await bare();
	await ours(manager, "warmup");
	const rows = { bare: [] as Phases[], ours: [] as Phases[], node: [] as number[] };
	for (let i = 0; i < RUNS; i++) {
		rows.node.push(nodeFloor());
		rows.bare.push(await bare());
		rows.ours.push(await ours(manager, `everything${i}`));
	}
	await manager.closeAll();
	const ms = (x: number) => `${x.toFixed(0)} ms`;
	const total = (p: Phases) => p.connect + p.call;
	const m = (list: Phases[], pick: (p: Phases) => number) => median(list.map(pick));
	console.log(`== A cold start, server-everything over stdio: medians of ${RUNS}, taking turns ==`);
	console.log(`node -e "" (spawn floor)         ${ms(median(rows.node))}`);
	console.log(
		`bare SDK client: connect ${ms(m(rows.bare, (p) => p.connect))}, call ${ms(m(rows.bare, (p) => p.call))}, total ${ms(m(rows.bare, total))}`,
	);
	console.log(
		`ours (manager):  connect ${ms(m(rows.ours, (p) => p.connect))}, call ${ms(m(rows.ours, (p) => p.call))}, total ${ms(m(rows.ours, total))}`,
	);
	console.log(`ours / bare: ${(m(rows.ours, total) / m(rows.bare, total)).toFixed(2)}x`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
