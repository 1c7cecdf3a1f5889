// The on-disk metadata cache: validity rules, bad files, prefix independence (two processes
// writing at once: tests/e2e/metadata-cache-processes.test.ts).
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fitListing, MAX_ENTRY_BYTES, trimCache } from "../../catalog/cache-budget.ts";
import { ToolCatalog } from "../../catalog/tool-catalog.ts";
import { configHash } from "../../config/identity.ts";
import { defineServer } from "../../config.ts";
import {
	CACHE_FILE,
	CACHE_MAX_AGE_MS,
	CACHE_REFRESH_MS,
	CACHE_VERSION,
	cacheKey,
	MetadataCache,
} from "../../metadata-cache.ts";
import type { StdioServerEntry, ToolMetadata } from "../../types.ts";
import { tempDir } from "../support/helpers.ts";

const entry = (over: Record<string, unknown> = {}): StdioServerEntry =>
	defineServer("gh", {
		command: "npx",
		args: ["-y", "server-github"],
		env: { TOKEN: "secret-token-value" },
		...over,
	}) as StdioServerEntry;
const tools: ToolMetadata[] = [
	{
		server: "gh",
		name: "create_issue",
		description: "Create an issue",
		inputSchema: { type: "object", properties: { title: { type: "string" } } },
	},
];

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
	dir = tempDir();
});
afterEach(() => dir.remove());

