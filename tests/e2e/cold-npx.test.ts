// The first hour of a real user: an empty npm cache and agent dir, three servers configured as
// every README shows them (`npx -y <package>`), one `pi -p hello` that exits at once (the cache
// fill starts npx installs), then at once `pi -p` calling each server while those installs may
// still run. Every install is complete (npm's `_npx/<hash>` folder has its package.json) and every
// server answers. Both Pi lines.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { npxInstallDir } from "../../npx-resolver.ts";
import { EVERYTHING, ROOT, waitUntil } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const VERSION = "2026.8.31";
const SLOW_NPM = join(ROOT, "tests/fixtures/slow-npm.mjs");

describe.each(PI_HOSTS)("a cold npm cache ($name)", (host) => {
	let home: PiHome | undefined;
	afterEach(async () => disposeAfterInstalls(home));

	it("a first run that exits at once leaves complete npx installs; then every server answers", async () => {
		home = await createPiHome({});
		const npmCache = join(home.root, "npm-cache");
		const npx = (name: string, ...args: string[]) => ({
			command: "npx",
			args: ["-y", `@modelcontextprotocol/server-${name}@${VERSION}`, ...args],
			env: { npm_config_cache: npmCache },
		});
		const servers = {
			memory: { ...npx("memory"), env: { npm_config_cache: npmCache, MEMORY_FILE_PATH: join(home.root, "m.jsonl") } },
			files: npx("filesystem", home.cwd),
			thinking: npx("sequential-thinking"),
		};
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: servers }));
		// The network is needed here (npm downloads): no PI_OFFLINE.
		const env = { PI_OFFLINE: "" };
		const hello = await runPi(home, "hello", { host, steps: [() => ({ text: "hi" })], env });
		expect(hello.code, hello.stderr).toBe(0);
		const calls = [
			["memory_read_graph", {}],
			["files_list_allowed_directories", {}],
			["thinking_sequentialthinking", { thought: "one", thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false }],
		] as const;
		for (const [tool, args] of calls) {
			const steps = [
				() => ({ toolCall: { name: "mcp", arguments: { tool, args } } }),
				(req: ChatRequest) => ({ text: `said: ${lastToolMessage(req)}` }),
			];
			const run = await runPi(home, `call ${tool}`, { host, steps, env, timeoutMs: 120_000 });
			expect(run.code, run.stderr).toBe(0);
			expect(run.stdout, tool).toMatch(/said: /);
			expect(run.stdout, tool).not.toMatch(/failed|Connection closed|ERR_MODULE_NOT_FOUND|still starting/);
		}
		const npxDir = join(npmCache, "_npx");
		// Each detached install removes its marker when its npm ends: nothing of ours stays in npm's cache.
		await waitUntil(
			() => readdirSync(npxDir).every((n) => !n.endsWith(".pi-mcp-install")),
			"the installs' markers to go",
		);
		const installs = readdirSync(npxDir);
		expect(installs.length).toBeGreaterThanOrEqual(3);
		for (const dir of installs) expect(existsSync(join(npxDir, dir, "package.json")), dir).toBe(true);
	}, 300_000);
});

/**
 * A home whose `npx` and `npm` are the slow stand-in (installs taking `installMs`, leaving npm's
 * broken folder if killed), with one server `slow` run through `npx -y <spec>`.
 */
function slowNpmHome(home: PiHome, installMs: number) {
	const npmCache = join(home.root, "npm-cache");
	const bin = join(home.root, "bin");
	mkdirSync(bin);
	for (const tool of ["npx", "npm"]) {
		writeFileSync(join(bin, tool), `#!/bin/sh\nexec "${process.execPath}" "${SLOW_NPM}" ${tool} "$@"\n`, {
			mode: 0o755,
		});
	}
	const spec = "@example/slow-server@1.0.0";
	home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { slow: { command: "npx", args: ["-y", spec] } } }));
	const env = {
		PI_OFFLINE: "",
		PATH: `${bin}:${process.env.PATH}`,
		npm_config_cache: npmCache,
		INSTALL_MS: String(installMs),
		SLOW_NPM_SERVER: EVERYTHING,
	};
	const packageDir = join(npxInstallDir(spec, npmCache), "node_modules", "@example/slow-server");
	const echo = (message: string) => [
		() => ({ toolCall: { name: "mcp", arguments: { tool: "slow_echo", args: { message } } } }),
		(req: ChatRequest) => ({ text: `said: ${lastToolMessage(req)}` }),
	];
	return { env, packageDir, echo };
}

describe.each(PI_HOSTS)("an npx install still running when Pi exits ($name)", (host) => {
	let home: PiHome | undefined;
	afterEach(async () => disposeAfterInstalls(home));

	it("is never cut in half: it completes after Pi's exit, and the next run's call works", async () => {
		home = await createPiHome({});
		const { env, packageDir, echo } = slowNpmHome(home, 8000);
		const hello = await runPi(home, "hello", { host, steps: [() => ({ text: "hi" })], env });
		expect(hello.code, hello.stderr).toBe(0);
		const manifest = join(packageDir, "package.json");
		// Pi has exited; the install it started goes on to the end (or this waits in vain and fails).
		await waitUntil(() => existsSync(manifest), "the install to complete after Pi exited", 30_000).catch(
			() => undefined,
		);
		expect(existsSync(manifest)).toBe(true);
		const run = await runPi(home, "echo", { host, steps: echo("after"), env });
		expect(run.stdout).toContain("said: Echo: after");
	}, 120_000);

	it("a run that starts while the last one's install goes on waits for it: one install, and the call works", async () => {
		home = await createPiHome({});
		const { env, packageDir, echo } = slowNpmHome(home, 10_000);
		const log = join(home.root, "installs.log");
		const hello = await runPi(home, "hello", {
			host,
			steps: [() => ({ text: "hi" })],
			env: { ...env, SLOW_NPM_LOG: log },
		});
		expect(hello.code, hello.stderr).toBe(0);
		// Halfway: the package is there, its dependencies not yet (run now, it fails, as a real one does).
		await waitUntil(() => existsSync(join(packageDir, "package.json")), "the install to be halfway", 30_000);
		const run = await runPi(home, "echo", { host, steps: echo("waited"), env: { ...env, SLOW_NPM_LOG: log } });
		expect(run.stdout).toContain("said: Echo: waited");
		expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(1);
	}, 120_000);

	it("a folder an earlier install was cut out of is repaired at the next connect", async () => {
		home = await createPiHome({});
		const { env, packageDir, echo } = slowNpmHome(home, 100);
		// What a killed npm leaves: the package's folder, no package.json.
		mkdirSync(packageDir, { recursive: true });
		const run = await runPi(home, "echo", { host, steps: echo("repaired"), env });
		expect(run.stdout).toContain("said: Echo: repaired");
	}, 120_000);
});

/**
 * Removes the home once the npx installs its sessions left running have ended (their markers gone):
 * a detached npm still writing there would make the removal fail, and outlive the test.
 */
async function disposeAfterInstalls(home: PiHome | undefined): Promise<void> {
	if (!home) return;
	const npxDir = join(home.root, "npm-cache", "_npx");
	const running = () => existsSync(npxDir) && readdirSync(npxDir).some((n) => n.endsWith(".pi-mcp-install"));
	try {
		await waitUntil(() => !running(), "the detached installs to end", 50_000);
	} finally {
		await home.dispose();
	}
}
