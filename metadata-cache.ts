// On-disk metadata so search, list and describe work with no server running:
// <agentDir>/mcp-cache.json = { version, servers: { <name>: { configHash, tools, resources, cachedAt } } }.
// The file is shared by every Pi session and project: writes are locked, merged with what is on
// disk, and atomic (temp file + rename). Anything unreadable is ignored and rebuilt.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { ResourceMetadata, ServerEntry, ToolMetadata } from "./types.ts";

export const CACHE_VERSION = 1;
export const CACHE_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
export const CACHE_FILE = "mcp-cache.json";

const CachedToolSchema = Type.Object({
	name: Type.String(),
	title: Type.Optional(Type.String()),
	description: Type.String(),
	inputSchema: Type.Record(Type.String(), Type.Unknown()),
});
const CachedServerSchema = Type.Object({
	configHash: Type.String(),
	tools: Type.Array(CachedToolSchema),
	resources: Type.Array(
		Type.Object({ uri: Type.String(), name: Type.String(), description: Type.Optional(Type.String()), mimeType: Type.Optional(Type.String()) }),
	),
	cachedAt: Type.Number(),
});
export type CachedServer = Static<typeof CachedServerSchema>;
type CacheFile = { version: number; servers: Record<string, CachedServer> };

/** The fields that change what a server exposes; lifecycle, idleTimeout and debug do not. */
export function configHash(entry: ServerEntry): string {
	const relevant =
		entry.transport === "stdio"
			? { command: entry.command, args: entry.args, env: entry.env, cwd: entry.cwd, exposeResources: entry.exposeResources }
			: {
					url: entry.url,
					headers: entry.headers,
					auth: entry.auth,
					bearerToken: entry.bearerToken,
					bearerTokenEnv: entry.bearerTokenEnv,
					exposeResources: entry.exposeResources,
				};
	return createHash("sha256").update(stableStringify(relevant)).digest("hex");
}

/** JSON with object keys sorted at every level, so equal configs hash equally. */
export function stableStringify(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
	if (value && typeof value === "object") {
		const entries = Object.entries(value as Record<string, unknown>)
			.filter(([, v]) => v !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
	}
	return JSON.stringify(value) ?? "null";
}

export interface MetadataCacheOptions {
	readonly now?: () => number;
}

export class MetadataCache {
	readonly path: string;
	/** False when there was no cache file at load: the first run, which fills it. */
	readonly existed: boolean;
	private servers: Record<string, CachedServer>;
	private readonly dirty = new Set<string>();
	private readonly now: () => number;
	private writing: Promise<void> = Promise.resolve();

	constructor(agentDir: string, options: MetadataCacheOptions = {}) {
		this.path = join(agentDir, CACHE_FILE);
		this.now = options.now ?? Date.now;
		const read = readCacheFile(this.path);
		this.existed = read !== "missing";
		this.servers = read === "missing" ? {} : read;
	}

	/** The cached metadata of a server, if it was made by the same config and is under 7 days old. */
	lookup(entry: ServerEntry): { tools: ToolMetadata[]; resources: ResourceMetadata[] } | undefined {
		const cached = this.servers[entry.name];
		if (!cached || cached.configHash !== configHash(entry)) return undefined;
		if (this.now() - cached.cachedAt > CACHE_MAX_AGE_MS) return undefined;
		return { tools: cached.tools.map((t) => ({ ...t, server: entry.name })), resources: cached.resources };
	}

	/** Records a server's metadata and writes it (merged, locked, atomic). */
	store(entry: ServerEntry, tools: readonly ToolMetadata[], resources: readonly ResourceMetadata[]): Promise<void> {
		this.servers[entry.name] = {
			configHash: configHash(entry),
			// Original names only: a prefix change must not invalidate the cache.
			tools: tools.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: { ...t.inputSchema } })),
			resources: resources.map((r) => ({ ...r })),
			cachedAt: this.now(),
		};
		this.dirty.add(entry.name);
		return this.flush();
	}

	/** Writes pending entries. Serialized within this process; locked across processes. */
	flush(): Promise<void> {
		this.writing = this.writing.then(() => this.writePending()).catch(() => undefined);
		return this.writing;
	}

	private async writePending(): Promise<void> {
		if (this.dirty.size === 0) return;
		const names = [...this.dirty];
		this.dirty.clear();
		try {
			await this.writeMerged(names);
		} catch (error) {
			for (const name of names) this.dirty.add(name); // retried on the next flush
			throw error;
		}
	}

	private async writeMerged(names: readonly string[]): Promise<void> {
		mkdirSync(dirname(this.path), { recursive: true });
		// Imported on the first write only: a session with a warm cache may never write.
		const { lock } = await import("proper-lockfile");
		const release = await lock(this.path, {
			realpath: false,
			stale: 10_000,
			retries: { retries: 50, minTimeout: 10, maxTimeout: 200 },
		});
		try {
			const onDisk = readCacheFile(this.path);
			const merged: Record<string, CachedServer> = onDisk === "missing" ? {} : onDisk;
			for (const name of names) merged[name] = this.servers[name];
			const cutoff = this.now() - CACHE_MAX_AGE_MS;
			for (const [name, server] of Object.entries(merged)) if (server.cachedAt < cutoff) delete merged[name];
			const file: CacheFile = { version: CACHE_VERSION, servers: merged };
			const temp = `${this.path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
			try {
				writeFileSync(temp, `${JSON.stringify(file, null, 1)}\n`, { mode: 0o600 });
				renameSync(temp, this.path);
			} catch (error) {
				rmSync(temp, { force: true });
				throw error;
			}
			// Adopt what other sessions wrote, except entries stored here since this write began.
			for (const [name, server] of Object.entries(merged)) if (!this.dirty.has(name)) this.servers[name] = server;
		} finally {
			await release();
		}
	}
}

/** The valid servers in a cache file; a bad file or another version reads as empty. */
function readCacheFile(path: string): Record<string, CachedServer> | "missing" {
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch {
		return "missing";
	}
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch {
		return {};
	}
	const file = data as Partial<CacheFile> | null;
	if (!file || typeof file !== "object" || file.version !== CACHE_VERSION || typeof file.servers !== "object" || !file.servers) return {};
	const out: Record<string, CachedServer> = {};
	for (const [name, server] of Object.entries(file.servers)) if (Value.Check(CachedServerSchema, server)) out[name] = server;
	return out;
}
