// The shell CLI (bin/pi-mcp-proxy.mjs) as a user runs it: in a project folder, on the same
// config, cache and approvals as Pi.
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isAlive } from "../../bounds/process-tree.ts";
import {
	countedServer,
	EVERYTHING,
	everythingStdio,
	faultStdio,
	marked,
	markerServer,
	ROOT,
	startedPids,
	tempDir,
	waitUntil,
} from "../support/helpers.ts";

const BIN = join(ROOT, "bin", "pi-mcp-proxy.mjs");

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
	it("speaks in its own commands, and a --config naming no file is an error, not an empty config", () => {
		writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
		const missing = cli("--config", join(dir.path, "nope.json"), "status");
		expect(missing.code).toBe(2);
		expect(missing.err).toContain("nope.json: no such file");
		writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: markerServer(join(dir.path, "m")) } }));
		const status = cli("status");
		expect(status.out + status.err).toContain("awaiting approval: run pi-mcp-proxy approve proj");
		expect(status.out + status.err).toContain("Find tools with pi-mcp-proxy search <words>");
		expect(status.out + status.err).not.toContain("mcp({search");
	});

	it("status --check connects each server and shows a failed one's own reason", () => {
		const failing = {
			command: process.execPath,
			args: ["-e", "console.error('boom: cannot start, missing API key'); process.exit(1)"],
		};
		writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { broken: failing } }));
		const lazy = cli("status");
		expect(lazy.out).toContain("broken: not connected yet (lazy)");
		const checked = cli("status", "--check");
		expect(checked.code).toBe(1);
		expect(checked.out).toMatch(/broken: failed: .*\(the server said: boom: cannot start, missing API key\)/);
	});

	it("status --check starts a server whose tools are cached: one whose launcher now fails is reported, exit 1", () => {
		const gone = join(dir.path, "package-gone");
		const launcher = {
			command: "sh",
			args: [
				"-c",
				`if [ -e '${gone}' ]; then echo 'launcher: cannot find the package' >&2; exit 1; fi; exec '${process.execPath}' '${EVERYTHING}' stdio`,
			],
		};
		writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { everything: launcher } }));
		const first = cli("status", "--check");
		expect(first.code, first.err).toBe(0);
		expect(first.out).toMatch(/everything: connected, \d+ tools/);
		// The cache now knows its tools (a plain status reads "not running, 13 tools ... known (lazy)").
		writeFileSync(gone, "");
		const checked = cli("status", "--check");
		expect(checked.code).toBe(1);
		expect(checked.out).toMatch(/everything: failed: .*\(the server said: launcher: cannot find the package\)/);
	}, 120_000);

	/**
	 * Runs the CLI on a server that ignores SIGTERM and stdin's end (and starts a helper that does
	 * too), presses Ctrl-C once `ready` says so, and checks it exits 130 with none of them left.
	 */
	const interrupted = async (args: string[], ready: (marker: string, stdout: string, stderr: string) => boolean) => {
		const marker = randomUUID();
		writeFileSync(
			join(agentDir, "mcp.json"),
			JSON.stringify({ mcpServers: { stubborn: faultStdio("ignore-sigterm", { CLI_MARKER: marker }) } }),
		);
		const child = spawn(process.execPath, [BIN, ...args], {
			cwd,
			env: { ...process.env, PI_CODING_AGENT_DIR: agentDir },
			stdio: ["ignore", "pipe", "pipe"],
		});
		const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
		});
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
		});
		await waitUntil(() => ready(marker, stdout, stderr), "the moment to press Ctrl-C", 45_000);
		child.kill("SIGINT");
		expect(await closed).toBe(130);
		await waitUntil(() => marked(marker).length === 0, "the server to be gone", 5000).catch(() => undefined);
		expect(marked(marker)).toEqual([]);
		return { stdout, stderr };
	};

	it("Ctrl-C mid-call exits 130, says cancelled (not crashed), and ends a server that ignores SIGTERM and stdin's end, and its helper", async () => {
		// A silent call says how long it has waited (on stderr), once it passes a few seconds.
		const { stdout, stderr } = await interrupted(
			["call", "stubborn_hang"],
			(marker, _out, err) => marked(marker).length >= 2 && err.includes("stubborn_hang: waiting for the answer, "),
		);
		expect(stderr).toMatch(/stubborn_hang: waiting for the answer, \d+ s \(Ctrl-C cancels\)\n/);
		expect(stderr).toContain("Cancelled.\n");
		expect(stdout + stderr).not.toMatch(/crashed|failed/);
	});

	it("a long call shows the server's progress on stderr; the answer alone on stdout", () => {
		writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
		const run = cli("call", "everything_trigger-long-running-operation", '{"duration":1,"steps":3}');
		expect(run.code, run.err).toBe(0);
		expect(run.out).toBe("Long running operation completed. Duration: 1 seconds, Steps: 3.\n");
		// Each step as the server reports it (the last one may come with the answer, which ends the display).
		for (const step of ["1/3", "2/3"])
			expect(run.err).toContain(`everything_trigger-long-running-operation: ${step}\n`);
	}, 60_000);

	it("exit codes are the README's: a search that matches nothing exits 1, one that does 0, a usage error 2", () => {
		writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
		const none = cli("search", "zzqqxx");
		expect(none.out + none.err).toContain('No tools match "zzqqxx"');
		expect(none.code).toBe(1);
		expect(cli("search", "add", "numbers").code).toBe(0);
		expect(cli("search").code).toBe(2);
		expect(cli("bogus").code).toBe(2);
		expect(cli("describe", "everything_nope").code).toBe(1);
	}, 60_000);

	it("Ctrl-C while the CLI closes a server that ignores SIGTERM, after its command: exits 130, leaves no process", async () => {
		// A cold cache: `list` starts the server to list it, prints, then closes it (1.5 s of SIGTERM ignored).
		await interrupted(["list", "stubborn"], (_marker, stdout) => stdout.includes("stubborn: 3 tools"));
	});

	const cli = (...args: (string | Record<string, string>)[]) => {
		const extraEnv = args.find((a): a is Record<string, string> => typeof a === "object") ?? {};
		const argv = args.filter((a): a is string => typeof a === "string");
		const run = spawnSync(process.execPath, [BIN, ...argv], {
			cwd,
			env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, ...extraEnv },
			encoding: "utf8",
			timeout: 60_000,
		});
		return { code: run.status, out: run.stdout, err: run.stderr };
	};

	it("a project's server waits for `approve`; then calls work; `deny` stops it again", () => {
		const marker = join(dir.path, "started");
		writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: markerServer(marker) } }));
		const before = cli("call", "proj_echo", '{"message":"hi"}');
		expect(before.code).toBe(1);
		expect(before.err).toContain('Server "proj" is awaiting approval: run pi-mcp-proxy approve proj');
		expect(existsSync(marker)).toBe(false);

		// A shell cannot show a dialog: `approve` prints the launches with a code and approves nothing.
		const shown = cli("approve");
		expect(shown.code).toBe(1);
		expect(shown.out).toContain("Nothing approved yet");
		expect(shown.out).toContain("proj (from ");
		expect(shown.out).toContain("    runs: sh -c");
		const code = /pi-mcp-proxy approve ([a-z2-9]{3}-[a-z2-9]{3})/.exec(shown.out)?.[1] ?? "";

		const approve = cli("approve", code);
		expect(approve.code, approve.err).toBe(0);
		expect(approve.out).toContain("Approved (starting as configured) for");
		expect(approve.out).toContain("    runs: sh -c");
		expect(existsSync(marker)).toBe(false); // approving starts nothing by itself

		const after = cli("call", "proj_echo", '{"message":"hi"}');
		expect(after.code, after.err).toBe(0);
		expect(after.out).toContain("Echo: hi");

		expect(cli("deny", "proj").code).toBe(0);
		expect(cli("call", "proj_echo", '{"message":"hi"}').err).toContain("was denied by the user");
	}, 120_000); // six runs of the CLI: a loaded machine takes seconds for each

	it("`approve <code>` after the config changed approves nothing, says what is new, and shows it with a new code", () => {
		const marker = join(dir.path, "started");
		writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: markerServer(marker) } }));
		const code = /pi-mcp-proxy approve ([a-z2-9]{3}-[a-z2-9]{3})/.exec(cli("approve").out)?.[1] ?? "";
		// A pull changes the command after the user read it.
		writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: markerServer(marker, ["--pulled"]) } }));
		const refused = cli("approve", code);
		expect(refused.code).toBe(1);
		expect(refused.err).toContain(
			`Nothing approved: this project's MCP config changed since the servers were shown with ${code}.`,
		);
		expect(refused.err).toMatch(/ {4}\+ runs: sh -c .*--pulled/);
		const now = /Read what it is now[\s\S]*pi-mcp-proxy approve ([a-z2-9]{3}-[a-z2-9]{3})/.exec(refused.err)?.[1];
		expect(now).toBeDefined();
		expect(now).not.toBe(code);
		expect(cli("call", "proj_echo", '{"message":"hi"}').err).toContain("awaiting approval");
		expect(existsSync(marker)).toBe(false);
		expect(cli("approve", now ?? "").code).toBe(0);
		expect(cli("call", "proj_echo", '{"message":"hi"}').out).toContain("Echo: hi");
	}, 120_000); // five runs of the CLI

	it("with sharing on, two shell calls use one server in the broker, and `status` shows it", async () => {
		const log = join(dir.path, "starts.log");
		// The server waits 12 s in the broker after each call: long enough for the next command, however slow this machine.
		writeFileSync(
			join(agentDir, "mcp.json"),
			JSON.stringify({
				settings: { shareServers: true },
				mcpServers: { everything: { ...countedServer(log), idleTimeout: 0.2 } },
			}),
		);
		const env = { PI_MCP_BROKER_IDLE_MS: "1000" };
		expect(cli(env, "call", "everything_get-sum", '{"a":1,"b":2}').out).toContain("The sum of 1 and 2 is 3");
		expect(cli(env, "call", "everything_get-sum", '{"a":3,"b":4}').out).toContain("The sum of 3 and 4 is 7");
		expect(startedPids(log)).toHaveLength(1);
		const status = cli(env, "status");
		expect(status.code).toBe(0);
		expect(status.out).toMatch(
			/Shared MCP broker \(pid (\d+), since \d\d:\d\d\): 1 server\n {2}everything: 0 sessions, up since \d\d:\d\d, pid \d+/,
		);
		const broker = Number(/Shared MCP broker \(pid (\d+)/.exec(status.out)?.[1]);
		await waitUntil(
			() => ![broker, ...startedPids(log)].some(isAlive),
			"the shared server and the broker to exit",
			30_000,
		);
	}, 60_000);
});
