// A tool its server marks for its MCP App only (`_meta.ui.visibility: ["app"]`, as server-pdf does
// for 6 of its 9 tools and system-monitor for `poll-system-stats`) never reaches the model: not in
// search, a server's list, describe or a call by name (the proxy, in process, over the fixture
// server of tests/fixtures/apps-server.ts), nor in the tools the real `pi` gives the model on
// either line (direct tools; on Pi 1.5 its own tools, tool_search and codemode), even when the
// config names it as a direct tool. The server itself logs that no call of it arrived.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { McpRuntime } from "../../mcp-runtime.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { ROOT, TSX, tempDir } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage, type Step } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const FIXTURE = join(ROOT, "tests/fixtures/apps-server.ts");
const board = (reachedLog: string, extra: Record<string, unknown> = {}) => ({
	command: process.execPath,
	args: [TSX, FIXTURE],
	env: { REACHED_LOG: reachedLog },
	...extra,
});
const calls = (log: string) =>
	existsSync(log)
		? readFileSync(log, "utf8")
				.split("\n")
				.filter(Boolean)
				.map((line) => JSON.parse(line).call)
				.filter(Boolean)
		: [];

describe("a tool marked for the app only, through the proxy", () => {
	let dir: ReturnType<typeof tempDir>;
	let runtime: McpRuntime;
	let log: string;

	beforeAll(() => {
		dir = tempDir();
		log = join(dir.path, "reached.jsonl");
		writeFileSync(join(dir.path, "mcp.json"), JSON.stringify({ mcpServers: { board: board(log) } }));
		runtime = new McpRuntime({
			cwd: dir.path,
			env: { ...process.env, PI_CODING_AGENT_DIR: join(dir.path, "agent") },
			configPath: join(dir.path, "mcp.json"),
		});
	});
	afterAll(async () => {
		await runtime?.shutdown();
		dir?.remove();
	});
	const proxy = async (input: Record<string, unknown>) =>
		contentText((await runProxy(runtime.lifecycle, input)).content);

	it("is not in the server's list, a search, describe, or a call by its name; the others are", async () => {
		const listed = await proxy({ server: "board" });
		expect(listed).toContain("board_show_board");
		expect(listed).toContain("board_add_note");
		expect(listed).toContain("board_model_only");
		expect(listed).not.toContain("refresh_board");
		const found = await proxy({ search: "refresh poll the board's latest cards" });
		expect(found).toContain("board_");
		expect(found).not.toContain("refresh_board");
		expect(await proxy({ describe: "board_refresh_board" })).not.toContain("Polls the board");
		expect(await proxy({ tool: "board_refresh_board" })).toMatch(/^Unknown tool "board_refresh_board"/);
		expect(await proxy({ tool: "board_add_note", args: { text: "hi" } })).toBe("noted: hi");
		expect(calls(log)).toEqual(["add_note"]);
	}, 60_000);
});

/** Every tool name the model was offered in a request. */
const offered = (request: ChatRequest) => (request.tools ?? []).map((t) => t.function.name);

describe.each(PI_HOSTS)("$name: a tool marked for the app only", (host) => {
	let home: PiHome;
	let log: string;
	beforeEach(async () => {
		home = await createPiHome({});
		log = join(home.root, "reached.jsonl");
		// Named as a direct tool, and on Pi 1.5 as a direct Pi tool: still not the model's.
		const directs = { directTools: ["show_board", "refresh_board"], toolExposure: { add_note: "deferred" } };
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { board: board(log, directs) } }));
	});
	afterEach(async () => home.dispose());

	it("is not among the tools the model is given, found by search, or called by its name", async () => {
		const answers: string[] = [];
		let tools: string[] = [];
		const answered =
			(next: Step): Step =>
			(req) => {
				answers.push(lastToolMessage(req));
				return next(req);
			};
		const pi15 = host.pi1;
		const script = [
			"const all = ALL_TOOLS.map((t) => t.name).filter((n) => n.includes('board'));",
			"const found = (await searchTools('refresh poll the latest board cards')).map((t) => t.name);",
			"const called = await tools.mcp({ tool: 'board_refresh_board' }).then((r) => JSON.stringify(r), (e) => String(e));",
			"return JSON.stringify({ all, found, called });",
		].join("\n");
		const steps: Step[] = pi15
			? [
					(req) => {
						tools = offered(req);
						return { toolCall: { name: "tool_search", arguments: { query: "refresh poll the latest board cards" } } };
					},
					answered(() => ({ toolCall: { name: "codemode", arguments: { code: script } } })),
					answered(() => ({ text: "done" })),
				]
			: [
					(req) => {
						tools = offered(req);
						return { toolCall: { name: "mcp", arguments: { search: "refresh poll the latest board cards" } } };
					},
					answered(() => ({ toolCall: { name: "mcp", arguments: { server: "board" } } })),
					answered(() => ({ toolCall: { name: "mcp", arguments: { tool: "board_refresh_board" } } })),
					answered(() => ({ text: "done" })),
				];
		// The first run lists the server into the cache; the second starts from that cache, as most sessions do.
		for (const run of [1, 2]) {
			answers.length = 0;
			const result = await runPi(home, `look at the board (${run})`, {
				host,
				steps,
				...(pi15 ? { builtins: ["codemode", "tool-search"] } : {}),
			});
			expect(result.code, result.stderr).toBe(0);
			// Direct tools come from the cache: the second run has them.
			if (run === 2) expect(tools.some((name) => name.includes("show_board"))).toBe(true);
			expect(tools.filter((name) => name.includes("refresh"))).toEqual([]);
			if (pi15) {
				// tool_search's answer, then the script's: every board tool it can call, a search, a call by name.
				expect(answers[0]).not.toMatch(/refresh_board|Polls the board/);
				const seen = JSON.parse(/\{"all".*\}/s.exec(answers[1])?.[0] ?? "{}");
				expect(seen.all).toContain("mcp__board__model_only");
				expect(seen.all.filter((name: string) => name.includes("refresh"))).toEqual([]);
				expect(seen.found.filter((name: string) => name.includes("refresh"))).toEqual([]);
				expect(seen.called).toMatch(/Unknown tool "board_refresh_board"/);
			} else {
				expect(answers[0]).not.toMatch(/refresh_board|Polls the board/);
				expect(answers[1]).toContain("board_model_only");
				expect(answers[1]).not.toMatch(/refresh_board|Polls the board/);
				expect(answers[2]).toMatch(/Unknown tool "board_refresh_board"/);
			}
		}
		expect(calls(log)).toEqual([]);
	}, 180_000);
});
