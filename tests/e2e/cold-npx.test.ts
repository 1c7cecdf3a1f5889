// The first hour of a real user: an empty npm cache and agent dir, three servers configured as
// every README shows them (`npx -y <package>`), one `pi -p hello` that exits at once (the cache
// fill starts npx installs), then at once `pi -p` calling each server while those installs may
// still run. Every install is complete (npm's `_npx/<hash>` folder has its package.json) and every
// server answers. Both Pi lines.
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, type PiRpc, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";
import { slowNpm } from "../support/slow-npm.ts";

const VERSION = "2026.8.31";

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

const SPEC = "@example/slow-server@1.0.0";

/**
 * A home whose `npx` and `npm` are the slow stand-in (tests/support/slow-npm.ts: installs taking
 * `installMs`, or held at a gate; leaving npm's broken folder if killed), with one server `slow`
 * run through `npx -y <spec>`.
 */
function slowNpmHome(home: PiHome, options: { installMs?: number; gate?: boolean }) {
	const npm = slowNpm(home.root, { gate: options.gate, env: { INSTALL_MS: String(options.installMs ?? 8000) } });
	home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { slow: { command: "npx", args: ["-y", SPEC] } } }));
	const env = { PI_OFFLINE: "", ...npm.env };
	const packageDir = npm.packageDir(SPEC, "@example/slow-server");
	const echo = (message: string) => [
		() => ({ toolCall: { name: "mcp", arguments: { tool: "slow_echo", args: { message } } } }),
		(req: ChatRequest) => ({ text: `said: ${lastToolMessage(req)}` }),
	];
	return { npm, env, packageDir, echo };
}

describe.each(PI_HOSTS)("an npx install in progress ($name)", (host) => {
	let home: PiHome | undefined;
	let pi: PiRpc | undefined;
	let gate: { open(): void } | undefined;
	afterEach(async () => {
		gate?.open(); // an install still held ends, so none outlives the test
		await pi?.close();
		pi = undefined;
		await disposeAfterInstalls(home);
	});

	it("shows in the status line, in mcp({}) and in the call's progress; the call waits for it and answers", async () => {
		home = await createPiHome({});
		const { npm, env } = slowNpmHome(home, { gate: true });
		gate = npm;
		let status = "";
		const steps = [
			() => ({ toolCall: { name: "mcp", arguments: {} } }),
			(req: ChatRequest) => {
				status = lastToolMessage(req);
				return { toolCall: { name: "mcp", arguments: { tool: "slow_echo", args: { message: "installed" } } } };
			},
			(req: ChatRequest) => ({ text: `said: ${lastToolMessage(req)}` }),
		];
		pi = await startPiRpc({ home, host, env, steps });
		// The session's start begins the install (its cache fill); it waits at the gate.
		await npm.paused();
		pi.send({ id: "p", type: "prompt", message: "echo installed" });
		const installing = /installing @example\/slow-server@1\.0\.0 with npm, \d+ s/;
		const line = await pi.waitFor(
			(e) => e.method === "setStatus" && e.statusKey === "mcp" && installing.test(String(e.statusText)),
			0,
			60_000,
		);
		expect(String(line.statusText)).toMatch(/^MCP 0\/1 installing/);
		const update = await pi.waitFor(
			(e) => e.type === "tool_execution_update" && installing.test(JSON.stringify(e.partialResult)),
			0,
			60_000,
		);
		expect(JSON.stringify(update.partialResult)).toContain("waiting for slow: installing");
		npm.open();
		await pi.waitFor((e) => e.type === "agent_end", 0, 60_000);
		expect(status).toMatch(/- slow: installing @example\/slow-server@1\.0\.0 with npm, \d+ s/);
		const answer = home.model.requests.at(-1);
		expect(answer && lastToolMessage(answer)).toBe("Echo: installed");
		expect(npm.installs()).toEqual([`exec ${SPEC}`]);
	}, 120_000);
});

describe.each(PI_HOSTS)("an npx install still running when Pi exits ($name)", (host) => {
	let home: PiHome | undefined;
	afterEach(async () => disposeAfterInstalls(home));

	it("is never cut in half: it completes after Pi's exit, and the next run's call works", async () => {
		home = await createPiHome({});
		const { env, packageDir, echo } = slowNpmHome(home, { installMs: 8000 });
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
		const { npm, env, packageDir, echo } = slowNpmHome(home, { installMs: 10_000 });
		const hello = await runPi(home, "hello", { host, steps: [() => ({ text: "hi" })], env });
		expect(hello.code, hello.stderr).toBe(0);
		// Halfway: the package is there, its dependencies not yet (run now, it fails, as a real one does).
		await waitUntil(() => existsSync(join(packageDir, "package.json")), "the install to be halfway", 30_000);
		const run = await runPi(home, "echo", { host, steps: echo("waited"), env });
		expect(run.stdout).toContain("said: Echo: waited");
		expect(npm.installs()).toEqual([`exec ${SPEC}`]);
	}, 120_000);

	it("a folder an earlier install was cut out of is repaired at the next connect", async () => {
		home = await createPiHome({});
		const { env, packageDir, echo } = slowNpmHome(home, { installMs: 100 });
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
