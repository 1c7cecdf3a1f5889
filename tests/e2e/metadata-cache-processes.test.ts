// Two real processes writing the metadata cache at the same moment lose neither's servers; a server
// whose listing is far past what the cache keeps per server starts once, not at every session.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_CACHE_BYTES } from "../../catalog/cache-budget.ts";
import { CACHE_FILE } from "../../metadata-cache.ts";
import { countedServer, ROOT, startedPids, TSX, tempDir } from "../support/helpers.ts";

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
	dir = tempDir();
});
afterEach(() => dir.remove());

describe("MetadataCache across processes", () => {
	it("two processes writing at the same moment lose neither's servers", async () => {
		// Both writers load, say "ready", and are told to go at once: their writes overlap.
		const writers = ["a", "b"].map((prefix) =>
			spawn(process.execPath, [TSX, join(ROOT, "tests/fixtures/cache-writer.ts"), dir.path, prefix, "25"], {
				stdio: ["pipe", "pipe", "inherit"],
			}),
		);
		const closed = writers.map((child) => new Promise<number | null>((resolve) => child.on("close", resolve)));
		await Promise.all(writers.map((child) => once(child.stdout, "data")));
		for (const child of writers) child.stdin.end("go\n");
		expect(await Promise.all(closed)).toEqual([0, 0]);
		const names = Object.values(JSON.parse(readFileSync(join(dir.path, CACHE_FILE), "utf8")).servers).map(
			(s) => (s as { name: string }).name,
		);
		expect(names).toHaveLength(50);
		for (const p of ["a", "b"]) for (let i = 0; i < 25; i++) expect(names).toContain(`${p}-${i}`);
	});

	it("a server listing 24 MB of tools starts in the first session only: the cache keeps it cut to size, with a warning", () => {
		// 400 tools of ~60 KB each (a schema of 1,200 documented arguments): the size that made the cache unreadable.
		const tools = Array.from({ length: 400 }, (_, i) => ({
			name: `op_${i}`,
			description: `Operation ${i}`,
			inputSchema: {
				type: "object",
				properties: Object.fromEntries(
					Array.from({ length: 1200 }, (_, p) => [`field_${p}`, { type: "string", description: "one of the fields" }]),
				),
			},
		}));
		const catalog = join(dir.path, "big.json");
		writeFileSync(catalog, JSON.stringify({ server: "big", tools }));
		const log = join(dir.path, "starts.log");
		const config = join(dir.path, "mcp.json");
		const big = countedServer(log, [TSX, join(ROOT, "tests/fixtures/catalog-server.ts"), catalog]);
		writeFileSync(config, JSON.stringify({ mcpServers: { big } }));
		const cli = (...args: string[]) =>
			spawnSync(process.execPath, [join(ROOT, "bin", "pi-mcp-proxy.mjs"), "--config", config, ...args], {
				cwd: dir.path,
				env: { ...process.env, PI_CODING_AGENT_DIR: join(dir.path, "agent") },
				encoding: "utf8",
				timeout: 120_000,
				maxBuffer: 64 * 1024 * 1024,
			});
		const first = cli("describe", "big_op_399");
		expect(first.status, first.stderr).toBe(0);
		expect(first.stdout).toContain("field_1199");
		expect(first.stderr).toMatch(/warning: big's listing \(2\d\.\d MB\) is over the 2\.0 MB a server may take/);
		expect(startedPids(log)).toHaveLength(1);
		const second = cli("describe", "big_op_399");
		expect(second.status, second.stderr).toBe(0);
		expect(second.stdout).toContain("big_op_399");
		expect(startedPids(log)).toHaveLength(1); // listed from the cache: nothing started
		const agent = readdirSync(join(dir.path, "agent"));
		expect(agent.filter((f) => f.includes("damaged"))).toEqual([]);
		expect(statSync(join(dir.path, "agent", CACHE_FILE)).size).toBeLessThanOrEqual(MAX_CACHE_BYTES);
	}, 240_000);
});
