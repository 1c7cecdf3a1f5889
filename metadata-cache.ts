// On-disk metadata so search, list and describe work with no server running:
// <agentDir>/mcp-proxy-cache.json = { version, servers: { "<name> <configHash>": { name, configHash,
// tools, resources, templates, prompts, instructions, cachedAt } } }. Every entry written is also
// written in pi-mcp-adapter 2.36's format to 2.36's <agentDir>/mcp-cache.json (storage/cache-236.ts),
// which pi-subagents reads; ours had that name until it clashed (its version-3 entries are adopted).
// Entries are keyed by name and config identity, so two projects with a server of the same name
// (different args) keep one entry each. The file is shared by every Pi session and project:
// writes are locked, merged with what is on disk, and atomic. Anything unreadable is ignored and
// rebuilt (no copy kept: it is all listed again). Each entry and the whole file are kept within a
// size (catalog/cache-budget.ts): a file past it is trimmed, never dropped and rebuilt every start.
import { statSync } from "node:fs";
import { join } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { fitListing, MAX_CACHE_BYTES, trimCache } from "./catalog/cache-budget.ts";
import { configHash } from "./config/identity.ts";
import { checks } from "./config/json-check.ts";
import { type Entry236, writeCache236 } from "./storage/cache-236.ts";
import { removeSetAside } from "./storage/file-guard.ts";
import { readJsonFile, updateJsonFile } from "./storage/locked-json.ts";
import type { ServerEntry, ServerMetadata, ToolMetadata } from "./types.ts";

/**
 * 3: templates, prompts and taskSupport; servers list more tools now that the client declares roots, sampling and elicitation.
 * 4: each tool's MCP Apps declaration (`ui`): a version 3 entry cannot tell a tool meant for its app only from any other,
 * and would show it to the model until the server is listed again.
 */
export const CACHE_VERSION = 4;
export const CACHE_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
export const CACHE_FILE = "mcp-proxy-cache.json";
/** Where this cache was kept before (2.36's file name): its entries are adopted once, then it is 2.36's. */
const FORMER_CACHE_FILE = "mcp-cache.json";
/**
 * A server that lists what its entry already holds is not written again until the entry is this
 * old: every connect re-lists, and rewriting the shared file each time made parallel sessions
 * queue on its lock and invalidated every session's start-up snapshot (start-up/start-snapshot.ts).
 */
export const CACHE_REFRESH_MS = 24 * 60 * 60 * 1000;
/**
 * A cache up to this size is still read, so that one written past MAX_CACHE_BYTES (by an older
 * version) is trimmed rather than thrown away; past it, the file reads as invalid and is replaced.
 */
const SALVAGE_BYTES = 64 * 1024 * 1024;

const CachedToolSchema = Type.Object({
	name: Type.String(),
	title: Type.Optional(Type.String()),
	description: Type.String(),
	// Any object (a tool's own JSON Schema, used as the server sent it): Type.Record would test a
	// pattern against every key of every schema at each session start.
	inputSchema: Type.Unsafe<Record<string, unknown>>({ type: "object" }),
	outputSchema: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: "object" })),
	annotations: Type.Optional(
		Type.Object({
			title: Type.Optional(Type.String()),
			readOnlyHint: Type.Optional(Type.Boolean()),
			destructiveHint: Type.Optional(Type.Boolean()),
			idempotentHint: Type.Optional(Type.Boolean()),
			openWorldHint: Type.Optional(Type.Boolean()),
		}),
	),
	taskSupport: Type.Optional(Type.Union([Type.Literal("required"), Type.Literal("optional")])),
	ui: Type.Optional(
		Type.Object({
			resourceUri: Type.Optional(Type.String()),
			visibility: Type.Optional(Type.Array(Type.Union([Type.Literal("model"), Type.Literal("app")]))),
		}),
	),
});
const Described = { description: Type.Optional(Type.String()), mimeType: Type.Optional(Type.String()) };
const CachedServerSchema = Type.Object({
	name: Type.String(),
	configHash: Type.String(),
	tools: Type.Array(CachedToolSchema),
	resources: Type.Array(Type.Object({ uri: Type.String(), name: Type.String(), ...Described })),
	templates: Type.Array(
		Type.Object({
			uriTemplate: Type.String(),
			name: Type.String(),
			...Described,
			variables: Type.Array(Type.String()),
		}),
	),
	prompts: Type.Array(
		Type.Object({
			name: Type.String(),
			title: Type.Optional(Type.String()),
			description: Type.Optional(Type.String()),
			arguments: Type.Array(
				Type.Object({
					name: Type.String(),
					description: Type.Optional(Type.String()),
					required: Type.Optional(Type.Boolean()),
				}),
			),
		}),
	),
	/** Its skills as listed (SEP-2640): what Pi shows of them before any is loaded. */
	skills: Type.Optional(
		Type.Array(
			Type.Object({
				uri: Type.String(),
				name: Type.String(),
				description: Type.String(),
				files: Type.Optional(Type.Number()),
				bytes: Type.Optional(Type.Number()),
			}),
		),
	),
	cachedAt: Type.Number(),
	/** The server's `instructions` from initialize (what it is for, how to use it). */
	instructions: Type.Optional(Type.String()),
});
export type CachedServer = Static<typeof CachedServerSchema>;
type CacheFile = { version: number; servers: Record<string, CachedServer> };

