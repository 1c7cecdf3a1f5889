// Managing servers from a shell as a user does: `pi-mcp-proxy add`, `get`, `list`, `remove` write
// and read the files Pi 1.x's own `pi mcp add` / `remove` / `list` do (each reads what the other
// wrote), and `doctor` checks a broken and a good setup: every file, every server started and
// ended, sign-in, names defined twice; exit 0 only when all is well.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isAlive } from "../../bounds/process-tree.ts";
import { countedServer, EVERYTHING, freePort, ROOT, startedPids, tempDir } from "../support/helpers.ts";
import { startOAuthServer } from "../support/oauth-fixture.ts";
import { PI1_HOSTS, type PiHost } from "../support/pi-hosts.ts";

const BIN = join(ROOT, "bin", "pi-mcp-proxy.mjs");

describe("servers managed from the shell", () => {
	let dir: ReturnType<typeof tempDir>;
	let home: string;
	let cwd: string;
	let agentDir: string;
	beforeEach(() => {
		dir = tempDir();
		home = join(dir.path, "home");
		cwd = join(home, "repo");
		agentDir = join(home, "agent");
		mkdirSync(cwd, { recursive: true });
		mkdirSync(agentDir, { recursive: true });
	});
	afterEach(() => dir.remove());
	const env = () => ({ ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: home, PI_OFFLINE: "1" });
	const cli = (...args: string[]) => {
		const run = spawnSync(process.execPath, [BIN, ...args], { cwd, env: env(), encoding: "utf8", timeout: 90_000 });
		return { code: run.status, out: run.stdout, err: run.stderr };
	};
	/** Pi 1.x's own `pi mcp ...`, in the same home. */
	const piMcp = (host: PiHost, ...args: string[]) => {
		const run = spawnSync(host.node, [host.cli, "mcp", ...args], {
			cwd,
			env: env(),
			encoding: "utf8",
			timeout: 90_000,
		});
		return { code: run.status, out: run.stdout, err: run.stderr };
	};
	const userFile = () => join(agentDir, "mcp.json");

	it.each(PI1_HOSTS)(
		"add, get, list and remove write the files of $name's pi mcp, in its format: each reads what the other wrote",
		(host) => {
			const added = cli("add", "ours", "--env", "GREETING=hi", "--", process.execPath, EVERYTHING, "stdio");
			expect(added.code, added.err).toBe(0);
			expect(added.out).toContain(`Added "ours" in ${userFile()}.`);
			expect(JSON.parse(readFileSync(userFile(), "utf8"))).toEqual({
				mcpServers: { ours: { command: process.execPath, args: [EVERYTHING, "stdio"], env: { GREETING: "hi" } } },
			});
			const theirs = piMcp(host, "add", "theirs", "--", process.execPath, EVERYTHING, "stdio");
			expect(theirs.code, theirs.err).toBe(0);

			// Pi reads (and starts) what ours wrote; ours reads what Pi wrote.
			const listed = piMcp(host, "list");
			expect(listed.code, listed.out + listed.err).toBe(0);
			expect(listed.out).toMatch(/^ours: connected, \d+ tools/m);
			expect(listed.out).toMatch(/^theirs: connected, \d+ tools/m);
			const got = cli("get", "theirs");
			expect(got.code, got.err).toBe(0);
			expect(got.out).toContain(
				`theirs\n  defined in: ${userFile()} (yours)\n  runs: ${process.execPath} ${EVERYTHING} stdio`,
			);
			expect(cli("list").out).toMatch(/^ours: .*\ntheirs: /m);

			expect(cli("remove", "theirs").out).toBe(`Removed "theirs" from ${userFile()}.\n`);
			expect(piMcp(host, "list").out).not.toContain("theirs");
			const again = cli("remove", "theirs");
			expect(again.code).toBe(1);
			expect(again.err).toContain(`No server "theirs" in ${userFile()}.`);

			// The project's file: ours writes it (-l, as Pi's), Pi removes from it.
			expect(cli("add", "-l", "proj", "--", process.execPath, EVERYTHING, "stdio").code).toBe(0);
			const projectFile = join(cwd, ".pi", "mcp.json");
			expect(JSON.parse(readFileSync(projectFile, "utf8")).mcpServers.proj.command).toBe(process.execPath);
			expect(piMcp(host, "remove", "-l", "proj").code).toBe(0);
			expect(JSON.parse(readFileSync(projectFile, "utf8")).mcpServers).toEqual({});
		},
		180_000,
	);

	it("add takes a URL with headers, and refuses a wrong entry with the reason and the usage (exit 2)", () => {
		const remote = cli("add", "docs", "https://docs.example.com/mcp", "--header", "X-Team=${TEAM}");
		expect(remote.code, remote.err).toBe(0);
		expect(remote.err).toContain('warning: field "headers.X-Team": ${TEAM} is not set in this shell');
		expect(remote.out).toContain("If it needs sign-in: pi-mcp-proxy login docs");
		expect(JSON.parse(readFileSync(userFile(), "utf8")).mcpServers.docs).toEqual({
			url: "https://docs.example.com/mcp",
			headers: { "X-Team": "${TEAM}" },
		});
		const wrong = cli("add", "bad", "--exposure", "everywhere", "--", "node");
		expect(wrong.code).toBe(2);
		expect(wrong.err).toContain('add: the entry for "bad" exposure: must be one of');
		expect(wrong.err).toContain("Usage: pi-mcp-proxy add <name>");
		expect(cli("add", "lonely").code).toBe(2);
		expect(cli("add", "x", "--env", "NOEQUALS", "--", "node").err).toContain('--env takes KEY=VALUE, not "NOEQUALS"');
	}, 60_000);

	it("doctor names every problem of a broken setup (exit 1), and passes a good one (exit 0), ending every server", async () => {
		const oauth = await startOAuthServer();
		try {
			const refused = await freePort();
			writeFileSync(
				userFile(),
				JSON.stringify({
					mcpServers: {
						typo: { command: "node", args: "not-a-list" },
						unknown: { command: process.execPath, args: [EVERYTHING, "stdio"], lifecyle: "lazy" },
						crashing: {
							command: process.execPath,
							args: ["-e", "console.error('fatal: no API key set'); process.exit(3)"],
						},
						unreachable: { url: `http://127.0.0.1:${refused}/mcp` },
						gated: { url: oauth.url },
					},
				}),
			);
			// 2.36's shared file defines a name again: the Pi file's wins, and doctor says so.
			mkdirSync(join(home, ".config", "mcp"), { recursive: true });
			writeFileSync(
				join(home, ".config", "mcp", "mcp.json"),
				JSON.stringify({ mcpServers: { crashing: { command: "x" } } }),
			);
			writeFileSync(join(cwd, ".mcp.json"), '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}\n');
			const broken = cli("doctor");
			expect(broken.code).toBe(1);
			const lines = broken.out.split("\n");
			const has = (mark: string, text: string) =>
				expect(
					lines.some((l) => l.startsWith(`  ${mark}`) && l.includes(text)),
					`${mark} ${text}\n${broken.out}`,
				).toBe(true);
			has("FAIL", `${join(cwd, ".mcp.json")} line 4, column 5: a comma is missing`);
			has("FAIL", `${userFile()}: server "typo": args: must be a list of strings, got a string`);
			has("warn", `${userFile()}: server "unknown": unknown field "lifecyle" ignored (did you mean "lifecycle"?)`);
			has(
				"FAIL",
				"crashing: failed: the server exited (exit code 3) before it was ready (the server said: fatal: no API key set)",
			);
			has("FAIL", `unreachable: failed: Cannot reach http://127.0.0.1:${refused}/mcp: nothing accepts connections`);
			has("FAIL", "gated: needs sign-in");
			has("note", "gated: not signed in: run pi-mcp-proxy login gated");
			has("warn", `"crashing" is defined in ${join(home, ".config", "mcp", "mcp.json")} and again in ${userFile()}`);
			has("ok", "unknown: connected, ");
			expect(broken.out).toMatch(/\n\d+ problems, \d+ warnings: fix them and run pi-mcp-proxy doctor again\.\n$/);
			expect(broken.out).not.toMatch(/CommaExpected|SSE fallback|ask the user/);
		} finally {
			await oauth.stop();
		}

		const log = join(dir.path, "starts.log");
		writeFileSync(userFile(), JSON.stringify({ mcpServers: { everything: countedServer(log) } }));
		writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: {} }));
		writeFileSync(join(home, ".config", "mcp", "mcp.json"), "{}");
		const good = cli("doctor");
		expect(good.code, good.out + good.err).toBe(0);
		expect(good.out).toMatch(/^ {2}ok {4}everything: connected, \d+ tools/m);
		expect(good.out).toMatch(/All well: 3 config files, 1 server\.\n$/);
		expect(startedPids(log)).toHaveLength(1);
		expect(startedPids(log).filter(isAlive)).toEqual([]);
	}, 180_000);

	it("the help names the new commands and the exit codes", () => {
		const help = execFileSync(process.execPath, [BIN, "help"], { cwd, env: env(), encoding: "utf8" });
		for (const command of ["add <name>", "remove <name>", "get <name>", "doctor", "list  "])
			expect(help).toContain(command);
		expect(help).toContain("Exit codes: 0 done, 1 failed");
	});
});
