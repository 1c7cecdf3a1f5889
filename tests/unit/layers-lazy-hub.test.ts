// How `npm run lint` reads lazy.ts, the hub lazy loads go through today (scripts/lint/lazy-hub.ts):
// a loader imported by name (aliased too) counts as an import of what it loads, the hub's own
// loads are not its own, and no other module loads at run time. Goes with lazy.ts.
import { describe, expect, it } from "vitest";
import { importsOf } from "../../scripts/lint/imports.ts";
import { hubLoaders, hubProblems, runtimeLoads, throughHub } from "../../scripts/lint/lazy-hub.ts";
import { parseSource } from "../../scripts/lint/source-files.ts";

const HUB = [
	'import { once } from "./bounds/waits.ts";',
	'export const loadSdk: () => Promise<McpSdk> = once(() =>\n\timport("./transport/mcp-sdk.ts"));',
	'export type McpSdk = typeof import("./transport/mcp-sdk.ts");',
	'export const loadCallPath = once(() => import("./proxy/proxy-tool.ts"));',
	'export const loadLock = once(() => import("proper-lockfile"));',
	"export function helper(): void {}",
].join("\n");
const hub = parseSource("lazy.ts", HUB);

const resolved = (file: string, text: string) =>
	throughHub(
		[hub, parseSource(file, text)],
		[hub, parseSource(file, text)].flatMap((s) => importsOf(s)),
	)
		.map((i) => `${i.from} -> ${i.to}${i.lazy ? " lazy" : ""}`)
		.sort();

describe("lazy.ts as the lint reads it", () => {
	it("maps each loader and type to the module it loads, packages aside", () => {
		expect(Object.fromEntries(hubLoaders(hub))).toEqual({
			loadSdk: "transport/mcp-sdk.ts",
			McpSdk: "transport/mcp-sdk.ts",
			loadCallPath: "proxy/proxy-tool.ts",
		});
	});

	it("reads a loader imported by name, aliased, re-exported or as a namespace as a lazy import of what it loads", () => {
		expect(resolved("storage/a.ts", 'import { loadCallPath as load, type McpSdk } from "../lazy.ts";')).toEqual([
			"lazy.ts -> bounds/waits.ts",
			"storage/a.ts -> lazy.ts",
			"storage/a.ts -> proxy/proxy-tool.ts lazy",
			"storage/a.ts -> transport/mcp-sdk.ts lazy",
		]);
		expect(resolved("storage/b.ts", 'export { loadCallPath } from "../lazy.ts";')).toContain(
			"storage/b.ts -> proxy/proxy-tool.ts lazy",
		);
		expect(resolved("storage/c.ts", 'import * as lazy from "../lazy.ts";')).toEqual(
			expect.arrayContaining(["storage/c.ts -> proxy/proxy-tool.ts lazy", "storage/c.ts -> transport/mcp-sdk.ts lazy"]),
		);
	});

	it("counts the hub's own loads as its callers', not its own", () => {
		expect(resolved("storage/d.ts", "export const d = 1;")).toEqual(["lazy.ts -> bounds/waits.ts"]);
	});

	it("finds an import() and a createRequire outside the hub, not a type's import()", () => {
		const text = [
			'type A = typeof import("./a.ts");',
			'const b = await import("./b.ts");',
			'import { createRequire } from "node:module";',
			'const c = createRequire(import.meta.url)("c");',
		].join("\n");
		expect(runtimeLoads(parseSource("x.ts", text))).toEqual([2, 4]);
		const problems = hubProblems([parseSource("config/x.ts", text), parseSource("bin/run.mjs", text)]);
		expect(problems.map((p) => p.where)).toEqual(["config/x.ts:2", "config/x.ts:4"]);
		expect(problems[0].fix).toContain("add a once() loader to lazy.ts");
	});

	it("says so when it reads too few loaders in the hub", () => {
		expect(hubProblems([hub]).map((p) => p.what)).toEqual([
			"fewer than 20 loaders read: is the lint reading it right?",
		]);
	});
});
