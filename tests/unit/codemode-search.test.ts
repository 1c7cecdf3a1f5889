// The line pi/codemode-search.ts puts in front of a codemode script that uses searchTools(): where it
// goes (after an options line, before the script's first line, so line numbers stay), and the
// scripts it leaves as written (no searchTools, their own searchTools, what Pi rejects before running).
import { describe, expect, it } from "vitest";
import {
	patchScript,
	registerScriptSearch,
	SCRIPT_SEARCH_TOOL,
	toCodemodeIdentifier,
} from "../../pi-tools/codemode-search.ts";
import type { ToolSearchApi } from "../../pi-tools/tool-ranking.ts";

const lines = (text: string) => text.split("\n").length;

describe("codemode scripts' searchTools() patch", () => {
	it("goes in front of the first line, after an options line, keeping the line count", () => {
		const plain = "const found = await searchTools('sum');\nreturn found;";
		const patched = patchScript(plain) as string;
		expect(patched.endsWith(plain)).toBe(true);
		expect(patched.startsWith("const searchTools = ")).toBe(true);
		expect(lines(patched)).toBe(lines(plain));
		const withOptions = '// @options: {"timeout_ms": 1000}\nreturn await searchTools("sum");';
		const patchedOptions = patchScript(withOptions) as string;
		expect(patchedOptions.split("\n")[0]).toBe('// @options: {"timeout_ms": 1000}');
		expect(patchedOptions.split("\n")[1]).toMatch(/^const searchTools = .*return await searchTools\("sum"\);$/);
		expect(lines(patchedOptions)).toBe(lines(withOptions));
	});

	it("keeps a 'use strict' directive first", () => {
		expect(patchScript('"use strict";\nreturn searchTools("x");')).toMatch(/^"use strict"; const searchTools = /);
	});

	it("leaves alone scripts without searchTools, with their own, or that Pi rejects", () => {
		expect(patchScript("return ALL_TOOLS.length;")).toBeUndefined();
		expect(patchScript("const searchTools = () => [];\nreturn searchTools();")).toBeUndefined();
		expect(patchScript("function searchTools() {}\nreturn searchTools();")).toBeUndefined();
		expect(patchScript('return searchTools("x");\n// @options: {"timeout_ms": 1}')).toBeUndefined();
		expect(patchScript('// @options: {"timeout_ms": 1} searchTools')).toBeUndefined();
	});

	it("names tools as Pi 1.5's scripts do", () => {
		expect(toCodemodeIdentifier("mcp__dev-radius__search")).toBe("mcp__dev_radius__search");
		expect(toCodemodeIdentifier("1st")).toBe("_st");
		expect(toCodemodeIdentifier("")).toBe("_");
	});
});

describe("what searchTools() ranks", () => {
	it("the tools a script calls, not the `mcp` proxy that reaches them (its description names every server)", async () => {
		const definitions: { name: string; execute: (...args: unknown[]) => Promise<{ details: { tools: string[] } }> }[] =
			[];
		const namespace = { name: "mcp__github", aliases: ["github"] };
		const tools = [
			{ name: "mcp", description: "MCP tools. Find, then call: {search}. Servers: github, slack.", parameters: {} },
			{ name: "mcp__github__create_issue", description: "Create a new issue in a repository.", namespace },
			{ name: "mcp__github__list_commits", description: "Get the commits of a branch.", namespace },
			{ name: "read", description: "Read the contents of a file." },
		];
		const pi = {
			registerTool: (definition: (typeof definitions)[number]) => definitions.push(definition),
			getAllTools: () => tools,
			on: () => undefined,
		} as unknown as ToolSearchApi;
		registerScriptSearch(pi);
		const search = definitions.find((d) => d.name === SCRIPT_SEARCH_TOOL);
		const found = await search?.execute("id", { query: "github commits", limit: 5 }, undefined, undefined, { tools });
		expect(found?.details.tools).toContain("mcp__github__list_commits");
		expect(found?.details.tools).not.toContain("mcp");
	});
});
