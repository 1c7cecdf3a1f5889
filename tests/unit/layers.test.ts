// The layers point one way: every module's relative imports (static, `import type`, `export from`
// and `import()`) read from its text and checked against the layer table in ARCHITECTURE.md, the
// one place the allowed direction is written. A module may import its own unit (folder or root
// module) and units of its layer or below; no two units import each other; every unit has a row.
// The dependency table beside it is checked too: it says what each unit imports, and no more.
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { packageFiles, ROOT } from "../support/package-files.ts";

interface Import {
	readonly from: string;
	readonly to: string;
	/** Loaded at first use, through a loader of lazy.ts. */
	readonly lazy?: true;
}

/** Every .ts/.mjs/.mts file of the package (declarations aside). */
const sourceFiles = () => packageFiles(/(?<!\.d)\.(ts|mts|mjs)$/);

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm;

/** The one module that loads lazily (lazy.ts): each of its loaders counts as an import of the module it loads. */
const LAZY = "lazy.ts";

const fromRoot = (file: string, specifier: string) =>
	normalize(join(dirname(file), specifier))
		.split("\\")
		.join("/");

/** The relative imports a module's text makes, as paths from the root. */
function importsOf(file: string, text: string): Import[] {
	return [...text.matchAll(SPECIFIER)].map((m) => ({ from: file, to: fromRoot(file, m[1]) }));
}

/** lazy.ts' loaders (and types) by name: the module each one loads. */
function lazyTargets(text: string): Map<string, string> {
	const targets = new Map<string, string>();
	for (const m of text.matchAll(/^export (?:const|type) (\w+)[^;]*?import\(\s*["'](\.{1,2}\/[^"']+)["']/gms))
		targets.set(m[1], fromRoot(LAZY, m[2]));
	return targets;
}

/**
 * The imports a module makes once its loaders are read as what they load: `{ loadSdk } from
 * "../lazy.ts"` is an import of transport/mcp-sdk.ts. lazy.ts' own import() calls are its callers'.
 */
function resolveLazy(file: string, text: string, targets: ReadonlyMap<string, string>): Import[] {
	if (file === LAZY) return importsOf(file, text.replace(/import\(\s*["'][^"']+["']\s*\)/g, ""));
	const imports = importsOf(file, text);
	for (const m of text.matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}\s*from\s*["'](\.{1,2}\/[^"']+)["']/g)) {
		if (fromRoot(file, m[2]) !== LAZY) continue;
		for (const name of m[1].split(",").map((n) => n.replace(/^\s*type\s+/, "").trim())) {
			const to = targets.get(name);
			if (to) imports.push({ from: file, to, lazy: true });
		}
	}
	return imports;
}

/** A file's unit: its top folder (`proxy/`), or the root module itself (`lifecycle.ts`). */
function unitOf(file: string): string {
	const slash = file.indexOf("/");
	return slash === -1 ? file : `${file.slice(0, slash)}/`;
}

interface Layers {
	readonly rank: ReadonlyMap<string, number>;
	/** `from -> to` file pairs allowed to point up. */
	readonly upward: readonly string[];
}

