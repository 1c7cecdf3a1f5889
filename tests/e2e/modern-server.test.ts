// A server of the 2026-07-28 revision (tests/fixtures/server-2026.ts, SDK v2's server package):
// over stdio (the 2025 opening, which v2 servers serve) and over HTTP answering the 2026 wire only.
// Its tools list, are called (an argument mirrored as a header where the tool says so), ask the
// user through an input-required result, and stay searchable
// from the cache in the next session although the server says its listing is stale at once
// (`ttlMs: 0`) and is not running.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpRuntime } from "../../mcp-runtime.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { freePort, ROOT, stopChild, TSX, tempDir, waitForPort } from "../support/helpers.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const FIXTURE = join(ROOT, "tests", "fixtures", "server-2026.ts");

/** The fixture over HTTP on a free port of 127.0.0.1. */
async function startModernHttp(): Promise<{ url: string; child: ChildProcess }> {
	const port = await freePort();
	const child = spawn(process.execPath, [TSX, FIXTURE, "http", String(port)], { stdio: "ignore" });
	await waitForPort(port, child);
	return { url: `http://127.0.0.1:${port}/mcp`, child };
}

const stdioEntry = { command: process.execPath, args: [TSX, FIXTURE, "stdio"] };

describe.each([
	{ label: "stdio", http: false },
	{ label: "HTTP (2026 wire only)", http: true },
])("a 2026-07-28 server over $label", ({ http }) => {
	let dir: ReturnType<typeof tempDir>;
	let server: { url: string; child: ChildProcess } | undefined;
	let runtime: McpRuntime;
	const asked: string[] = [];

	beforeAll(async () => {
		dir = tempDir();
		if (http) server = await startModernHttp();
		const entry = server ? { url: server.url } : stdioEntry;
		writeFileSync(join(dir.path, "mcp.json"), JSON.stringify({ mcpServers: { modern: entry } }));
		runtime = new McpRuntime({
			cwd: dir.path,
			env: { ...process.env, PI_CODING_AGENT_DIR: join(dir.path, "agent") },
			configPath: join(dir.path, "mcp.json"),
		});
		runtime.client.host = {
			dialogs: {
				select: async (title, options) => {
					asked.push(title);
					return options.find((option) => option.startsWith("Yes"));
				},
				input: async () => undefined,
				confirm: async (title) => title.startsWith("Send these answers"),
				notify: () => undefined,
			},
		};
	}, 60_000);
	afterAll(async () => {
		await runtime?.shutdown();
		if (server) await stopChild(server.child);
		dir?.remove();
	});

	const proxy = async (input: Record<string, unknown>) =>
		contentText((await runProxy(runtime.lifecycle, input, { notes: (s) => runtime.client.takeNotes(s) })).content);

	it("lists its tools and answers a call", async () => {
		expect(await proxy({ server: "modern" })).toMatch(
			/modern_echo[\s\S]*modern_deploy|modern_deploy[\s\S]*modern_echo/,
		);
		expect(await proxy({ tool: "modern_echo", args: { message: "hi" } })).toBe("modern echo: hi");
	}, 60_000);

	it("sends an argument its tool declares as a header (SEP-2243); a tool with an invalid declaration is left out over HTTP only", async () => {
		// Over HTTP the server refuses the call unless Mcp-Param-Region carries the region too.
		expect(await proxy({ tool: "modern_route", args: { region: "eu-west", job: "build" } })).toBe(
			"build routed to eu-west",
		);
		const listed = await proxy({ server: "modern" });
		if (http) expect(listed).not.toContain("modern_lookup");
		else expect(await proxy({ tool: "modern_lookup", args: { key: "k" } })).toBe("value of k");
	}, 60_000);

	it("asks the user what its input-required result asks, and finishes with the answer", async () => {
		expect(await proxy({ tool: "modern_deploy", args: { env: "prod" } })).toBe("deployed to prod");
		expect(asked.join("\n")).toContain("Deploy to prod?");
	}, 60_000);
});

describe.each(PI_HOSTS)("a 2026-07-28 server from the real %s", (host) => {
	let home: PiHome;
	let server: { url: string; child: ChildProcess } | undefined;

	beforeAll(async () => {
		server = await startModernHttp();
		home = await createPiHome({
			mcpConfig: { mcpServers: { modern: stdioEntry, "modern-http": { url: server.url } } },
		});
	}, 60_000);
	afterAll(async () => {
		if (server) await stopChild(server.child);
		await home?.dispose();
	});

	it("calls it, then finds its tools from the cache with it stopped (its listing said ttlMs: 0)", async () => {
		const first = await runPi(home, "echo", {
			host,
			steps: [
				() => ({ toolCall: { name: "mcp", arguments: { tool: "modern-http_echo", args: { message: "one" } } } }),
				() => ({ text: "done" }),
			],
		});
		expect(first.code).toBe(0);
		expect(JSON.stringify(home.model.requests.at(-1)?.messages), first.stderr).toContain("modern echo: one");

		await stopChild(server?.child as ChildProcess);
		const second = await runPi(home, "search", {
			host,
			steps: [() => ({ toolCall: { name: "mcp", arguments: { search: "deploy confirm" } } }), () => ({ text: "done" })],
		});
		expect(second.code).toBe(0);
		const seen = JSON.stringify(home.model.requests.at(-1)?.messages); // this run's requests only
		expect(seen).toContain("modern-http_deploy");
		expect(seen).toContain("modern_deploy");
	}, 120_000);
});
