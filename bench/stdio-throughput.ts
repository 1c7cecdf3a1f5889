// Reading big answers over stdio: the SDK's StdioClientTransport (with the 128 MB buffer the
// adapter used to give it) against the adapter's own transport, side by side, on the same fixture
// server answering one message of 1, 20 and 100 MB. Then the peak memory of the flood cases:
// 200 MB without a newline over stdio, and a 300 MB HTTP body, which the adapter cuts at its limit.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { defineServer } from "../config.ts";
import { McpServerManager } from "../server-manager.ts";
import { freePort, ROOT, stopChild, TSX, waitForPort } from "../tests/support/helpers.ts";
import { StdioTransport } from "../transport/stdio.ts";

const FIXTURE = join(ROOT, "tests/fixtures/fault-stdio.ts");
const LIMIT = 128 * 1024 * 1024;

function transportFor(kind: "sdk" | "adapter", mode: string, mb: number): Transport {
	const env = { ...(process.env as Record<string, string>), MB: String(mb) };
	const args = [TSX, FIXTURE, mode];
	if (kind === "sdk")
		return new StdioClientTransport({ command: process.execPath, args, env, stderr: "ignore", maxBufferSize: LIMIT });
	return new StdioTransport({
		command: process.execPath,
		args,
		env,
		maxMessageBytes: LIMIT,
		parse: deserializeMessage,
	});
}

/** Seconds to receive one tool answer of `mb` megabytes, and the CPU time this process spent on it. */
async function receive(kind: "sdk" | "adapter", mb: number): Promise<{ seconds: number; cpu: number }> {
	const client = new Client({ name: "bench", version: "1" });
	await client.connect(transportFor(kind, "big-line", mb));
	const cpu0 = process.cpuUsage();
	const t0 = performance.now();
	await client.request({ method: "tools/call", params: { name: "blast", arguments: {} } }, CallToolResultSchema, {
		timeout: 600_000,
	});
	const seconds = (performance.now() - t0) / 1000;
	const used = process.cpuUsage(cpu0);
	await client.close();
	return { seconds, cpu: (used.user + used.system) / 1e6 };
}

/** Peak RSS growth of this process while `run` runs. */
async function peakRss(run: () => Promise<unknown>): Promise<number> {
	global.gc?.();
	const base = process.memoryUsage().rss;
	let peak = base;
	const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
	await run().catch(() => undefined);
	clearInterval(timer);
	return (peak - base) / 1024 / 1024;
}

export async function main(): Promise<void> {
	console.log("stdio read throughput: one answer of N MB (SDK StdioClientTransport vs the adapter's StdioTransport)");
	console.log("size     SDK MB/s   adapter MB/s   speed-up   SDK cpu s   adapter cpu s");
	for (const mb of [1, 20, 100]) {
		const sdk = await receive("sdk", mb);
		const ours = await receive("adapter", mb);
		console.log(
			`${`${mb} MB`.padEnd(8)} ${(mb / sdk.seconds).toFixed(1).padStart(8)}   ${(mb / ours.seconds).toFixed(1).padStart(12)}   ${(sdk.seconds / ours.seconds).toFixed(1).padStart(7)}x   ${sdk.cpu.toFixed(2).padStart(9)}   ${ours.cpu.toFixed(2).padStart(13)}`,
		);
	}

	console.log("\nflood cases through the adapter's manager (limit 128 MB): time to a clear error, peak RSS growth");
	const manager = new McpServerManager({ requestTimeoutMs: 120_000 });
	const flood = defineServer("flood", { command: process.execPath, args: [TSX, FIXTURE, "flood"], env: { MB: "200" } });
	let floodMs = 0;
	const floodMb = await peakRss(async () => {
		await manager.connect(flood);
		const t0 = performance.now();
		await manager.callTool("flood", "blast", {}).catch(() => undefined);
		floodMs = performance.now() - t0;
	});
	console.log(`stdio, 200 MB without a newline: ${(floodMs / 1000).toFixed(1)} s, +${floodMb.toFixed(0)} MB RSS`);
	const port = await freePort();
	const server = spawn(process.execPath, [TSX, join(ROOT, "tests/fixtures/fault-http.ts"), "huge-body", String(port)], {
		stdio: "ignore",
	});
	await waitForPort(port, server);
	const huge = defineServer("huge", { url: `http://127.0.0.1:${port}/mcp` });
	let hugeMs = 0;
	const hugeMb = await peakRss(async () => {
		await manager.connect(huge);
		const t0 = performance.now();
		await manager.callTool("huge", "work", {}).catch(() => undefined);
		hugeMs = performance.now() - t0;
	});
	console.log(`HTTP, a 300 MB JSON body: ${(hugeMs / 1000).toFixed(1)} s, +${hugeMb.toFixed(0)} MB RSS`);
	await manager.closeAll();
	await stopChild(server);
}

if (process.argv[1]?.endsWith("stdio-throughput.ts")) await main();
