// A copy without its dependencies (a clone, `pi install <folder>` before `npm install`): on both Pi
// lines the start says so in one line that names the command to run; on pi 0.73 `/mcp` and the
// first `mcp` result say the same; on Pi 1.x (1.5, 1.6) nothing of the built-in MCP is taken over, so the
// built-in serves the user's server meanwhile; the shell command says it and exits 1. Then the
// command the line names is run as written, and the extension works on both lines.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_NPM_CACHE, tempDir } from "../support/helpers.ts";
import { emptyHome, piSession, runCommand, searchThenCall } from "../support/install-harness.ts";
import { copyWorkingTree } from "../support/local-registry.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { PI_073, PI_HOSTS, PI1_HOSTS } from "../support/pi-hosts.ts";

const BUILT_IN_REPLACED = "built-in extension `mcp` was not loaded";

describe("a copy of the package without its dependencies", () => {
	const dir = tempDir("pi-mcp-nodeps-");
	const folder = join(dir.path, "pi-mcp-proxy");
	const fix = `npm install --omit=dev --prefix ${folder}`;
	const problem = (out: string) => out.split("\n").filter((line) => line.includes("cannot run: its dependencies"));
	const homes = Object.fromEntries(PI_HOSTS.map((host) => [host.name, emptyHome(dir.path, host.name)]));
	const env = (host: (typeof PI_HOSTS)[number]) => ({
		...process.env,
		HOME: homes[host.name].home,
		PI_CODING_AGENT_DIR: undefined,
	});

	beforeAll(async () => {
		copyWorkingTree(folder);
		for (const host of PI_HOSTS) {
			const install = await runCommand(host.node, [host.cli, "install", folder], homes[host.name].cwd, env(host));
			expect(install.code, install.out).toBe(0);
		}
	}, 120_000);
	afterAll(() => dir.remove());

	it("pi 0.73: the start, /mcp and the first mcp result each say it in one line naming the fix", async () => {
		const at = homes[PI_073.name];
		const session = await piSession(PI_073, at, env(PI_073), [
			() => ({ toolCall: { name: "mcp", arguments: { search: "add numbers" } } }),
			(req) => ({ text: `RESULT ${lastToolMessage(req)}` }),
		]);
		expect(session.code, session.out).toBe(0);
		const [atStart, inResult] = problem(session.out);
		expect(atStart).toMatch(/^pi-mcp-proxy cannot run: its dependencies are not installed \(.+\)\. Fix: npm /);
		expect(atStart.endsWith(fix)).toBe(true);
		expect(inResult).toContain(`RESULT ${atStart}`);
		const command = await piSession(PI_073, at, env(PI_073), [], "/mcp");
		expect(problem(command.out)).toEqual([atStart, atStart]); // the start, then /mcp
	}, 120_000);

	it.each(PI1_HOSTS)(
		"$name: the start says it in one line; the built-in MCP is not switched off and serves the server",
		async (host) => {
			const script = "return await tools.mcp__everything__get_sum({ a: 2, b: 3 });";
			const session = await piSession(host, homes[host.name], env(host), [
				() => ({ toolCall: { name: "codemode", arguments: { code: script } } }),
				(req) => ({ text: `RESULT ${lastToolMessage(req)}` }),
			]);
			expect(session.code, session.out).toBe(0);
			const lines = problem(session.out);
			expect(lines).toHaveLength(1);
			expect(lines[0]).toContain("; Pi's built-in MCP is not replaced meanwhile. Fix: npm ");
			expect(lines[0].endsWith(fix)).toBe(true);
			expect(session.out).not.toContain(BUILT_IN_REPLACED);
			expect(session.out).toContain("The sum of 2 and 3 is 5.");
		},
		120_000,
	);

	it("the shell command says it in one line and exits 1", async () => {
		const cli = await runCommand(
			process.execPath,
			[join(folder, "bin", "pi-mcp-proxy.mjs"), "status"],
			dir.path,
			env(PI_073),
		);
		expect(cli.code).toBe(1);
		expect(cli.out.trim().split("\n")).toEqual([expect.stringMatching(/cannot run: its dependencies .* Fix: npm /)]);
	});

	it("the fix, run as the line writes it, makes both Pi lines use the extension", async () => {
		execFileSync("sh", ["-c", fix], { env: { ...process.env, npm_config_cache: TEST_NPM_CACHE }, stdio: "ignore" });
		for (const host of PI_HOSTS) {
			const session = await piSession(host, homes[host.name], env(host), searchThenCall(host));
			expect(session.code, session.out).toBe(0);
			expect(session.out).toContain("RESULT The sum of 2 and 3 is 5.");
			expect(problem(session.out)).toEqual([]);
			// On Pi 1.x the extension now takes /mcp over from the built-in, and Pi says so.
			if (host.pi1) expect(session.out).toContain(BUILT_IN_REPLACED);
		}
	}, 600_000);
});
