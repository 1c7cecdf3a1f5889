// The file guard: what a hostile repository or a crashed writer can put where the adapter reads
// and writes, and what the adapter does with it.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readJsoncFile } from "../../config/jsonc-file.ts";
import {
	jsonDepthOver,
	parseJson,
	readTextFile,
	removeStaleTemps,
	valueDepthOver,
	writeFileAtomic,
} from "../../storage/file-guard.ts";
import { updateJsonFile } from "../../storage/locked-json.ts";
import { tempDir } from "../support/helpers.ts";

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
	dir = tempDir();
});
afterEach(() => dir.remove());

describe("reading", () => {
	it("a config that is a symlink to /dev/zero is an error at once, not a hang", () => {
		const path = join(dir.path, ".mcp.json");
		symlinkSync("/dev/zero", path);
		const read = readJsoncFile(path);
		expect(read).toEqual({ kind: "error", message: expect.stringMatching(/not a regular file/) });
	});

	it("a file over the cap is refused, saying its size", () => {
		const path = join(dir.path, "big.json");
		writeFileSync(path, "x".repeat(3 * 1024 * 1024));
		expect(readTextFile(path, { maxBytes: 1024 * 1024 })).toEqual({
			kind: "error",
			message: "is 3 MB, over the 1 MB a file here may have",
		});
	});

	it("a UTF-8 byte-order mark does not make a config invalid", () => {
		const path = join(dir.path, "mcp.json");
		writeFileSync(path, `\uFEFF${JSON.stringify({ mcpServers: { a: { command: "x" } } })}`);
		expect(readJsoncFile(path)).toEqual({ kind: "ok", value: { mcpServers: { a: { command: "x" } } } });
	});

	it("20,000 nested brackets are refused with a clear error, not a stack overflow", () => {
		const deep = `{"mcpServers":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
		expect(jsonDepthOver(deep)).toBe(true);
		expect(() => parseJson(deep)).toThrow(/nests deeper than 100 levels/);
		const path = join(dir.path, ".mcp.json");
		writeFileSync(path, deep);
		expect(readJsoncFile(path)).toEqual({
			kind: "error",
			message: expect.stringMatching(/nests deeper than 100 levels/),
		});
		// Brackets inside strings are text, not nesting.
		expect(jsonDepthOver(JSON.stringify({ a: "[".repeat(500) }))).toBe(false);
		// An escaped quote or backslash does not end the string.
		expect(jsonDepthOver(JSON.stringify({ a: `\\"${"[".repeat(500)}\\`, b: "{".repeat(500) }))).toBe(false);
		expect(jsonDepthOver(JSON.stringify({ a: '\\"', b: [[[1]]] }), 3)).toBe(true);
		// Plain JSON (the cache, approvals) is parsed first and its value measured: as deep as a
		// 16 MB file can nest, and no deeper than it is.
		expect(() => parseJson(`${"[".repeat(200_000)}${"]".repeat(200_000)}`)).toThrow(/nests deeper than 100 levels/);
		expect(valueDepthOver([[[{ a: "[[[[" }]]], 4)).toBe(false);
		expect(valueDepthOver([[[{ a: [] }]]], 4)).toBe(true);
	});

	it("noFollow refuses a symlink where only the adapter writes", () => {
		const real = join(dir.path, "real.json");
		writeFileSync(real, "{}");
		symlinkSync(real, join(dir.path, "link.json"));
		expect(readTextFile(join(dir.path, "link.json"), { noFollow: true }).kind).toBe("error");
		expect(readTextFile(join(dir.path, "link.json"))).toEqual({ kind: "ok", text: "{}" });
	});
});

describe("writing", () => {
	it("a symlinked file the user made stays a symlink; the file it points to gets the content", () => {
		const real = join(dir.path, "dotfiles", "mcp.json");
		mkdirSync(join(dir.path, "dotfiles"));
		writeFileSync(real, "{}");
		const link = join(dir.path, "mcp.json");
		symlinkSync(real, link);
		writeFileAtomic(link, '{"a":1}');
		expect(lstatSync(link).isSymbolicLink()).toBe(true);
		expect(readFileSync(real, "utf8")).toBe('{"a":1}');
	});

	it("a temp file a crashed writer left is removed by the next write; a live writer's is kept", () => {
		const path = join(dir.path, "mcp-cache.json");
		const dead = `${path}.999999.abcd1234.tmp`;
		const live = `${path}.${process.ppid}.abcd1234.tmp`;
		writeFileSync(dead, "x".repeat(1000));
		writeFileSync(live, "x");
		writeFileAtomic(path, "{}");
		expect(existsSync(dead)).toBe(false);
		expect(existsSync(live)).toBe(true);
		removeStaleTemps(path);
		expect(readdirSync(dir.path).sort()).toEqual(["mcp-cache.json", `mcp-cache.json.${process.ppid}.abcd1234.tmp`]);
	});

	it("a damaged shared file is set aside, not overwritten", async () => {
		const path = join(dir.path, "mcp-approvals.json");
		writeFileSync(path, '{"version":1,"projects":{"/other":{"x":');
		await updateJsonFile(
			path,
			(raw) => (typeof raw === "object" ? raw : {}),
			() => ({ version: 1 }),
		);
		const aside = readdirSync(dir.path).filter((f) => f.startsWith("mcp-approvals.json.damaged-"));
		expect(aside).toHaveLength(1);
		expect(readFileSync(join(dir.path, aside[0]), "utf8")).toBe('{"version":1,"projects":{"/other":{"x":');
		expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ version: 1 });
	});
});