/** What a server exposes, as cached. */
export interface CachedMetadata extends ServerMetadata {
	readonly tools: ToolMetadata[];
}

export interface MetadataCacheOptions {
	readonly now?: () => number;
}

/** The key of a server's entry: its name and its config identity. */
export function cacheKey(entry: ServerEntry): string {
	return `${entry.name} ${configHash(entry)}`;
}

export class MetadataCache {
	readonly path: string;
	private servers: Record<string, CachedServer>;
	private readonly dirty = new Set<string>();
	private readonly now: () => number;
	private writing: Promise<void> = Promise.resolve();
	/** The file is past its size: the next flush writes it trimmed, even with nothing new to write. */
	private trimDue: boolean;
	/** What was cut to keep the cache within its size, this session (shown by /mcp). */
	private readonly cuts = new Set<string>();
	private readonly agentDir: string;
	/** The 2.36-format copy of each entry to write (by our key), for entries 2.36 can name (a hash). */
	private readonly copies = new Map<string, { name: string; entry: Entry236 }>();
	/** Entries adopted from the former file: written at their next listing, so their 2.36 copy exists. */
	private readonly adopted = new Set<string>();

	constructor(agentDir: string, options: MetadataCacheOptions = {}) {
		this.agentDir = agentDir;
		this.path = join(agentDir, CACHE_FILE);
		this.now = options.now ?? Date.now;
		const read = readJsonFile(this.path, { maxBytes: SALVAGE_BYTES });
		this.servers = validServers(read);
		if (read === "missing") {
			this.servers = validServers(readJsonFile(join(agentDir, FORMER_CACHE_FILE), { maxBytes: SALVAGE_BYTES }));
			for (const key of Object.keys(this.servers)) this.adopted.add(key);
		}
		this.trimDue = (statSync(this.path, { throwIfNoEntry: false })?.size ?? 0) > MAX_CACHE_BYTES;
	}

	/** What was cut to keep the cache within its size this session, in words; undefined when nothing was. */
	get notice(): string | undefined {
		return this.cuts.size > 0 ? [...this.cuts].join("\n") : undefined;
	}

	/** The cached metadata of a server, if it was made by the same config and is under 7 days old. */
	lookup(entry: ServerEntry): CachedMetadata | undefined {
		const cached = this.servers[cacheKey(entry)];
		if (!cached || this.now() - cached.cachedAt > CACHE_MAX_AGE_MS) return undefined;
		const { resources, templates, prompts, skills, instructions } = cached;
		return {
			tools: cached.tools.map((t) => ({ ...t, server: entry.name })),
			resources,
			templates,
			prompts,
			...(skills ? { skills } : {}),
			instructions,
		};
	}

	/** When the server's cached metadata stops being used (7 days after it was listed), if it is cached. */
	expiresAt(entry: ServerEntry): number | undefined {
		const cached = this.servers[cacheKey(entry)];
		return cached ? cached.cachedAt + CACHE_MAX_AGE_MS : undefined;
	}

	/** Records a server's metadata and writes it (merged, locked, atomic). */
	store(entry: ServerEntry, metadata: ServerMetadata): Promise<void> {
		const key = cacheKey(entry);
		const before = this.servers[key];
		const listed: CachedServer = {
			name: entry.name,
			configHash: configHash(entry),
			// Original names only: a prefix change must not invalidate the cache.
			tools: metadata.tools.map((t) => ({
				name: t.name,
				title: t.title,
				description: t.description,
				inputSchema: { ...t.inputSchema },
				...(t.outputSchema ? { outputSchema: { ...t.outputSchema } } : {}),
				annotations: t.annotations,
				taskSupport: t.taskSupport,
				...(t.ui ? { ui: { resourceUri: t.ui.resourceUri, visibility: t.ui.visibility && [...t.ui.visibility] } } : {}),
			})),
			resources: metadata.resources.map((r) => ({ ...r })),
			templates: (metadata.templates ?? []).map((t) => ({ ...t, variables: [...t.variables] })),
			prompts: (metadata.prompts ?? []).map((p) => ({ ...p, arguments: p.arguments.map((a) => ({ ...a })) })),
			...(metadata.skills?.length ? { skills: metadata.skills.map((s) => ({ ...s })) } : {}),
			cachedAt: this.now(),
			instructions: metadata.instructions,
		};
		const { entry: next, cut } = fitListing(listed);
		if (cut) this.cuts.add(cut);
		const fresh = before && !this.dirty.has(key) && this.now() - before.cachedAt < CACHE_REFRESH_MS;
		if (fresh && sameListing(before, next) && !this.adopted.has(key)) return this.writing;
		this.adopted.delete(key);
		this.servers[key] = next;
		this.dirty.add(key);
		if (entry.compatHash) this.copies.set(key, { name: entry.name, entry: copy236(entry.compatHash, next, entry) });
		return this.flush();
	}

