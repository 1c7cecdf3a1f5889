// Pi 1.x restores a session's tool loadout on a resume and a /reload: the tools tool_search loaded
// come back, but only those registered before the next prompt starts (Pi drops the rest when a run
// starts, and records the smaller loadout). Side by side on each Pi 1.x line, the built-in MCP
// (the control) and the extension, with server-everything's tools `deferred` and the server slow to
// start (held by a gate, as an npx or a remote server is slow): the built-in registers a server's
// tools once it connects, so the first request after a `pi -p -c` or a TUI /reload declares only
// tool_search again; ours registers the cached tools before the first prompt (while loading, or at
// the session's start), so they are declared and the model calls get_sum at once. A server with no cache entry (its config changed since): ours waits
// for it at the first prompt, then declares its restored tools.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gatedServer } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage, type Step } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, type RunOptions, runPi } from "../support/pi-cli-harness.ts";
import { PI1_HOSTS, type PiHost } from "../support/pi-hosts.ts";
import { startPiTui } from "../support/pi-tui-harness.ts";

const GET_SUM = "mcp__everything__get_sum";
const STACKS = ["built-in", "ours"] as const;
type Stack = (typeof STACKS)[number];

const declared = (req: ChatRequest) => (req.tools ?? []).map((t) => t.function.name);

describe.each(PI1_HOSTS)("tools tool_search loaded, after a resume and a /reload ($name)", (host: PiHost) => {
	let homes: PiHome[] = [];
	beforeEach(() => {
		homes = [];
	});
	afterEach(async () => {
		for (const home of homes) {
			writeFileSync(join(home.root, "gate"), ""); // a server still held starts, and ends with Pi
			await home.dispose();
		}
	});

	const options = (stack: Stack): RunOptions => ({
		host,
		session: true,
		noExtension: stack === "built-in",
		builtins: stack === "ours" ? ["codemode", "tool-search"] : ["mcp", "codemode", "tool-search"],
	});
	const gate = (home: PiHome, open: boolean) =>
		open ? writeFileSync(join(home.root, "gate"), "") : rmSync(join(home.root, "gate"), { force: true });
	const configure = (home: PiHome, more: Record<string, unknown> = {}) =>
		home.writeAgentFile(
			"mcp.json",
			JSON.stringify({
				mcpServers: { everything: { ...gatedServer(join(home.root, "gate")), exposure: "deferred", ...more } },
			}),
		);

	/** A session that loads get_sum with tool_search and calls it; then the server is slow to start again. */
	async function loadedSession(stack: Stack): Promise<PiHome> {
		const home = await createPiHome({});
		homes.push(home);
		configure(home);
		gate(home, true);
		const run = await runPi(home, "find a tool that adds", {
			...options(stack),
			steps: [
				() => ({ toolCall: { name: "tool_search", arguments: { query: "get sum" } } }),
				() => ({ toolCall: { name: GET_SUM, arguments: { a: 40, b: 2 } } }),
				(req) => ({ text: `said: ${lastToolMessage(req)}` }),
			],
		});
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain("said: The sum of 40 and 2 is 42");
		gate(home, false);
		return home;
	}

	/** The resumed session's first request: what it declares is kept; the gate opens; get_sum is called if declared. */
	function resumedTurn(home: PiHome, seen: { tools?: string[] }): Step[] {
		return [
			(req) => {
				seen.tools = declared(req);
				gate(home, true);
				return seen.tools.includes(GET_SUM)
					? { toolCall: { name: GET_SUM, arguments: { a: 20, b: 3 } } }
					: { text: "after the resume: get_sum is not loaded" };
			},
			(req) => ({ text: `after the resume: ${lastToolMessage(req)}` }),
		];
	}

	it("pi -p -c: the built-in's first request declares tool_search alone; ours declares get_sum too, and calls it", async () => {
		const seen: Record<Stack, { tools?: string[]; stdout?: string }> = { "built-in": {}, ours: {} };
		for (const stack of STACKS) {
			const home = await loadedSession(stack);
			const run = await runPi(home, "add again", {
				...options(stack),
				extraArgs: ["-c"],
				steps: resumedTurn(home, seen[stack]),
			});
			expect(run.code, run.stderr).toBe(0);
			seen[stack].stdout = run.stdout;
		}
		expect(seen["built-in"].tools).toContain("tool_search");
		expect(seen["built-in"].tools).not.toContain(GET_SUM);
		expect(seen.ours.tools).toContain(GET_SUM);
		expect(seen.ours.stdout).toContain("after the resume: The sum of 20 and 3 is 23");
	}, 300_000);

	it("the TUI: a resumed session, /reload, then a prompt: the built-in's request declares tool_search alone; ours declares get_sum too, and calls it", async () => {
		const seen: Record<Stack, { tools?: string[] }> = { "built-in": {}, ours: {} };
		for (const stack of STACKS) {
			const home = await loadedSession(stack);
			home.model.script(resumedTurn(home, seen[stack]));
			const tui = startPiTui(home, { ...options(stack), extraArgs: ["-c"] });
			try {
				await tui.waitForText("said: The sum of 40 and 2 is 42", 60_000);
				tui.press("/reload");
				await tui.waitForText("/reload");
				tui.press("\r");
				await tui.waitForText("Reloaded", 60_000);
				tui.press("add again\r");
				await tui.waitForText("after the resume:", 90_000);
				if (stack === "ours") await tui.waitForText("after the resume: The sum of 20 and 3 is 23", 60_000);
			} finally {
				await tui.close();
			}
		}
		expect(seen["built-in"].tools).toContain("tool_search");
		expect(seen["built-in"].tools).not.toContain(GET_SUM);
		expect(seen.ours.tools).toContain(GET_SUM);
	}, 300_000);

	it("ours, a server with no cache entry (its config changed since the session): the first prompt after pi -p -c waits for it and declares get_sum", async () => {
		const home = await loadedSession("ours");
		configure(home, { env: { CHANGED_SINCE: "1" } });
		gate(home, true);
		const seen: { tools?: string[] } = {};
		const run = await runPi(home, "add again", {
			...options("ours"),
			extraArgs: ["-c"],
			steps: resumedTurn(home, seen),
		});
		expect(run.code, run.stderr).toBe(0);
		expect(seen.tools).toContain(GET_SUM);
		expect(run.stdout).toContain("after the resume: The sum of 20 and 3 is 23");
	}, 300_000);
});