describe("MetadataCache", () => {
	it("round-trips through the file and never stores a secret in clear", async () => {
		await new MetadataCache(dir.path).store(entry(), { tools, resources: [{ uri: "a://b", name: "b" }] });
		const text = readFileSync(join(dir.path, CACHE_FILE), "utf8");
		expect(text).not.toContain("secret-token-value");
		const data = JSON.parse(text);
		expect(data).toMatchObject({
			version: CACHE_VERSION,
			servers: {
				[cacheKey(entry())]: { name: "gh", configHash: configHash(entry()), tools: [{ name: "create_issue" }] },
			},
		});
		const again = new MetadataCache(dir.path);
		expect(again.lookup(entry())?.tools[0]).toMatchObject({ server: "gh", name: "create_issue" });
	});

	it("ignores an entry whose config changed what the server exposes, but not lifecycle or debug", async () => {
		await new MetadataCache(dir.path).store(entry(), { tools, resources: [] });
		const cache = new MetadataCache(dir.path);
		expect(cache.lookup(entry({ lifecycle: "keep-alive", debug: true, idleTimeout: 3 }))).toBeDefined();
		expect(cache.lookup(entry({ args: ["-y", "server-github@2"] }))).toBeUndefined();
		expect(cache.lookup(entry({ env: { TOKEN: "other" } }))).toBeUndefined();
		expect(cache.lookup(entry({ exposeResources: false }))).toBeUndefined();
	});

	it("keeps both entries of two projects' servers that share a name", async () => {
		const a = entry({ args: ["-y", "server-github", "--project=a"] });
		const b = entry({ args: ["-y", "server-github", "--project=b"] });
		await new MetadataCache(dir.path).store(a, { tools, resources: [] });
		await new MetadataCache(dir.path).store(b, { tools: [{ ...tools[0], name: "other_tool" }], resources: [] });
		const cache = new MetadataCache(dir.path);
		expect(cache.lookup(a)?.tools.map((t) => t.name)).toEqual(["create_issue"]);
		expect(cache.lookup(b)?.tools.map((t) => t.name)).toEqual(["other_tool"]);
	});

	it("hashes equal configs equally whatever the key order", () => {
		expect(configHash(entry({ env: { A: "1", B: "2" } }))).toBe(configHash(entry({ env: { B: "2", A: "1" } })));
	});

	it("ignores entries older than 7 days", async () => {
		let now = 1_000_000;
		await new MetadataCache(dir.path, { now: () => now }).store(entry(), { tools, resources: [] });
		now += CACHE_MAX_AGE_MS - 1000;
		expect(new MetadataCache(dir.path, { now: () => now }).lookup(entry())).toBeDefined();
		now += 2000;
		expect(new MetadataCache(dir.path, { now: () => now }).lookup(entry())).toBeUndefined();
	});

	it.each([
		["bad JSON", "{ not json"],
		["another version", JSON.stringify({ version: 99, servers: { gh: {} } })],
		["a wrong structure", JSON.stringify({ version: 1, servers: { gh: { tools: "nope" } } })],
		["an array", "[]"],
	])("a file with %s is ignored and rebuilt", async (_label, content) => {
		writeFileSync(join(dir.path, CACHE_FILE), content);
		const cache = new MetadataCache(dir.path);
		expect(cache.lookup(entry())).toBeUndefined();
		await cache.store(entry(), { tools, resources: [] });
		expect(new MetadataCache(dir.path).lookup(entry())?.tools).toHaveLength(1);
	});

	it("keeps a valid server next to a broken one", async () => {
		await new MetadataCache(dir.path).store(entry(), { tools, resources: [] });
		const data = JSON.parse(readFileSync(join(dir.path, CACHE_FILE), "utf8"));
		data.servers.broken = { configHash: 3 };
		writeFileSync(join(dir.path, CACHE_FILE), JSON.stringify(data));
		expect(new MetadataCache(dir.path).lookup(entry())).toBeDefined();
	});

	it("writes the file again only when a listing changed, or its entry is a day old", async () => {
		let now = Date.now();
		const cache = new MetadataCache(dir.path, { now: () => now });
		const file = join(dir.path, CACHE_FILE);
		await cache.store(entry(), { tools, resources: [] });
		const written = statSync(file);
		now += 60_000;
		await new MetadataCache(dir.path, { now: () => now }).store(entry(), { tools: [...tools], resources: [] });
		expect(statSync(file).ino).toBe(written.ino); // the same listing: not rewritten
		const renamed = [{ ...tools[0], description: "Open an issue" }];
		await new MetadataCache(dir.path, { now: () => now }).store(entry(), { tools: renamed, resources: [] });
		expect(new MetadataCache(dir.path).lookup(entry())?.tools[0].description).toBe("Open an issue");
		const changed = statSync(file);
		now += CACHE_REFRESH_MS;
		await new MetadataCache(dir.path, { now: () => now }).store(entry(), { tools: renamed, resources: [] });
		expect(statSync(file).ino).not.toBe(changed.ino); // a day on: written again, its age renewed
		expect(JSON.parse(readFileSync(file, "utf8")).servers[cacheKey(entry())].cachedAt).toBe(now);
	});

	it("drops an entry whose tool schema is not an object, keeping the others", async () => {
		const other = entry({ args: ["-y", "server-other"] });
		await new MetadataCache(dir.path).store(entry(), { tools, resources: [] });
		await new MetadataCache(dir.path).store(other, { tools, resources: [] });
		const data = JSON.parse(readFileSync(join(dir.path, CACHE_FILE), "utf8"));
		data.servers[cacheKey(other)].tools[0].inputSchema = "not a schema";
		writeFileSync(join(dir.path, CACHE_FILE), JSON.stringify(data));
		const cache = new MetadataCache(dir.path);
		expect(cache.lookup(other)).toBeUndefined();
		expect(cache.lookup(entry())?.tools.map((t) => t.name)).toEqual(["create_issue"]);
	});

	it("keeps original names, so a toolPrefix change still uses the cache", async () => {
		await new MetadataCache(dir.path).store(entry(), { tools, resources: [] });
		const cached = new MetadataCache(dir.path).lookup(entry());
		if (!cached) throw new Error("cache miss");
		for (const [mode, expected] of [
			["server", "gh_create_issue"],
			["none", "create_issue"],
		] as const) {
			const catalog = new ToolCatalog(mode, ["gh"]);
			catalog.set("gh", cached, true);
			expect(catalog.all().map((t) => t.qualifiedName)).toEqual([expected]);
		}
	});

	/** `count` tools whose descriptions take `kb` KB each: a server that lists far more than any real one. */
	const bigTools = (count: number, kb: number): ToolMetadata[] =>
		Array.from({ length: count }, (_, i) => ({
			server: "gh",
			name: `tool_${i}`,
			description: `Tool ${i}. ${"Long usage notes. ".repeat(kb * 60)}`,
			inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
		}));
	const files = () => readdirSync(dir.path).sort();

	it("a listing past its share is shortened before it is kept: every tool still there, the cut named", async () => {
		const cache = new MetadataCache(dir.path);
		await cache.store(entry(), { tools: bigTools(100, 30), resources: [] }); // ~3 MB listed
		expect(statSync(join(dir.path, CACHE_FILE)).size).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
		const cached = new MetadataCache(dir.path).lookup(entry());
		expect(cached?.tools.map((t) => t.name)).toEqual(bigTools(100, 0).map((t) => t.name));
		expect(cached?.tools[0].inputSchema).toEqual(bigTools(1, 0)[0].inputSchema);
		expect(cached?.tools[0].description).toMatch(/^Tool 0\. Long usage notes\..*\.\.\.$/);
		expect(cache.notice).toMatch(/^gh's listing \(3\.\d MB\) is over the 2\.0 MB a server may take/);
	});

	it("a cache past its cap (an older version's) is read, trimmed and kept: no server starts again, no copy piles up", async () => {
		// As an older version left it: one server's 17 MB entry, beside a copy it set aside.
		const key = cacheKey(entry());
		const old = {
			name: "gh",
			configHash: configHash(entry()),
			cachedAt: Date.now(),
			resources: [],
			templates: [],
			prompts: [],
		};
		const file = join(dir.path, CACHE_FILE);
		writeFileSync(
			file,
			JSON.stringify({ version: CACHE_VERSION, servers: { [key]: { ...old, tools: bigTools(200, 85) } } }, null, 1),
		);
		writeFileSync(`${file}.damaged-2026-01-01T00-00-00-000Z`, "{}");
		expect(statSync(file).size).toBeGreaterThan(16 * 1024 * 1024);
		const cache = new MetadataCache(dir.path);
		expect(cache.lookup(entry())?.tools).toHaveLength(200); // not thrown away: the server need not start
		await cache.flush();
		expect(statSync(file).size).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
		expect(files()).toEqual([CACHE_FILE]);
		expect(new MetadataCache(dir.path).lookup(entry())?.tools).toHaveLength(200);
		expect(cache.notice).toMatch(/^gh's listing \(17\.\d MB\)/);
	});

	it("a cache file that cannot be read is replaced, with no copy of it kept", async () => {
		writeFileSync(join(dir.path, CACHE_FILE), "{ not json");
		await new MetadataCache(dir.path).store(entry(), { tools, resources: [] });
		expect(files()).toEqual(["mcp-cache.json", CACHE_FILE].sort()); // ours, and its 2.36-format copy
		expect(new MetadataCache(dir.path).lookup(entry())).toBeDefined();
	});
});

describe("the cache's size budget", () => {
	const listing = (name: string, cachedAt: number, over: Record<string, unknown> = {}) => ({
		name,
		cachedAt,
		tools: [{ name: "t", description: "x".repeat(1000), inputSchema: { type: "object" } }],
		resources: [],
		templates: [],
		prompts: [],
		...over,
	});

	it("a tool too big for its share keeps its arguments' names and types; past that, any object", () => {
		const schema = {
			type: "object",
			properties: Object.fromEntries(
				Array.from({ length: 300 }, (_, i) => [`a${i}`, { type: "string", enum: ["x".repeat(40)] }]),
			),
			required: ["a0"],
		};
		const tool = { name: "t", description: "d".repeat(5000), inputSchema: schema };
		const many = Array.from({ length: 30 }, (_, i) => ({ ...tool, name: `t${i}` }));
		const fitted = fitListing(listing("s", 0, { tools: many, resources: [{ uri: "r" }] }), 400_000);
		const first = fitted.entry.tools[0];
		expect(first.description).toHaveLength(1000);
		expect(first.inputSchema).toEqual({
			type: "object",
			properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`a${i}`, { type: "string" }])),
			required: ["a0"],
		});
		expect(fitted.entry.tools).toHaveLength(30);
		expect(fitted.cut).toContain("30 tools shortened");
		const tight = fitListing(listing("s", 0, { tools: many, resources: [{ uri: "r" }] }), 5_000);
		expect(tight.entry.tools[0].inputSchema).toEqual({ type: "object" });
		expect(tight.entry.resources).toEqual([]);
		expect(tight.cut).toMatch(/30 tools shortened, \d+ items left out/);
	});

	it("a cache over its cap loses its oldest entries first, and says which", () => {
		const servers = { a: listing("old", 1), b: listing("newest", 3), c: listing("middle", 2) };
		const said = trimCache(servers, 2500);
		expect(Object.keys(servers).sort()).toEqual(["b", "c"]);
		expect(said).toEqual([
			"The tool-list cache is over its 0.0 MB: the oldest entries were left out (old); those servers start once to list their tools again",
		]);
	});
});

