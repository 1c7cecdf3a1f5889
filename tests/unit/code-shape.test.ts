// The code-shape rules of `npm run lint` (scripts/lint/code-shape.ts) on small modules: what each
// finds, and where it says it is. The lint runs them over the package.
import { describe, expect, it } from "vitest";
import { indexProblems, longFunctions, longModules, shapeProblems } from "../../scripts/lint/code-shape.ts";
import { formatProblems } from "../../scripts/lint/problem.ts";
import { parseSource } from "../../scripts/lint/source-files.ts";

const lines = (n: number) => Array.from({ length: n }, (_, i) => `\tconst v${i} = ${i};`).join("\n");

describe("code shape", () => {
	it("measures a function from its first line to its last, closures and methods too", () => {
		const text = `export function f() {\n${lines(5)}\n}\nconst g = () => {\n\treturn 1;\n};\nclass C {\n\tm() {\n${lines(6)}\n\t}\n}`;
		const source = parseSource("x.ts", text);
		expect(longFunctions(source, 6).map((p) => `${p.where} ${p.what}`)).toEqual([
			"x.ts:1 a function of 7 lines",
			"x.ts:12 a function of 8 lines",
		]);
		expect(longFunctions(source, 8)).toEqual([]);
	});

	it("holds index.ts under 250 lines, and says what to do", () => {
		expect(indexProblems(parseSource("index.ts", lines(249)))).toEqual([]);
		const [found] = indexProblems(parseSource("index.ts", lines(250)));
		expect(formatProblems([found])).toContain("index.ts: 250 lines\n  rule: index.ts only wires");
		expect(found.fix).toContain("move what it does into the module");
	});

	it("reads every TypeScript module of the package, and index.ts must be there", () => {
		const long = parseSource("proxy/long.ts", `function f() {\n${lines(121)}\n}`);
		const launcher = parseSource("bin/run.mjs", `function f() {\n${lines(121)}\n}`);
		expect(shapeProblems([parseSource("index.ts", ""), long, launcher]).map((p) => p.where)).toEqual([
			"proxy/long.ts:1",
		]);
		expect(shapeProblems([]).map((p) => `${p.where}: ${p.what}`)).toEqual(["index.ts: not found"]);
	});

	it("holds a module to 500 lines and a class to 300, and names the class", () => {
		expect(longModules(parseSource("proxy/a.ts", lines(500)))).toEqual([]);
		expect(longModules(parseSource("proxy/a.ts", lines(501))).map((p) => `${p.where} ${p.what}`)).toEqual([
			"proxy/a.ts 501 lines",
		]);
		const big = (n: number) => `export class Big {\n${lines(n - 2)}\n}`;
		expect(longModules(parseSource("proxy/b.ts", big(300)))).toEqual([]);
		const [found] = longModules(parseSource("proxy/b.ts", `\n${big(301)}`));
		expect(`${found.where} ${found.what}`).toBe("proxy/b.ts:2 class Big: 301 lines");
		expect(found.rule).toContain("no class runs over 300 lines");
	});

	it("excuses no module: the spine's lifecycle.ts is held to the limit like any other", () => {
		expect(longModules(parseSource("lifecycle.ts", lines(501))).map((p) => p.where)).toEqual(["lifecycle.ts"]);
		expect(
			shapeProblems([parseSource("index.ts", ""), parseSource("config.ts", lines(501))]).map((p) => p.where),
		).toEqual(["config.ts"]);
	});
});
