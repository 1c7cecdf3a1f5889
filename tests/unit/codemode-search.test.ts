// The line pi/codemode-search.ts puts in front of a codemode script that uses searchTools(): where it
// goes (after an options line, before the script's first line, so line numbers stay), and the
// scripts it leaves as written (no searchTools, their own searchTools, what Pi rejects before running).
import { describe, expect, it } from "vitest";
import { patchScript, toCodemodeIdentifier } from "../../pi/codemode-search.ts";

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