/** The `## Layers` section of ARCHITECTURE.md: rows `| <n> | \`unit\`, ... | ... |`, and the named upward imports. */
function readLayers(markdown: string): Layers {
	const section = markdown.split(/^## /m).find((s) => s.startsWith("Layers")) ?? "";
	const rank = new Map<string, number>();
	for (const row of section.matchAll(/^\|\s*(\d+)\s*\|([^|]*)\|/gm))
		for (const unit of row[2].matchAll(/`([^`]+)`/g)) rank.set(unit[1], Number(row[1]));
	const upward = [...section.matchAll(/upward import: `([^`]+)` -> `([^`]+)`/g)].map((m) => `${m[1]} -> ${m[2]}`);
	return { rank, upward };
}

/** What breaks the layers: units with no row, upward imports not named, pairs of units importing each other. */
function layerProblems(imports: readonly Import[], layers: Layers, units: readonly string[]): string[] {
	const problems = units.filter((u) => !layers.rank.has(u)).map((u) => `${u} has no row in the layer table`);
	const edges = new Set<string>();
	const used = new Set<string>();
	for (const { from, to } of imports) {
		const [a, b] = [unitOf(from), unitOf(to)];
		if (a === b) continue;
		edges.add(`${a} ${b}`);
		const [ra, rb] = [layers.rank.get(a), layers.rank.get(b)];
		if (ra === undefined || rb === undefined || rb <= ra) continue;
		if (layers.upward.includes(`${from} -> ${to}`)) used.add(`${from} -> ${to}`);
		else problems.push(`${from} (layer ${ra}) imports ${to} (layer ${rb}): upward`);
	}
	for (const edge of edges) {
		const [a, b] = edge.split(" ");
		if (a < b && edges.has(`${b} ${a}`)) problems.push(`${a} and ${b} import each other`);
	}
	for (const named of layers.upward)
		if (!used.has(named)) problems.push(`the upward import ${named} is named but not made`);
	return problems;
}

/** Each unit's imports of other units (lazy.ts, which nearly all import, left out), and those it only loads lazily. */
type Dependencies = Map<string, { imports: string; lazy: string }>;

const listed = (units: Iterable<string>) =>
	[...units]
		.sort()
		.map((u) => `\`${u}\``)
		.join(", ");

function dependenciesOf(imports: readonly Import[]): Dependencies {
	const edges = new Map<string, { imports: Set<string>; lazy: Set<string> }>();
	for (const { from, to, lazy } of imports) {
		const [a, b] = [unitOf(from), unitOf(to)];
		if (a === b || b === LAZY) continue;
		const unit = edges.get(a) ?? { imports: new Set<string>(), lazy: new Set<string>() };
		edges.set(a, unit);
		(lazy ? unit.lazy : unit.imports).add(b);
	}
	const table: Dependencies = new Map();
	for (const [unit, { imports, lazy }] of edges)
		table.set(unit, { imports: listed(imports), lazy: listed([...lazy].filter((u) => !imports.has(u))) });
	return table;
}

/** The `## Dependencies` section of ARCHITECTURE.md: rows `| \`unit\` | \`a\`, \`b\` | \`c\` |`. */
function readDependencies(markdown: string): Dependencies {
	const section = markdown.split(/^## /m).find((s) => s.startsWith("Dependencies")) ?? "";
	const table: Dependencies = new Map();
	for (const row of section.matchAll(/^\|\s*`([^`]+)`\s*\|([^|]*)\|([^|]*)\|\s*$/gm))
		table.set(row[1], { imports: row[2].trim(), lazy: row[3].trim() });
	return table;
}

/**
 * Rows not yet in ARCHITECTURE.md (its next rewrite takes them over, then they go from here): a
 * unit's layer, and a unit's dependency row, each replacing the document's.
 */
const PENDING_LAYERS: Readonly<Record<string, number>> = { "shell/": 11, "server-lifecycle/": 8 };
const PENDING_DEPENDENCIES: Readonly<Record<string, { imports: string; lazy: string }>> = {
	"cli.ts": { imports: "`mcp-runtime.ts`, `shell/`", lazy: "" },
	"lifecycle.ts": {
		imports:
			"`bounds/`, `catalog/`, `client/`, `config/`, `metadata-cache.ts`, `server-lifecycle/`, `server-manager.ts`, `transport/`, `trust/`, `types.ts`",
		lazy: "",
	},
	"server-lifecycle/": {
		imports:
			"`bounds/`, `catalog/`, `client/`, `config.ts`, `errors.ts`, `metadata-cache.ts`, `oauth-handler.ts`, `server-manager.ts`, `transport/`, `trust/`, `types.ts`",
		lazy: "",
	},
	"shell/": {
		imports:
			"`bounds/`, `config.ts`, `config/`, `errors.ts`, `lifecycle.ts`, `mcp-runtime.ts`, `oauth-handler.ts`, `oauth/`, `proxy/`, `storage/`, `trust/`, `types.ts`",
		lazy: "",
	},
};

function withPending(layers: Layers): Layers {
	return { ...layers, rank: new Map([...layers.rank, ...Object.entries(PENDING_LAYERS)]) };
}

describe("layers", () => {
	const files = sourceFiles();
	const targets = lazyTargets(readFileSync(join(ROOT, LAZY), "utf8"));
	const imports = files.flatMap((f) => resolveLazy(f, readFileSync(join(ROOT, f), "utf8"), targets));
	const layers = withPending(readLayers(readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8")));
	const units = [...new Set(files.map(unitOf))];

	it("point one way, with at most one named upward import", () => {
		expect(imports.length).toBeGreaterThan(100);
		expect(layers.upward.length).toBeLessThanOrEqual(1);
		expect(layerProblems(imports, layers, units)).toEqual([]);
	});

	it("catch an upward import, a mutual pair and a unit with no row", () => {
		const planted = [
			...imports,
			{ from: "storage/file-guard.ts", to: "proxy/calls.ts" },
			{ from: "bounds/waits.ts", to: "transport/stdio.ts" },
			{ from: "lifecycle.ts", to: "brand-new/thing.ts" },
		];
		const problems = layerProblems(planted, layers, [...units, "brand-new/"]);
		const [low, high] = [layers.rank.get("storage/"), layers.rank.get("proxy/")];
		expect(problems).toContain(`storage/file-guard.ts (layer ${low}) imports proxy/calls.ts (layer ${high}): upward`);
		expect(problems).toContain("bounds/ and transport/ import each other");
		expect(problems).toContain("brand-new/ has no row in the layer table");
	});

	it("are what the dependency table says, unit by unit", () => {
		const table = readDependencies(readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8"));
		for (const [unit, row] of Object.entries(PENDING_DEPENDENCIES)) table.set(unit, row);
		expect(table.size).toBeGreaterThan(15);
		expect(Object.fromEntries(table)).toEqual(Object.fromEntries(dependenciesOf(imports)));
	});

	it("read a loader of lazy.ts as an import of what it loads", () => {
		const lazy = 'export const loadSdk: () => Promise<McpSdk> = once(() =>\n\timport("./transport/mcp-sdk.ts"));';
		const known = lazyTargets(lazy);
		expect(known.get("loadSdk")).toBe("transport/mcp-sdk.ts");
		expect(targets.get("loadCallPath")).toBe("proxy/proxy-tool.ts");
		const caller = 'import { loadSdk, type Other } from "../lazy.ts";';
		expect(resolveLazy("proxy/calls.ts", caller, known).map((i) => i.to)).toEqual(["lazy.ts", "transport/mcp-sdk.ts"]);
		expect(resolveLazy(LAZY, lazy, known).map((i) => i.to)).toEqual([]);
		const planted = [
			...imports,
			...resolveLazy("storage/file-guard.ts", 'import { loadCallPath } from "../lazy.ts";', targets),
		];
		expect(layerProblems(planted, layers, units).join("\n")).toContain(
			"storage/file-guard.ts (layer 0) imports proxy/proxy-tool.ts",
		);
	});

	it("read every form of import", () => {
		const text = [
			'import { a } from "./a.ts";',
			'import type { B } from "../b/b.ts";',
			'export { c } from "./c.ts";',
			'const d = await import("./d.ts");',
			'import "./e.ts";',
			'type F = typeof import("./f.ts");',
			'import { g } from "node:fs";',
		].join("\n");
		expect(importsOf("x/y.ts", text).map((i) => i.to)).toEqual([
			"x/a.ts",
			"b/b.ts",
			"x/c.ts",
			"x/d.ts",
			"x/e.ts",
			"x/f.ts",
		]);
	});
});
