// The shell CLI (bin/pi-mcp-adapter.mjs) as a user runs it: in a project folder, on the same
// config, cache and approvals as Pi.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { markerServer, ROOT, tempDir } from "./helpers.ts";

const BIN = join(ROOT, "bin", "pi-mcp-adapter.mjs");

describe("the shell CLI", () => {
	let dir: ReturnType<typeof tempDir>;
	let cwd: string;
	let agentDir: string;
	beforeEach(() => {
		dir = tempDir();
		cwd = join(dir.path, "repo");
		agentDir = join(dir.path, "agent");
		mkdirSync(cwd, { recursive: true });
		mkdirSync(agentDir, { recursive: true });
	});
	afterEach(() => dir.remove());
	const cli = (...args: string[]) => {
		const run = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir }, encoding: "utf8", timeout: 60_000 });
		return { code: run.status, out: run.stdout, err: run.stderr };
	};

	it("a project's server waits for `approve`; then calls work; `deny` stops it again", () => {
		const marker = join(dir.path, "started");
		writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: markerServer(marker) } }));
		const before = cli("call", "proj_echo", '{"message":"hi"}');
		expect(before.code).toBe(1);
		expect(before.err).toContain('Server "proj" is awaiting approval: ask the user to run /mcp approve proj');
		expect(existsSync(marker)).toBe(false);

		const approve = cli("approve");
		expect(approve.code).toBe(0);
		expect(approve.out).toContain("Approved for");
		expect(approve.out).toContain("proj: sh -c");
		expect(existsSync(marker)).toBe(false); // approving starts nothing by itself

		const after = cli("call", "proj_echo", '{"message":"hi"}');
		expect(after.code, after.err).toBe(0);
		expect(after.out).toContain("Echo: hi");

		expect(cli("deny", "proj").code).toBe(0);
		expect(cli("call", "proj_echo", '{"message":"hi"}').err).toContain("was denied by the user");
	});
});
