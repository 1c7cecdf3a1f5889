// The shape the codebase keeps, read from its syntax (TypeScript's parser): index.ts wires (under
// 250 lines), no function runs over 120 lines, and what loads lazily is named in lazy.ts alone.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { packageFiles, ROOT } from "../support/package-files.ts";

const sourceFiles = () => packageFiles(/\.ts$/);

function parse(file: string, text = readFileSync(join(ROOT, file), "utf8")): ts.SourceFile {
	return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

/** Every node of a file, depth first. */
function* nodes(node: ts.Node): Generator<ts.Node> {
	yield node;
	for (const child of node.getChildren()) yield* nodes(child);
}

/** Where a file loads a module at run time: import() (a type's `import("x")` is no load) or createRequire. */
function lazyLoads(source: ts.SourceFile): string[] {
	const found: string[] = [];
	for (const node of nodes(source)) {
		const isImportCall = ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword;
		const isRequire = ts.isIdentifier(node) && node.text === "createRequire" && !ts.isImportSpecifier(node.parent);
		if (isImportCall || isRequire) {
			const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
			found.push(`${source.fileName}:${line}`);
		}
	}
	return found;
}

/** The longest a function (a method, an arrow, a closure with all it holds) may run. */
const MAX_FUNCTION_LINES = 120;

/** Every function of a file longer than `max` lines: where it starts, and its length. */
function longFunctions(source: ts.SourceFile, max = MAX_FUNCTION_LINES): string[] {
	const found: string[] = [];
	for (const node of nodes(source)) {
		if (!ts.isFunctionLike(node) || !("body" in node) || !node.body) continue;
		const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
		const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
		if (lines > max) found.push(`${source.fileName}:${first + 1} (${lines} lines)`);
	}
	return found;
}

describe("code shape", () => {
	const files = sourceFiles();

	it("index.ts wires: under 250 lines", () => {
		expect(readFileSync(join(ROOT, "index.ts"), "utf8").split("\n").length).toBeLessThan(250);
	});

	it("has no function over 120 lines", () => {
		expect(files.flatMap((f) => longFunctions(parse(f)))).toEqual([]);
	});

	it("measures a function from its first line to its last", () => {
		const body = Array.from({ length: 5 }, (_, i) => `\tconst v${i} = ${i};`).join("\n");
		const text = `export function f() {\n${body}\n}\nconst g = () => {\n\treturn 1;\n};`;
		expect(longFunctions(parse("x.ts", text), 6)).toEqual(["x.ts:1 (7 lines)"]);
		expect(longFunctions(parse("x.ts", text), 7)).toEqual([]);
	});

	it("loads lazily only through lazy.ts", () => {
		expect(files.length).toBeGreaterThan(100);
		expect(files.filter((f) => f !== "lazy.ts").flatMap((f) => lazyLoads(parse(f)))).toEqual([]);
		expect(lazyLoads(parse("lazy.ts")).length).toBeGreaterThan(20);
	});

	it("finds an import() and a createRequire, not a type's import()", () => {
		const text = [
			'type A = typeof import("./a.ts");',
			'const b = await import("./b.ts");',
			'import { createRequire } from "node:module";',
			'const c = createRequire(import.meta.url)("c");',
		].join("\n");
		expect(lazyLoads(parse("x.ts", text))).toEqual(["x.ts:2", "x.ts:4"]);
	});
});
