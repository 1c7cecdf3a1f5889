// The on-disk metadata cache: validity rules, bad files, prefix independence (two processes
// writing at once: tests/e2e/metadata-cache-processes.test.ts).
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolCatalog } from "../../catalog/tool-catalog.ts";
import { configHash } from "../../config/identity.ts";
import { defineServer } from "../../config.ts";
import { CACHE_FILE, CACHE_MAX_AGE_MS, CACHE_REFRESH_MS, cacheKey, MetadataCache } from "../../metadata-cache.ts";
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
			version: 3,
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
});
