// Installing as the README says: the package as npm packs it, `npm install --omit=dev` in it,
// placed in <agentDir>/extensions/. Both Pi lines then load it with no -e and a search-then-call
// works; Pi 1.5's "replaced the built-in MCP" warning goes with `-builtin:mcp`; the shell CLI runs
// from there (this package, not another of the same name).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING, ROOT, tempDir } from "../support/helpers.ts";
import { lastToolMessage, startMockModel } from "../support/mock-openai.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

describe("installed into the extensions folder", () => {
	const dir = tempDir("pi-mcp-install-");
	const home = join(dir.path, "home");
	const agentDir = join(home, ".pi", "agent");
	const packageDir = join(agentDir, "extensions", "pi-mcp-adapter");
	const cwd = join(dir.path, "work");

	beforeAll(() => {
		mkdirSync(join(agentDir, "extensions"), { recursive: true });
		mkdirSync(cwd, { recursive: true });
		const npm = (args: string[], where: string) =>
			execFileSync("npm", args, { cwd: where, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
		npm(["pack", "--pack-destination", dir.path, "--silent"], ROOT);
		const tarball = readdirSync(dir.path).find((f) => f.endsWith(".tgz")) as string;
		execFileSync("tar", ["xzf", tarball], { cwd: dir.path });
		renameSync(join(dir.path, "package"), packageDir);
		npm(["install", "--omit=dev", "--no-audit", "--no-fund"], packageDir);
		writeFileSync(
			join(agentDir, "mcp.json"),
			JSON.stringify({ mcpServers: { everything: { command: "node", args: [EVERYTHING, "stdio"] } } }),
		);
	}, 180_000);
	afterAll(() => dir.remove());

	it("holds only what the extension needs: no dev dependency, no Pi copy, no TypeBox of its own", () => {
		expect(existsSync(join(packageDir, "node_modules", "@modelcontextprotocol", "client"))).toBe(true);
		// SDK v1 is only what the test servers are built with.
		expect(existsSync(join(packageDir, "node_modules", "@modelcontextprotocol", "sdk"))).toBe(false);
		expect(existsSync(join(packageDir, "node_modules", "@modelcontextprotocol", "server"))).toBe(false);
		expect(existsSync(join(packageDir, "node_modules", "@mariozechner"))).toBe(false);
		expect(existsSync(join(packageDir, "node_modules", "vitest"))).toBe(false);
		expect(existsSync(join(packageDir, "node_modules", "@sinclair", "typebox"))).toBe(false);
		expect(existsSync(join(packageDir, "tests"))).toBe(false);
	});

	it.each(PI_HOSTS)(
		"$name loads it with no -e; search then call works",
		async (host) => {
			// Pi 1.5 (codemode on, as a user has it): the model reaches MCP through codemode scripts, which
			// search with `tools.mcp` and call the Pi tool; pi 0.73: through the `mcp` tool itself.
			const script = [
				'const found = await tools.mcp({ search: "add numbers" });',
				"const name = /^- (\\S+)/m.exec(found)[1];",
				"const r = await tools.mcp({ tool: name, args: { a: 2, b: 3 } });",
				"return r;",
			].join("\n");
			const model = await startMockModel(
				host.name === "pi-1.5"
					? [
							() => ({ toolCall: { name: "codemode", arguments: { code: script } } }),
							(req) => ({
								text: `RESULT ${lastToolMessage(req)
									.split("\n")
									.find((l) => l.startsWith("The sum"))}`,
							}),
						]
					: [
							() => ({ toolCall: { name: "mcp", arguments: { search: "add numbers" } } }),
							(req) => ({
								toolCall: {
									name: "mcp",
									arguments: { tool: /^- (\S+)/.exec(lastToolMessage(req))?.[1] ?? "", args: { a: 2, b: 3 } },
								},
							}),
							(req) => ({ text: `RESULT ${lastToolMessage(req)}` }),
						],
			);
			try {
				writeFileSync(join(agentDir, "models.json"), model.modelsJson());
				// The README's line that silences Pi 1.5's notice about its built-in MCP.
				writeFileSync(
					join(agentDir, "settings.json"),
					JSON.stringify({ retry: { enabled: false }, extensions: ["-builtin:mcp"] }),
				);
				const env: Record<string, string | undefined> = {
					...process.env,
					HOME: home,
					PI_OFFLINE: "1",
					PI_CODING_AGENT_DIR: undefined,
				};
				const child = spawn(
					host.node,
					[host.cli, "-p", "--no-session", "--provider", "mock", "--model", "m", "add 2 and 3"],
					{ cwd, env, stdio: ["ignore", "pipe", "pipe"] },
				);
				let out = "";
				child.stdout.on("data", (c) => (out += c));
				child.stderr.on("data", (c) => (out += c));
				const code = await new Promise((resolve) => child.on("close", resolve));
				expect(code, out).toBe(0);
				expect(out).toContain("RESULT The sum of 2 and 3 is 5.");
				expect(out).not.toContain("built-in extension `mcp` was not loaded");
				expect(out).not.toMatch(/peerDependencies|Cannot find module/);
			} finally {
				await model.close();
			}
		},
		60_000,
	);

	it("the shell CLI runs from there", () => {
		const out = execFileSync("node", [join(packageDir, "bin", "pi-mcp-proxy.mjs"), "search", "add", "numbers"], {
			cwd,
			env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: agentDir },
			encoding: "utf8",
			timeout: 60_000,
		});
		expect(out).toContain("everything_get-sum (a: number, b: number)");
	});
});