	/** Writes pending entries. Serialized within this process; locked across processes. */
	flush(): Promise<void> {
		const write = this.writing.then(() => this.writePending());
		// The chain goes on after a failed write (its entries are retried); the caller hears of the failure.
		this.writing = write.catch(() => undefined);
		return write;
	}

	/**
	 * The 2.36-format copies of the entries just written. Their failure is not the cache's: ours is
	 * written, and only pi-subagents' view waits for the next listing (the copy is retried then).
	 */
	private async writeCopies(keys: readonly string[]): Promise<void> {
		const entries: Record<string, Entry236> = {};
		for (const key of keys) {
			const copy = this.copies.get(key);
			if (copy) entries[copy.name] = copy.entry;
			this.copies.delete(key);
		}
		await writeCache236(this.agentDir, entries).catch(() => undefined);
	}

	private async writePending(): Promise<void> {
		if (this.dirty.size === 0 && !this.trimDue) return;
		const keys = [...this.dirty];
		this.dirty.clear();
		try {
			const written = await updateJsonFile(
				this.path,
				(raw) => ({ version: CACHE_VERSION, servers: validServers(raw) }),
				(file) => {
					for (const key of keys) file.servers[key] = this.servers[key];
					const cutoff = this.now() - CACHE_MAX_AGE_MS;
					for (const [key, server] of Object.entries(file.servers))
						if (server.cachedAt < cutoff) delete file.servers[key];
					for (const cut of trimCache(file.servers)) this.cuts.add(cut);
					return file;
				},
				{ maxBytes: SALVAGE_BYTES, keepDamaged: false, compact: true },
			);
			this.trimDue = false;
			// Copies of a damaged cache earlier versions set aside (24 MB each, one per start): not kept.
			removeSetAside(this.path);
			await this.writeCopies(keys);
			// Adopt what other sessions wrote, except entries stored here since this write began.
			for (const [key, server] of Object.entries(written.servers)) if (!this.dirty.has(key)) this.servers[key] = server;
		} catch (error) {
			for (const key of keys) this.dirty.add(key); // retried on the next flush
			throw error;
		}
	}
}

/**
 * An entry as 2.36 caches it: its hash, original tool names (with 2.36's `uiResourceUri` and
 * `uiVisibility`, by which 2.36 and pi-subagents keep a tool for its app only from the model),
 * resources unless not exposed.
 */
function copy236(hash: string, cached: CachedServer, entry: ServerEntry): Entry236 {
	return {
		configHash: hash,
		tools: cached.tools.map(({ name, description, inputSchema, ui }) => ({
			name,
			description,
			inputSchema,
			...(ui?.resourceUri ? { uiResourceUri: ui.resourceUri } : {}),
			...(ui?.visibility ? { uiVisibility: ui.visibility } : {}),
		})),
		resources: entry.exposeResources
			? cached.resources.map(({ uri, name, description }) => ({ uri, name, description }))
			: [],
		prompts: cached.prompts,
		instructions: cached.instructions,
		cachedAt: cached.cachedAt,
	};
}

/** Whether two entries hold the same listing (their times aside), as JSON writes them. */
function sameListing(a: CachedServer, b: CachedServer): boolean {
	return JSON.stringify({ ...a, cachedAt: 0 }) === JSON.stringify({ ...b, cachedAt: 0 });
}

/** The valid servers in a cache file; a bad file or another version reads as empty. */
function validServers(raw: unknown): Record<string, CachedServer> {
	const file = raw as Partial<CacheFile> | null;
	if (
		!file ||
		typeof file !== "object" ||
		file.version !== CACHE_VERSION ||
		typeof file.servers !== "object" ||
		!file.servers
	)
		return {};
	const out: Record<string, CachedServer> = {};
	for (const [key, server] of Object.entries(file.servers))
		if (checks(CachedServerSchema, server)) out[key] = server as CachedServer;
	return out;
}
