// Hostile servers against the real Pi (both lines) and the shell CLI (issue 35): a direct tool
// whose schema chains `$ref`s so that checking one wrong-typed argument walks 2^n paths, and a
// 2026 server whose tool and header names carry OSC 0 (window title) and OSC 52 (clipboard),
// which the MCP SDK names in its own console warning.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { safeSchema } from "../../catalog/safe-schema.ts";
import { defineServer } from "../../config.ts";
import { MetadataCache } from "../../metadata-cache.ts";
import { freePort, ROOT, stopChild, TSX, tempDir, waitForPort } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";
import { startPiTui } from "../support/pi-tui-harness.ts";

const SERVER_2026 = join(ROOT, "tests", "fixtures", "server-2026.ts");
const BIN = join(ROOT, "bin", "pi-mcp-proxy.mjs");
/** What the hostile names would do in a terminal: set its title, write its clipboard. */
const TITLE = "\u001b]0;PWNED";
const CLIPBOARD = "\u001b]52;";

/** `x` refers to d0, each dN to dN+1 twice (oneOf): 2^steps paths to the string at the end. */
function chainedTool(steps: number) {
	const defs: Record<string, unknown> = { [`d${steps}`]: { type: "string" } };
	for (let i = 0; i < steps; i++) {
		const next = { $ref: `#/$defs/d${i + 1}` };
		defs[`d${i}`] = { oneOf: [next, next] };
	}
	const inputSchema = { type: "object", properties: { x: { $ref: "#/$defs/d0" } }, required: ["x"], $defs: defs };
	return { name: "chained", description: "Takes x", inputSchema };
}

describe.each(PI_HOSTS)("hostile servers in the real pi ($name)", (host) => {
	let home: PiHome | undefined;
	afterEach(async () => {
		await home?.dispose();
		home = undefined;
	});

	it("a direct tool whose schema chains $refs (2^24 paths) answers a wrong-typed argument at once", async () => {
		home = await createPiHome();
		const tool = chainedTool(24);
		// What the server does with the call is not the point (it exits at once): Pi's own check before it is.
		const deep = { command: process.execPath, args: ["-e", "process.exit(1)"] };
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { deep: { ...deep, directTools: ["chained"] } } }));
		// Cached as a session that listed the server would have left it: Pi registers `chained` from it at load.
		const listed = { ...tool, server: "deep", inputSchema: safeSchema(tool.inputSchema) };
		await new MetadataCache(home.agentDir).store(defineServer("deep", deep), { tools: [listed], resources: [] });
		let offered: string | undefined;
		const run = await runPi(home, "call it", {
			host,
			steps: [
				(req) => {
					offered = req.tools?.map((t) => t.function.name).find((name) => name.endsWith("chained"));
					return { toolCall: { name: offered ?? "deep_chained", arguments: { x: 5 } } };
				},
				(req) => ({ text: `answer: ${lastToolMessage(req)}` }),
			],
		});
		expect(run.code, run.stderr).toBe(0);
		expect(offered).toBeDefined();
		expect(run.stdout).toContain("answer: ");
	});
});

describe("a 2026 server whose tool and header names carry OSC 0 and OSC 52", () => {
	let server: ChildProcess;
	let url: string;
	beforeAll(async () => {
		const port = await freePort();
		server = spawn(process.execPath, [TSX, SERVER_2026, "http", String(port)], {
			stdio: "ignore",
			env: { ...process.env, HOSTILE: "1" },
		});
		await waitForPort(port, server);
		url = `http://127.0.0.1:${port}/mcp`;
	});
	afterAll(async () => {
		if (server) await stopChild(server);
	});
	let home: PiHome | undefined;
	afterEach(async () => {
		await home?.dispose();
		home = undefined;
	});

	describe.each(PI_HOSTS)("in the real pi ($name)", (host) => {
		it("pi -p: neither stdout nor stderr gets an escape byte; the SDK's warning is still told", async () => {
			home = await createPiHome({ mcpConfig: { mcpServers: { modern: { url } } } });
			const run = await runPi(home, "find echo", {
				host,
				steps: [() => ({ toolCall: { name: "mcp", arguments: { search: "echo" } } }), () => ({ text: "done" })],
			});
			expect(run.code, run.stderr).toBe(0);
			// The session listed the server (its cache fill), and the SDK left the tool out, saying so.
			expect(run.stderr).toContain("excluding tool 'steal");
			expect(run.stdout).not.toContain("\u001b");
			expect(run.stderr).not.toContain("\u001b");
		});

		it("the TUI: the terminal is sent no title and no clipboard write", async () => {
			home = await createPiHome({ mcpConfig: { mcpServers: { modern: { url } } } });
			const tui = startPiTui(home, { host });
			try {
				await tui.waitForText("excluding tool 'steal", 45_000); // a loaded machine's first start is slow
				expect(tui.raw()).not.toContain(TITLE);
				expect(tui.raw()).not.toContain(CLIPBOARD);
			} finally {
				await tui.close();
			}
		});
	});

	it("the shell CLI: neither stdout nor stderr gets an escape byte", async () => {
		const dir = tempDir();
		try {
			writeFileSync(join(dir.path, "mcp.json"), JSON.stringify({ mcpServers: { modern: { url } } }));
			const run = spawnSync(process.execPath, [BIN, "--config", join(dir.path, "mcp.json"), "list", "modern"], {
				cwd: dir.path,
				env: { ...process.env, PI_CODING_AGENT_DIR: join(dir.path, "agent") },
				encoding: "utf8",
				timeout: 60_000,
			});
			expect(run.status, run.stderr).toBe(0);
			expect(run.stdout).toContain("modern_echo");
			expect(run.stderr).toContain("excluding tool 'steal");
			expect(run.stdout + run.stderr).not.toContain("\u001b");
		} finally {
			dir.remove();
		}
	});
});
