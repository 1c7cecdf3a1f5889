// The layer rules of `npm run lint` (scripts/lint/imports.ts, layers.ts, architecture-doc.ts) on
// small inputs: every form of import read, what breaks the layers found and named, and
// ARCHITECTURE.md's generated tables written and found stale. The lint runs them over the package.
import { describe, expect, it } from "vitest";
import { dependenciesBlock, layersBlock, staleBlocks, writeBlocks } from "../../scripts/lint/architecture-doc.ts";
import { type Import, importsOf } from "../../scripts/lint/imports.ts";
import type { LayerRow } from "../../scripts/lint/layer-rule.ts";
import { dependenciesOf, layerProblems } from "../../scripts/lint/layers.ts";
import { parseSource } from "../../scripts/lint/source-files.ts";

const ROWS: LayerRow[] = [
	{ layer: 2, units: ["proxy/", "index.ts"], why: "above" },
	{ layer: 1, units: ["transport/"], why: "between" },
	{ layer: 0, units: ["storage/", "bounds/"], why: "below" },
];
const UNITS = ["proxy/", "index.ts", "transport/", "storage/", "bounds/"];
const edge = (from: string, to: string, lazy?: true): Import =>
	lazy ? { from, to, line: 3, lazy } : { from, to, line: 3 };
const found = (imports: Import[], units = UNITS, upward: { from: string; to: string; why: string }[] = []) =>
	layerProblems(imports, ROWS, upward, units).map((p) => `${p.where}: ${p.what}`);

describe("layers", () => {
	it("read every form of import, a load at first use as lazy, packages aside", () => {
		const text = [
			'import { a } from "./a.ts";',
			'import type { B } from "../b/b.ts";',
			'export { c } from "./c.ts";',
			'const d = await import("./d.ts");',
			'import "./e.ts";',
			'type F = typeof import("./f.ts");',
			'import { g } from "node:fs";',
			"const h = \"import { x } from './not-an-import.ts'\";",
		].join("\n");
		expect(importsOf(parseSource("x/y.ts", text)).map((i) => `${i.to}:${i.line}${i.lazy ? " lazy" : ""}`)).toEqual([
			"x/a.ts:1",
			"b/b.ts:2",
			"x/c.ts:3",
			"x/d.ts:4 lazy",
			"x/e.ts:5",
			"x/f.ts:6",
		]);
	});

	it("pass imports of the unit itself and of layers below", () => {
		const imports = [
			edge("proxy/a.ts", "proxy/b.ts"),
			edge("proxy/a.ts", "storage/s.ts"),
			edge("index.ts", "proxy/a.ts"),
		];
		expect(found(imports)).toEqual([]);
	});

	it("catch an upward import, a lazy one too, where it is made", () => {
		expect(found([edge("storage/s.ts", "proxy/calls.ts"), edge("bounds/w.ts", "transport/t.ts", true)])).toEqual([
			"storage/s.ts:3: imports proxy/calls.ts (layer 2) from layer 0",
			"bounds/w.ts:3: imports transport/t.ts (layer 1) from layer 0",
		]);
	});

	it("catch two units of one layer importing each other", () => {
		expect(found([edge("storage/s.ts", "bounds/w.ts"), edge("bounds/w.ts", "storage/s.ts")])).toEqual([
			"bounds/w.ts:3: bounds/ imports storage/ (here) and storage/ imports bounds/ (storage/s.ts:3)",
		]);
	});

	it("catch a unit with no row, and a unit on two rows", () => {
		expect(found([], [...UNITS, "brand-new/"])).toEqual(["brand-new/: no row in the layer rule"]);
		const twice = [...ROWS, { layer: 1, units: ["bounds/"], why: "again" }];
		expect(layerProblems([], twice, [], UNITS).map((p) => p.what)).toEqual(["bounds/ is on layers 0 and 1"]);
	});

	it("allow one named upward import, and catch one named but not made, or two", () => {
		const named = { from: "storage/s.ts", to: "proxy/calls.ts", why: "test" };
		expect(found([edge("storage/s.ts", "proxy/calls.ts")], UNITS, [named])).toEqual([]);
		expect(found([], UNITS, [named])).toEqual([
			"scripts/lint/layer-rule.ts: storage/s.ts -> proxy/calls.ts is named but not made",
		]);
		const other = { from: "bounds/w.ts", to: "proxy/calls.ts", why: "test" };
		const both = [edge("storage/s.ts", "proxy/calls.ts"), edge("bounds/w.ts", "proxy/calls.ts")];
		expect(found(both, UNITS, [named, other])).toEqual(["scripts/lint/layer-rule.ts: 2 upward imports named"]);
	});
});