describe("2.36's mcp-cache.json", () => {
	const file236 = () => JSON.parse(readFileSync(join(dir.path, "mcp-cache.json"), "utf8"));

	it("gets a version-1 copy of each entry, keyed by name and 2.36's hash, keeping others' entries", async () => {
		const other = { configHash: "h", tools: [], resources: [], cachedAt: 1 };
		writeFileSync(join(dir.path, "mcp-cache.json"), JSON.stringify({ version: 1, servers: { other } }));
		const gh = entry();
		await new MetadataCache(dir.path).store(gh, { tools, resources: [{ uri: "a://b", name: "b" }] });
		expect(CACHE_FILE).not.toBe("mcp-cache.json");
		expect(file236()).toEqual({
			version: 1,
			servers: {
				other,
				gh: {
					configHash: gh.compatHash,
					tools: [{ name: "create_issue", description: "Create an issue", inputSchema: tools[0].inputSchema }],
					resources: [{ uri: "a://b", name: "b" }],
					prompts: [],
					cachedAt: expect.any(Number),
				},
			},
		});
		expect(readFileSync(join(dir.path, "mcp-cache.json"), "utf8")).not.toContain("secret-token-value");
	});

	it("adopts the entries an older version kept under that name, and turns that file into 2.36's", async () => {
		const gh = entry();
		await new MetadataCache(dir.path).store(gh, { tools, resources: [] });
		writeFileSync(join(dir.path, "mcp-cache.json"), readFileSync(join(dir.path, CACHE_FILE)));
		rmSync(join(dir.path, CACHE_FILE));
		const cache = new MetadataCache(dir.path);
		expect(cache.lookup(gh)?.tools.map((t) => t.name)).toEqual(["create_issue"]);
		await cache.store(gh, { tools, resources: [] }); // the same listing, still written once: its copy is due
		expect(file236().servers.gh.configHash).toBe(gh.compatHash);
		expect(JSON.parse(readFileSync(join(dir.path, CACHE_FILE), "utf8")).version).toBe(CACHE_VERSION);
	});
});
