// Answers while a server's npx install is still running (held at the slow npm stand-in's gate):
// a search, list or describe that needs the installing server waits for it and says why, and then
// answers from it (the model is not sent back to ask again); a search the known tools already
// answer well comes at once and names what is still installing; the turn's abort ends the wait,
// not the install.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ServerLifecycle } from "../../lifecycle.ts";
import { NpxResolver } from "../../npx-resolver.ts";
import { type ProxyResult, runProxy } from "../../proxy/proxy-tool.ts";
import { McpServerManager } from "../../server-manager.ts";
import { configOf, MEMORY, tempDir, waitUntil } from "../support/helpers.ts";
import { type SlowNpm, slowNpm } from "../support/slow-npm.ts";

const SPEC = "@example/slow-server@1.0.0";
const INSTALLING = /waiting for slow: installing @example\/slow-server@1\.0\.0 with npm, \d+ s/;

describe("answers while a server installs", () => {
	let dir: ReturnType<typeof tempDir>;
	let npm: SlowNpm;
	let lifecycle: ServerLifecycle;
	afterEach(async () => {
		npm.open(); // the install ends, so none outlives the test
		await lifecycle.shutdown();
		const npx = join(dir.path, "npm-cache", "_npx");
		const installing = () => existsSync(npx) && readdirSync(npx).some((n) => n.endsWith(".pi-mcp-install"));
		await waitUntil(() => !installing(), "the install to end", 60_000);
		dir.remove();
	});

	/** A session with `slow` (installing, held at the gate) and `memory` (known once it has connected). */
	async function start(): Promise<void> {
		dir = tempDir();
		npm = slowNpm(dir.path, { gate: true });
		const config = configOf({
			slow: { command: "npx", args: ["-y", SPEC], env: npm.env },
			memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir.path, "m.jsonl") } },
		});
		const resolver = new NpxResolver({ agentDir: dir.path, lookupVersion: async () => undefined });
		lifecycle = new ServerLifecycle({ config, manager: new McpServerManager({ launch: resolver.launcher() }) });
		lifecycle.start();
		await npm.paused();
		await waitUntil(() => lifecycle.catalog.has("memory"), "memory's tools", 60_000);
	}

	const text = (result: ProxyResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

	it("a search that needs the installing server waits for it, says why, and finds its tool", async () => {
		await start();
		const told: string[] = [];
		const answer = runProxy(lifecycle, { search: "add two numbers" }, { onWait: (t) => told.push(t) });
		await waitUntil(() => told.some((t) => INSTALLING.test(t)), "the search to say what it waits for", 60_000);
		npm.open();
		const found = text(await answer);
		expect(found).toContain("slow_get-sum");
		expect(found).not.toMatch(/still starting|again/);
	}, 90_000);

	it("a search the known tools answer well comes at once and names what is still installing", async () => {
		await start();
		const found = text(await runProxy(lifecycle, { search: "read the knowledge graph" }));
		expect(found).toContain("memory_read_graph");
		expect(found).toMatch(
			/not searched, still starting: slow \(installing @example\/slow-server@1\.0\.0 with npm, \d+ s\)/,
		);
		expect(found).not.toMatch(/again/);
	}, 90_000);

	it("listing and describing the installing server wait for it and answer from it", async () => {
		await start();
		const told: string[] = [];
		const onWait = (t: string) => told.push(t);
		const listed = runProxy(lifecycle, { server: "slow" }, { onWait });
		const described = runProxy(lifecycle, { describe: "slow_echo" }, { onWait });
		await waitUntil(() => told.filter((t) => INSTALLING.test(t)).length >= 2, "both to say what they wait for", 60_000);
		npm.open();
		expect(text(await listed)).toMatch(/^slow: \d+ tools/);
		expect(text(await described)).toContain("slow_echo");
	}, 90_000);

	it("the turn's abort ends the wait, not the install", async () => {
		await start();
		const told: string[] = [];
		const turn = new AbortController();
		const answer = runProxy(
			lifecycle,
			{ search: "add two numbers" },
			{ signal: turn.signal, onWait: (t) => told.push(t) },
		);
		await waitUntil(() => told.some((t) => INSTALLING.test(t)), "the search to wait", 60_000);
		turn.abort();
		expect(text(await answer)).toBe("Cancelled while servers were starting.");
		npm.open();
		await waitUntil(() => lifecycle.catalog.has("slow"), "the install, then the connect, to finish", 60_000);
		expect(npm.installs()).toEqual([`exec ${SPEC}`]);
	}, 90_000);
});
