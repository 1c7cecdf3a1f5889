// Pi 1.5: the search the model uses is ours, behind Pi's own interface. The real `pi` CLI with a
// scripted model and the real server-everything, once with Pi 1.5.2's built-in MCP, tool_search and
// codemode (the control), once with the extension: tool_search is declared and answers alike, loads
// what it finds for the next call, and finds get-sum for words its description lacks ("compute the
// total": WordNet's sum), which Pi's BM25 does not; codemode scripts' searchTools() likewise, with the
// script in the transcript as the model wrote it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EVERYTHING, ROOT, TSX } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI1_HOSTS } from "../support/pi-hosts.ts";

const OTHER_WORDS = "compute the total";
const GET_SUM = "mcp__everything__get_sum";
const CATALOG_SERVER = join(ROOT, "tests", "fixtures", "catalog-server.ts");

type Stack = "built-in" | "ours";

describe.each(PI1_HOSTS)("Pi 1.x's tool_search and searchTools(), with the extension ($name)", (host) => {
	let home: PiHome;
	beforeEach(async () => {
		home = await createPiHome({});
	});
	afterEach(async () => home.dispose());

	const configure = (exposure: string) =>
		home.writeAgentFile(
			"mcp.json",
			JSON.stringify({
				mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], exposure } },
			}),
		);
	const run = (stack: Stack, steps: ((req: ChatRequest) => unknown)[]) =>
		runPi(home, "find a tool", {
			host,
			steps: steps as never,
			noExtension: stack === "built-in",
			builtins: stack === "ours" ? ["codemode", "tool-search"] : ["mcp", "codemode", "tool-search"],
		});

	/** One tool_search call, then the tool it loaded first (if any) called with 40 and 2. */
	async function search(stack: Stack, query: string) {
		let answer = "";
		const result = await run(stack, [
			() => ({ toolCall: { name: "tool_search", arguments: { query } } }),
			(req) => {
				answer = lastToolMessage(req);
				const first = /^- (\S+):/m.exec(answer)?.[1];
				return first === GET_SUM ? { toolCall: { name: GET_SUM, arguments: { a: 40, b: 2 } } } : { text: "none" };
			},
			(req) => ({ text: `said: ${lastToolMessage(req)}` }),
		]);
		expect(result.code, result.stderr).toBe(0);
		const [first, second] = home.model.requests;
		const declared = first.tools?.find((t) => t.function.name === "tool_search")?.function;
		const loaded = (second.tools ?? []).map((t) => t.function.name);
		return { answer, declared, loaded, stdout: result.stdout };
	}

	it("tool_search is ours: declared and answering as Pi's, it finds get-sum for words its description lacks, loaded for the next call (42); Pi's BM25 does not", async () => {
		configure("deferred");
		// A warm run first: our cache, so our stack knows everything's tools when the model asks.
		await search("ours", "get sum");
		const pis = await search("built-in", "get sum");
		const ours = await search("ours", OTHER_WORDS);
		expect(ours.declared).toEqual(pis.declared);
		const shape = /^Loaded (\d+) tools?\. They are available from your next call:\n(- [^\s:]+: .*(\n|$))+$/;
		for (const { answer, loaded } of [pis, ours]) {
			expect(answer).toMatch(shape);
			expect(answer.split("\n")[1]).toBe(`- ${GET_SUM}: Returns the sum of two numbers`);
			const listed = [...answer.matchAll(/^- (\S+):/gm)].map((m) => m[1]);
			expect(loaded).toEqual(expect.arrayContaining(listed));
		}
		expect(ours.stdout).toContain("The sum of 40 and 2 is 42");
		const pisOwnWords = await search("built-in", OTHER_WORDS);
		expect(pisOwnWords.answer.split("\n")[1] ?? "").not.toMatch(new RegExp(`^- ${GET_SUM}:`));
	}, 150_000);

	it("tool_search ranks with the server's annotations (Pi's tool list) and titles (kept from registration, a snapshot's start included); the mcp proxy takes no place", async () => {
		const catalog = join(home.root, "tracker.json");
		const tool = (name: string, description: string, more: Record<string, unknown> = {}) => ({
			name,
			description,
			inputSchema: { type: "object", properties: {} },
			...more,
		});
		writeFileSync(
			catalog,
			JSON.stringify({
				server: "tracker",
				tools: [
					tool("assign_issue", "Assign an issue to a user.", { annotations: { readOnlyHint: false } }),
					tool("search_issues", "Search issues by assignee, state or text.", { annotations: { readOnlyHint: true } }),
					tool("op_17", "Runs operation 17.", { title: "Archive a project" }),
					tool("list_projects", "Lists the projects."),
				],
			}),
		);
		home.writeAgentFile(
			"mcp.json",
			JSON.stringify({
				mcpServers: {
					tracker: { command: process.execPath, args: [TSX, CATALOG_SERVER, catalog], exposure: "deferred" },
				},
			}),
		);
		// The first session lists the server (our cache), as a user's first start does.
		expect((await run("ours", [() => ({ text: "ok" })])).code).toBe(0);
		// One search per session: a search leaves out the tools loaded before it.
		const answers: string[] = [];
		for (const query of ["tracker", "which issues are assigned to me", "archive a project"]) {
			const result = await run("ours", [
				() => ({ toolCall: { name: "tool_search", arguments: { query } } }),
				(req: ChatRequest) => {
					answers.push(lastToolMessage(req));
					return { text: "done" };
				},
			]);
			expect(result.code, result.stderr).toBe(0);
		}
		const first = (answer: string) => /^- (\S+):/m.exec(answer)?.[1];
		// A query naming the server lists its tools, not the proxy whose description names it.
		expect(answers[0]).toMatch(/^- mcp__tracker__/m);
		expect(answers[0]).not.toMatch(/^- mcp:/m);
		expect(first(answers[1])).toBe("mcp__tracker__search_issues");
		expect(first(answers[2])).toBe("mcp__tracker__op_17");
	}, 150_000);

	it("searchTools() in a codemode script ranks with our engine, with Pi's answer shape and errors; the transcript keeps the script", async () => {
		configure("codemode");
		const script = [
			`const found = await searchTools(${JSON.stringify(OTHER_WORDS)}, { limit: 3 });`,
			"const described = await Promise.all(found.map((t) => describeTool(t.name)));",
			"let error; try { await searchTools(42); } catch (e) { error = e.message; }",
			"return JSON.stringify({ names: found.map((t) => t.name), same: found.every((t, i) => t.description === described[i]), error });",
		].join("\n");
		const answers: Record<Stack, { names: string[]; same: boolean; error: string }> = {} as never;
		for (const stack of ["ours", "built-in", "ours"] as const) {
			let sent: unknown;
			const result = await run(stack, [
				() => ({ toolCall: { name: "codemode", arguments: { code: script } } }),
				(req) => {
					const call = req.messages.find((m) => m.role === "assistant")?.tool_calls as
						| { function: { arguments: string } }[]
						| undefined;
					sent = JSON.parse(call?.[0]?.function.arguments ?? "{}").code;
					const text = lastToolMessage(req);
					answers[stack] = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1));
					return { text: "done" };
				},
			]);
			expect(result.code, result.stderr).toBe(0);
			// What the model wrote is what it sees again: the patch ran only in the sandbox.
			expect(sent).toBe(script);
		}
		expect(answers.ours.names[0]).toBe(GET_SUM);
		expect(answers["built-in"].names[0]).not.toBe(GET_SUM);
		for (const stack of ["ours", "built-in"] as const) {
			expect(answers[stack].same).toBe(true);
			expect(answers[stack].error).toBe("searchTools() expects a query string");
		}
	}, 180_000);
});
