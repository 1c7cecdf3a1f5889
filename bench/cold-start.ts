// Where a cold start goes (issue 40): one call to server-everything over stdio, from no process to
// the answer, measured in one process side by side. A Node process that starts and exits is the
// spawn's floor. The floor of the rest is a bare MCP SDK client (its own StdioClientTransport):
// initialize, then the call at once, or after tools/list. Ours is the server manager as a session
// uses it (our stdio transport; the listing of tools, resources, templates and prompts the catalog
// needs): the call sent once the server is initialized while the listing goes on (the early send,
// what a call to a cached tool does), or after the whole listing (what it did before). The
// variants take turns so a busy moment hits them all; medians of RUNS. The early send saves little
// on a local stdio server, whose listing takes a few ms; over HTTP each listing costs a round trip,
// so the last pair is ours against server-everything over streamable HTTP behind a proxy that
// holds every request LATENCY_MS (a remote server).
import { spawnSync } from "node:child_process";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { defineServer } from "../config.ts";
import { McpServerManager } from "../server-manager.ts";
import { EVERYTHING, startEverythingHttp } from "../tests/support/helpers.ts";
import type { ServerEntry } from "../types.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const ARGS = { a: 1, b: 2 };
/** How long the proxy in front of the HTTP server holds each request. */
const LATENCY_MS = 50;

interface Phases {
	/** Spawn to the server initialized (its own start, the handshake), or to its listing when the call waits for it. */
	readonly ready: number;
	/** From there to the call's answer. */
	readonly call: number;
}

async function bare(list: boolean): Promise<Phases> {
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
	if (list) await client.listTools();
	const t1 = performance.now();
	await client.callTool({ name: "get-sum", arguments: ARGS });
	const t2 = performance.now();
	await client.close();
	return { ready: t1 - t0, call: t2 - t1 };
}

async function ours(manager: McpServerManager, name: string, early: boolean, url?: string): Promise<Phases> {
	const entry = defineServer(
		name,
		url ? { url } : { command: process.execPath, args: [EVERYTHING, "stdio"] },
	) as ServerEntry;
	const t0 = performance.now();
	// Early: initialized, the listing going on; else connected with tools, resources, templates and prompts listed.
	await (early ? manager.opened(entry) : manager.connect(entry));
	const t1 = performance.now();
	await manager.callTool(name, "get-sum", ARGS);
	const t2 = performance.now();
	await manager.connect(entry); // the listing lands before the close, as in a session
	await manager.close(name);
	return { ready: t1 - t0, call: t2 - t1 };
}

function nodeFloor(): number {
	const t0 = performance.now();
	spawnSync(process.execPath, ["-e", ""]);
	return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Ours against server-everything over streamable HTTP, each request held LATENCY_MS: early send, then after the listing. */
async function remote(manager: McpServerManager): Promise<{ early: Phases[]; listed: Phases[] }> {
	const server = await startEverythingHttp("streamableHttp");
	const proxy = createServer((req, res) => {
		setTimeout(() => {
			const { port } = server;
			const upstream = request(
				{ host: "127.0.0.1", port, path: req.url, method: req.method, headers: req.headers },
				(up) => {
					res.writeHead(up.statusCode ?? 502, up.headers);
					up.pipe(res);
				},
			);
			upstream.on("error", () => res.destroy());
			req.pipe(upstream);
		}, LATENCY_MS);
	});
	await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
	const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
	const rows = { early: [] as Phases[], listed: [] as Phases[] };
	try {
		for (let i = 0; i < RUNS; i++) {
			rows.early.push(await ours(manager, `remote-early${i}`, true, url));
			rows.listed.push(await ours(manager, `remote-listed${i}`, false, url));
		}
	} finally {
		await manager.closeAll();
		proxy.closeAllConnections();
		await new Promise((resolve) => proxy.close(resolve));
		await server.stop();
	}
	return rows;
}

export async function main(): Promise<void> {
	const manager = new McpServerManager({ requestTimeoutMs: 60_000 });
	// Each loaded once first: a session loads the SDK while the model thinks (start-up/warm-up.ts).
	await bare(true);
	await ours(manager, "warmup", true);
	const rows = {
		node: [] as number[],
		bareEarly: [] as Phases[],
		bareListed: [] as Phases[],
		oursEarly: [] as Phases[],
		oursListed: [] as Phases[],
	};
	for (let i = 0; i < RUNS; i++) {
		rows.node.push(nodeFloor());
		rows.bareEarly.push(await bare(false));
		rows.bareListed.push(await bare(true));
		rows.oursEarly.push(await ours(manager, `early${i}`, true));
		rows.oursListed.push(await ours(manager, `listed${i}`, false));
	}
	await manager.closeAll();
	const http = await remote(manager);
	const ms = (x: number) => `${x.toFixed(0)} ms`;
	const total = (list: Phases[]) => median(list.map((p) => p.ready + p.call));
	const row = (label: string, list: Phases[], ready: string) =>
		console.log(
			`${label.padEnd(38)} ${ready} ${ms(median(list.map((p) => p.ready))).padStart(7)}, call ${ms(median(list.map((p) => p.call))).padStart(6)}, total ${ms(total(list)).padStart(7)}`,
		);
	console.log(`== A cold start, server-everything over stdio: medians of ${RUNS}, taking turns ==`);
	console.log(`${'node -e "" (the spawn floor)'.padEnd(38)} ${ms(median(rows.node))}`);
	row("bare SDK client, call at once", rows.bareEarly, "initialized");
	row("bare SDK client, after tools/list", rows.bareListed, "listed     ");
	row("ours, early send", rows.oursEarly, "initialized");
	row("ours, after the whole listing", rows.oursListed, "listed     ");
	const server = median(rows.bareEarly.map((p) => p.ready)) - median(rows.node);
	console.log(
		`where it goes: spawn ${ms(median(rows.node))}, the server's own start and the handshake ${ms(server)}, our code ${ms(total(rows.oursEarly) - total(rows.bareEarly))} (ours early - bare at once)`,
	);
	row(`ours over HTTP +${LATENCY_MS} ms, early send`, http.early, "initialized");
	row(`ours over HTTP +${LATENCY_MS} ms, after listing`, http.listed, "listed     ");
	console.log(
		`early send saves ${ms(total(rows.oursListed) - total(rows.oursEarly))} over stdio, ${ms(total(http.listed) - total(http.early))} over HTTP +${LATENCY_MS} ms; ours / bare: ${(total(rows.oursEarly) / total(rows.bareEarly)).toFixed(2)}x (early), ${(total(rows.oursListed) / total(rows.bareListed)).toFixed(2)}x (both after a listing)`,
	);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
