// No orphans: after the real `pi` CLI exits with connected stdio servers (one started through
// npx, whose real server is npm's child), none of their processes remain.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EVERYTHING, marked, TEST_NPM_CACHE, tempDir, waitUntil } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { runPiCli } from "../support/pi-cli-harness.ts";

describe("no orphans", () => {
	it("leaves no server process behind when pi exits", async () => {
		const marker = `PI_MCP_ORPHAN_MARKER=${randomUUID()}`;
		const [key, value] = marker.split("=");
		const work = tempDir();
		const seen: number[][] = [];
		// A range spec: the resolver does not know yet what npm would run, so npx really wraps it.
		const memory = {
			command: "npx",
			args: ["-y", "@modelcontextprotocol/server-memory@^2026.8.31"],
			cwd: work.path,
			lifecycle: "eager",
			env: { [key]: value, npm_config_cache: TEST_NPM_CACHE, MEMORY_FILE_PATH: join(work.path, "m.jsonl") },
		};
		// A server that starts a helper process (as browser servers start Chrome).
		const everything = {
			command: "sh",
			args: ["-c", `sleep 300 & exec "${process.execPath}" "${EVERYTHING}" stdio`],
			lifecycle: "eager",
			env: { [key]: value },
		};
		const run = await runPiCli({
			mcpConfig: { mcpServers: { everything, memory } },
			prompt: "use both servers",
			timeoutMs: 120_000,
			steps: [
				() => ({ toolCall: { name: "mcp", arguments: { tool: "memory_read_graph" } } }),
				() => {
					seen.push(marked(value));
					return { toolCall: { name: "mcp", arguments: { tool: "everything_echo", args: { message: "still here" } } } };
				},
				(req) => {
					seen.push(marked(value));
					return { text: `done: ${lastToolMessage(req)}` };
				},
			],
		});
		try {
			expect(run.code, run.stderr).toBe(0);
			expect(run.stdout).toContain("done: Echo: still here");
			// While Pi ran: everything and its helper, and the memory server (run from its installed
			// folder, or under npm when npx runs it as configured).
			expect(Math.max(...seen.map((s) => s.length))).toBeGreaterThanOrEqual(3);
			await waitUntil(() => marked(value).length === 0, "every server process to end", 60_000);
		} finally {
			await run.cleanup();
			work.remove();
		}
	}, 150_000);
});