describe("ARCHITECTURE.md's generated tables", () => {
	const imports = [
		edge("proxy/a.ts", "storage/s.ts"),
		edge("proxy/a.ts", "transport/t.ts", true),
		edge("proxy/b.ts", "bounds/w.ts", true),
		edge("proxy/b.ts", "bounds/x.ts"),
	];
	const blocks = [layersBlock(ROWS, []), dependenciesBlock(dependenciesOf(imports, UNITS))];
	const doc =
		"# A\n\n<!-- layers: old -->\n| old |\n<!-- end layers -->\n\ntext\n<!-- dependencies: -->\n<!-- end dependencies -->\n";

	it("list each unit's imports, and what it only loads lazily", () => {
		const table = dependenciesOf(imports, UNITS);
		expect(table.get("proxy/")).toEqual({ imports: ["bounds/", "storage/"], lazy: ["transport/"] });
		expect([...table.keys()]).toEqual(["bounds/", "index.ts", "proxy/", "storage/", "transport/"]);
	});

	it("are written between their markers, the rest of the document kept", () => {
		const written = writeBlocks(doc, blocks);
		expect(written).toContain("text\n<!-- dependencies: written by `npm run deps`");
		expect(written).toContain("| `proxy/` | `bounds/`, `storage/` | `transport/` |\n");
		expect(written.endsWith("| `transport/` |  |  |\n<!-- end dependencies -->\n")).toBe(true);
		expect(written).toContain("| 2     | `proxy/`, `index.ts`     | above    |");
		expect(written.startsWith("# A\n\n<!-- layers: written by `npm run deps` from scripts/lint/layer-rule.ts")).toBe(
			true,
		);
		expect(staleBlocks(written, blocks)).toEqual([]);
		expect(writeBlocks(written, blocks)).toBe(written);
	});

	it("found stale when the code or the rule changed, naming the rows and `npm run deps`", () => {
		const written = writeBlocks(doc, blocks);
		const changed = [blocks[0], dependenciesBlock(dependenciesOf([edge("proxy/a.ts", "storage/s.ts")], UNITS))];
		const [stale] = staleBlocks(written, changed);
		expect(stale.what).toContain("have: | `proxy/` | `bounds/`, `storage/` | `transport/` |");
		expect(stale.what).toContain("want: | `proxy/` | `storage/` |  |");
		expect(stale.fix).toContain("run `npm run deps`");
		expect(staleBlocks(doc, blocks).map((p) => p.what.split(":")[0])).toEqual([
			"the layers table differs",
			"the dependencies table differs",
		]);
	});

	it("say where the markers go when they are missing", () => {
		expect(() => writeBlocks("# A\n", blocks)).toThrow(/no "<!-- layers: \.\.\. -->" and "<!-- end layers -->" lines/);
		expect(staleBlocks("# A\n", blocks).map((p) => p.what)).toEqual([
			'no layers markers ("<!-- layers: ... -->" ... "<!-- end layers -->")',
			'no dependencies markers ("<!-- dependencies: ... -->" ... "<!-- end dependencies -->")',
		]);
	});
});
