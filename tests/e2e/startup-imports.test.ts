// What loading the extension costs is mostly the code it loads (Pi 1.5 evaluates it through jiti at
// every start). The paths a session start does not take load when first used: the MCP client, the
// proxy's call path, elicitation and sampling, the broker client, config editing, MCP Apps; and a start from
// the start-up snapshot loads no runtime at all (config, cache, catalog, lifecycle, manager).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineServer } from "../../config.ts";
import { MetadataCache } from "../../metadata-cache.ts";
import { ROOT, tempDir } from "../support/helpers.ts";

/** Loads the extension and starts a session with a stand-in for Pi 1.5's API. */
const START_SESSION = `
	const { default: factory } = await import(${JSON.stringify(join(ROOT, "index.ts"))});
	const handlers = {};
	const tools = new Map();
	const pi = {
		registerTool: (d) => tools.set(d.name, d), registerCommand() {}, registerFlag() {}, getFlag() {},
		on: (e, h) => (handlers[e] ??= []).push(h), registerMcpServer() {}, getMcpServers: () => [],
		getAllTools: () => [...tools.values()], getActiveTools: () => [], setActiveTools() {}, sendUserMessage() {},
	};
	await factory(pi);
	const ctx = { cwd: process.cwd(), hasUI: false, ui: { setStatus() {}, notify() {} }, isProjectTrusted: () => false };
	for (const h of handlers.session_start ?? []) await h({}, ctx);`;

/** The files of this package that `script` loads (in a fresh Node, as Pi would). */
function loadedBy(script: string, options: { cwd?: string; env?: Record<string, string> } = {}): string[] {
	// tsx resolves from the package's folder; the session runs in its own.
	const full = `process.chdir(${JSON.stringify(options.cwd ?? ROOT)});
		${script}
		console.log("LOADED" + JSON.stringify(await globalThis.loadedModules()));
		process.exit(0);`;
	const out = execFileSync(
		process.execPath,
		[
			"--import",
			"tsx",
			"--import",
			join(ROOT, "tests", "fixtures", "record-imports.mjs"),
			"--input-type=module",
			"-e",
			full,
		],
		{ cwd: ROOT, env: { ...process.env, ...options.env }, encoding: "utf8" },
	);
	const urls = JSON.parse(out.slice(out.indexOf("LOADED") + "LOADED".length)) as string[];
	return urls
		.map((url) => decodeURIComponent(new URL(url).pathname))
		.filter((path) => path.startsWith(`${ROOT}/`))
		.map((path) => path.slice(ROOT.length + 1));
}

/** The files of this package that importing index.ts loads. */
const startupImports = () => loadedBy(`await import(${JSON.stringify(join(ROOT, "index.ts"))});`);

describe("loading the extension", () => {
	it("a start from the start-up snapshot loads none of the runtime: config, cache, catalog, lifecycle, manager", async () => {
		const dir = tempDir();
		try {
			const agentDir = join(dir.path, "agent");
			const cwd = join(dir.path, "work");
			mkdirSync(agentDir, { recursive: true });
			mkdirSync(cwd, { recursive: true });
			const raw = { command: "not-a-real-command", args: ["x"] };
			writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { x: raw } }));
			const tool = { server: "x", name: "t", description: "a tool", inputSchema: { type: "object" } };
			await new MetadataCache(agentDir).store(defineServer("x", raw), { tools: [tool], resources: [] });
			const env = { PI_CODING_AGENT_DIR: agentDir };
			const runtime = ["mcp-runtime.ts", "config.ts", "metadata-cache.ts", "catalog/tool-catalog.ts", "lifecycle.ts"];
			const full = loadedBy(START_SESSION, { cwd, env });
			expect(full).toEqual(expect.arrayContaining([...runtime, "server-manager.ts"]));
			const fast = loadedBy(START_SESSION, { cwd, env });
			expect(fast).toContain("start-up/start-snapshot.ts");
			expect(fast.filter((file) => [...runtime, "server-manager.ts"].includes(file))).toEqual([]);
		} finally {
			dir.remove();
		}
	});

	it("loads no MCP client, call path, elicitation, sampling, broker client, config editing or MCP Apps", () => {
		const loaded = startupImports();
		expect(loaded).toContain("index.ts");
		expect(loaded).toContain("pi-tools/pi-tools.ts");
		const deferred = [
			"transport/open-connection.ts",
			"transport/mcp-sdk.ts",
			"proxy/proxy-tool.ts",
			"proxy/calls.ts",
			"client/elicitation.ts",
			"client/sampling.ts",
			"broker/client.ts",
			"config/edit.ts",
			"search/engine.ts",
			"apps/app-sessions.ts",
			"apps/page-server.ts",
			"pi-session/app-host.ts",
		];
		expect(loaded.filter((file) => deferred.includes(file))).toEqual([]);
		expect(loaded.filter((file) => file.includes("node_modules/@modelcontextprotocol/"))).toEqual([]);
	});

	it("loads no dependency, only what Pi lends (TypeBox): a copy missing them loads and says so (pi-session/dependency-check.ts)", () => {
		const packages = startupImports()
			.filter((file) => file.startsWith("node_modules/"))
			.map((file) => /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1]);
		expect([...new Set(packages)]).toEqual(["@sinclair/typebox"]);
	});
});
