// A server of the 2026-07-28 revision (tests/fixtures/server-2026.ts, SDK v2's server package):
// over stdio (the 2025 opening, which v2 servers serve) and over HTTP answering the 2026 wire only.
// Its tools list, are called (an argument mirrored as a header where the tool says so, progress
// reported, a cancel reaching the server), ask the
// user through an input-required result, and stay searchable
// from the cache in the next session although the server says its listing is stale at once
// (`ttlMs: 0`) and is not running. Shared through the broker, one process serves two sessions.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isAlive } from "../../bounds/process-tree.ts";
import { readBrokerFile } from "../../broker/wire.ts";
import { McpRuntime } from "../../mcp-runtime.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { McpServerManager } from "../../server-manager.ts";
import type { StdioServerEntry } from "../../types.ts";
import {
	configOf,
	countedServer,
	entryOf,
	freePort,
	ROOT,
	startedPids,
	stopChild,
	TSX,
	tempDir,
	waitForPort,
	waitUntil,
} from "../support/helpers.ts";
import { createPiHome, type PiHome, type PiRpc, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { converse, steps, toolResults } from "../support/pi-conversation.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const FIXTURE = join(ROOT, "tests", "fixtures", "server-2026.ts");
// A broker these tests start inherits this: it exits 1 s after its last server.
process.env.PI_MCP_BROKER_IDLE_MS = "1000";

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
					// A question taller than a screen comes in pages; the answers are sent through "Send".
					if (options[0]?.startsWith("Next page")) return options[0];
					if (options.includes("Send")) return "Send";
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

	it("shows a call's progress while it works; a cancelled call stops at the server", async () => {
		const seen: string[] = [];
		const stop = new AbortController();
		const held = runProxy(
			runtime.lifecycle,
			{ tool: "modern_hold" },
			{ signal: stop.signal, onProgress: (p) => seen.push(p.message ?? "") },
		);
		await vi.waitFor(() => expect(seen).toContain("holding"), { timeout: 20_000 });
		stop.abort(new Error("the user pressed Esc"));
		await held;
		// On the 2026 wire the call's own stream closes; on stdio a notifications/cancelled goes.
		await vi.waitFor(async () => expect(await proxy({ tool: "modern_cancelled" })).toBe("held 1, cancelled 1"), {
			timeout: 20_000,
		});
	}, 60_000);

	it("asks the user what its input-required result asks, and finishes with the answer", async () => {
		expect(await proxy({ tool: "modern_deploy", args: { env: "prod" } })).toBe("deployed to prod");
		expect(asked.join("\n")).toContain("Deploy to prod?");
	}, 60_000);
});

describe.each(PI_HOSTS)("a 2026-07-28 server from the real $name", (host) => {
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

describe.each(PI_HOSTS)("a 2026-07-28 server's question, answered in the real $name's rpc dialogs", (host) => {
	let home: PiHome;
	let server: { url: string; child: ChildProcess } | undefined;
	let pi: PiRpc;

	beforeAll(async () => {
		server = await startModernHttp();
		home = await createPiHome({ mcpConfig: { mcpServers: { "modern-http": { url: server.url } } } });
		pi = await startPiRpc({ home, host, steps });
	}, 60_000);
	afterAll(async () => {
		await pi?.close();
		if (server) await stopChild(server.child);
		await home?.dispose();
	});

	it("its input-required result becomes Pi's dialogs; the answer finishes the call", async () => {
		const answer = (dialog: Record<string, unknown>) => {
			const options = (dialog.options ?? []) as string[];
			if (options[0]?.startsWith("Next page")) return { value: options[0] };
			if (options.includes("Send")) return { value: "Send" };
			return { value: options.find((o) => o.startsWith("Yes")) ?? options[0] };
		};
		const { dialogs, events } = await converse(
			pi,
			'call {"tool":"modern-http_deploy","args":{"env":"staging"}}',
			answer,
		);
		expect(String(dialogs[0]?.title)).toContain('MCP server "modern-http" asks: Deploy to staging?');
		expect(toolResults(events)).toContain("deployed to staging");
	}, 60_000);

	it("its sampling request is put to the user, then answered by the session's model; its roots request gets the session folder", async () => {
		const sampled = await converse(pi, 'call {"tool":"modern-http_summarize","args":{"text":"a long text"}}', () => ({
			value: "Allow once",
		}));
		expect(String(sampled.dialogs[0]?.title)).toContain('MCP server "modern-http" asks to use your model');
		expect(toolResults(sampled.events)).toContain("summary: a sampled reply from the session model");
		const roots = await converse(pi, 'call {"tool":"modern-http_where"}', () => ({ cancelled: true }));
		expect(toolResults(roots.events)).toContain(`roots: file://${home.cwd}`);
	}, 60_000);
});

describe("a 2026-07-28 stdio server shared by two sessions through the broker", () => {
	// The broker relays one process on the wire it opens with (initialize, 2025-11-25), which v2
	// servers serve on stdio: the same tools, and a question goes to the session whose call asked.
	const dir = tempDir("pi-mcp-broker-2026-");
	const agentDir = join(dir.path, "agent");
	const log = join(dir.path, "starts.log");
	const entry = entryOf(
		configOf({ modern: countedServer(log, [TSX, FIXTURE, "stdio"]) }),
		"modern",
	) as StdioServerEntry;
	const asked: string[] = [];
	const session = (who: string) =>
		new McpServerManager({
			broker: { agentDir, shares: () => true, lingerMs: () => 1000 },
			requests: {
				elicit: async (_server, request) => {
					asked.push(`${who}: ${request.message}`);
					return { action: "accept", content: { confirm: true } };
				},
			},
		});
	const a = session("a");
	const b = session("b");
	afterAll(async () => {
		await a.closeAll();
		await b.closeAll();
		const pid = readBrokerFile(agentDir)?.pid;
		await waitUntil(
			() => startedPids(log).every((p) => !isAlive(p)) && !(pid && isAlive(pid)),
			"the server and the broker to exit",
		);
		dir.remove();
	}, 30_000);

	it("one process serves both; each call's answer and question reach the session that made it", async () => {
		const [ca, cb] = await Promise.all([a.connect(entry), b.connect(entry)]);
		expect([ca.shared, cb.shared]).toEqual([true, true]);
		expect(startedPids(log)).toHaveLength(1);
		expect(cb.tools.map((t) => t.name)).toEqual(ca.tools.map((t) => t.name));
		expect((await a.callTool("modern", "echo", { message: "from a" })).content).toEqual([
			{ type: "text", text: "modern echo: from a" },
		]);
		expect((await b.callTool("modern", "deploy", { env: "qa" })).content).toEqual([
			{ type: "text", text: "deployed to qa" },
		]);
		expect(asked).toEqual(["b: Deploy to qa?"]);
	}, 60_000);
});
