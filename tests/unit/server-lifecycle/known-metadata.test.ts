// server-lifecycle/known-metadata.ts: what a server listed reaches the catalog (the model's view)
// and the metadata cache on disk (the next start's), with secrets cleared and hidden tools left out;
// a cache that cannot be written is said, not fatal.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MetadataCache } from "../../../metadata-cache.ts";
import { KnownMetadata } from "../../../server-lifecycle/known-metadata.ts";
import type { PooledConnection } from "../../../server-manager.ts";
import { Redactor } from "../../../trust/redaction.ts";
import type { ServerEntry, ToolMetadata } from "../../../types.ts";
import { configOf, tempDir } from "../../support/helpers.ts";

const SECRET = "sk-live-0123456789abcdef";
const folders: { remove(): void }[] = [];
afterEach(() => {
	for (const folder of folders.splice(0)) folder.remove();
});

const tool = (name: string, over: Partial<ToolMetadata> = {}): ToolMetadata => ({
	server: "x",
	name,
	description: `${name} things`,
	inputSchema: { type: "object" },
	...over,
});

/** A connection of server `x` (its entry from `fields`) listing `tools`. */
function connection(fields: Record<string, unknown>, tools: ToolMetadata[], instructions?: string): PooledConnection {
	const entry = configOf({ x: { command: "x", ...fields } }).servers.get("x") as ServerEntry;
	const listed = { tools, resources: [], templates: [], prompts: [], skills: [], instructions };
	return {
		name: "x",
		entry,
		transportKind: "stdio",
		lastUsedAt: 0,
		inFlight: 0,
		client: { ping: async () => ({}) },
		...listed,
	};
}

function known(agentDir: string) {
	const redactor = new Redactor({});
	redactor.add(SECRET);
	const told: string[] = [];
	const metadata = new KnownMetadata({
		toolPrefix: "server",
		order: ["x"],
		cache: new MetadataCache(agentDir),
		redactor: () => redactor,
		onChange: () => told.push("change"),
		onCatalogChanged: () => told.push("catalog"),
	});
	return { metadata, told };
}

function agentDir(): string {
	const dir = tempDir();
	folders.push(dir);
	return dir.path;
}

describe("what is known of a server (server-lifecycle/known-metadata.ts)", () => {
	it("offers what a server listed, a known secret cleared from every string, in the catalog and the cache", async () => {
		const dir = agentDir();
		const { metadata, told } = known(dir);
		const listed = tool("read", {
			description: `reads with ${SECRET}`,
			inputSchema: { type: "object", properties: { key: { type: "string", default: SECRET } } },
		});
		const x = connection({}, [listed], `use token ${SECRET}`);
		await metadata.record(x);
		expect(told).toEqual(["catalog", "change"]);
		const offered = metadata.catalog.forServer("x");
		expect(offered.map((t) => t.name)).toEqual(["read"]);
		expect(JSON.stringify([offered, metadata.instructions("x")])).not.toContain(SECRET);
		expect(metadata.instructions("x")).toMatch(/^use token \S+$/);
		const cached = new MetadataCache(dir).lookup(x.entry);
		expect(cached?.tools.map((t) => t.name)).toEqual(["read"]);
		expect(JSON.stringify(cached)).not.toContain(SECRET);
	});

	it("leaves out the tools the config hides or keeps out, and those meant for an app only", async () => {
		const { metadata } = known(agentDir());
		const app = tool("app_view", { ui: { resourceUri: "ui://x/view", visibility: ["app"] } });
		const tools = [tool("keep"), tool("drop"), tool("hide"), app];
		await metadata.record(connection({ toolExposure: { hide: "hidden" }, excludeTools: ["drop"] }, tools));
		expect(metadata.catalog.forServer("x").map((t) => t.name)).toEqual(["keep"]);
	});

	it("offers a cached listing at the next start, before the server runs, and says when it expires", async () => {
		const dir = agentDir();
		const x = connection({}, [tool("read")]);
		await known(dir).metadata.record(x);
		const next = known(dir).metadata;
		expect(next.catalog.has("x")).toBe(false);
		next.loadCached(x.entry);
		expect(next.catalog.forServer("x").map((t) => t.name)).toEqual(["read"]);
		const expiry = next.cacheExpiry([x.entry]);
		expect(expiry).toBe(new MetadataCache(dir).expiresAt(x.entry));
		expect(next.cacheExpiry([])).toBe(Number.POSITIVE_INFINITY);
		next.forget("x");
		expect(next.catalog.has("x")).toBe(false);
	});

	it("says why the cache could not be written, keeps the tools, and stops saying so once a write works", async () => {
		const dir = join(agentDir(), "agent");
		mkdirSync(dir);
		const { metadata } = known(dir);
		rmSync(dir, { recursive: true });
		writeFileSync(dir, "not a folder");
		const x = connection({}, [tool("read")]);
		await metadata.record(x);
		expect(metadata.cacheTrouble).toMatch(/\S/);
		expect(metadata.catalog.has("x")).toBe(true);
		rmSync(dir);
		mkdirSync(dir);
		await metadata.record(connection({}, [tool("read"), tool("write")]));
		expect(metadata.cacheTrouble).toBeUndefined();
	});
});
