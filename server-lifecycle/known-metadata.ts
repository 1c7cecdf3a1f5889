// What is known of each server's tools, resources, prompts, skills and instructions: the catalog
// (what the model is offered) and the metadata cache (what the next start offers before any
// server runs), kept in step with every listing, each string cleared of known secrets first.

import { ToolCatalog, type ToolFilter } from "../catalog/tool-catalog.ts";
import { ToolPatterns } from "../catalog/tool-patterns.ts";
import { visibleToModel } from "../catalog/tool-ui.ts";
import { describeError } from "../errors.ts";
import type { MetadataCache } from "../metadata-cache.ts";
import type { PooledConnection } from "../server-manager.ts";
import { type Redactor, scrubStrings } from "../trust/redaction.ts";
import {
	exposureOf,
	type PromptMetadata,
	type ServerEntry,
	type ServerMetadata,
	type SkillSummary,
	type ToolPrefix,
} from "../types.ts";

export interface KnownMetadataOptions {
	/** The prefix of direct tools' names (the settings', fixed for the session). */
	readonly toolPrefix: ToolPrefix;
	/** The servers' names in the config's order (the catalog lists them so). */
	readonly order: readonly string[];
	readonly cache?: MetadataCache;
	/** The scrubber every text a server sent passes (the pool's: it learns the secrets the connects use). */
	readonly redactor: () => Redactor;
	/** Told after a server's metadata was recorded (for the status line). */
	readonly onChange?: () => void;
	/** Told whenever the catalog changed (a session's search index follows it). */
	readonly onCatalogChanged?: () => void;
}

export class KnownMetadata {
	readonly catalog: ToolCatalog;
	/** Why the last write of the metadata cache failed, while it keeps failing (shown by /mcp). */
	cacheTrouble?: string;

	constructor(private readonly options: KnownMetadataOptions) {
		this.catalog = new ToolCatalog(options.toolPrefix, [...options.order]);
	}

	/** What was cut to keep the metadata cache within its size this session (shown by /mcp and the CLI). */
	get cacheNotice(): string | undefined {
		return this.options.cache?.notice;
	}

	/** Offers a server's cached listing, when the cache holds a valid one. */
	loadCached(entry: ServerEntry): void {
		const cached = this.options.cache?.lookup(entry);
		if (cached) this.set(entry, cached);
	}

	/** Withdraws a server's tools (denied, removed or changed in the config). */
	forget(name: string): void {
		this.catalog.delete(name);
		this.options.onCatalogChanged?.();
	}

	/** When the first cached listing of `entries` expires (a start-up snapshot of them holds until then). */
	cacheExpiry(entries: Iterable<ServerEntry>): number {
		let first = Number.POSITIVE_INFINITY;
		for (const entry of entries) {
			const at = this.options.cache?.expiresAt(entry);
			if (at !== undefined && at < first) first = at;
		}
		return first;
	}

	/** A server's instructions (from its last connection, or the cache), if it sent any. */
	instructions(name: string): string | undefined {
		return this.catalog.metadata(name)?.instructions;
	}

	/** A server's prompts (from its last connection, or the cache). */
	prompts(name: string): readonly PromptMetadata[] {
		return this.catalog.metadata(name)?.prompts ?? [];
	}

	/** The skills a server lists (from its last connection, or the cache). */
	skills(name: string): readonly SkillSummary[] {
		return this.catalog.metadata(name)?.skills ?? [];
	}

	/** Puts a connection's current metadata into the catalog (at once) and the cache (written async). */
	async record(connection: PooledConnection): Promise<void> {
		const redactor = this.options.redactor();
		// What a server says about itself reaches the model and the cache: no secret in it.
		const scrub = (text: string) => redactor.scrub(text);
		const scrubOptional = (text: string | undefined) => (text === undefined ? undefined : scrub(text));
		const described: ServerMetadata = {
			tools: connection.tools.map((t) => ({ ...t, description: scrub(t.description), title: scrubOptional(t.title) })),
			resources: connection.resources,
			templates: connection.templates,
			prompts: connection.prompts.map((p) => ({ ...p, description: scrubOptional(p.description) })),
			skills: connection.skills.map((s) => ({ ...s, description: scrub(s.description) })),
			instructions: scrubOptional(connection.instructions),
		};
		// A server may echo a secret anywhere (a schema's default, a resource URI, an argument's
		// text): every string is cleared of the secrets known, before the cache keeps it.
		const metadata = scrubStrings(described, (text) => redactor.scrubSecrets(text));
		this.set(connection.entry, metadata);
		this.options.onChange?.();
		try {
			await this.options.cache?.store(connection.entry, metadata);
			this.cacheTrouble = undefined;
		} catch (error) {
			// Not fatal (the catalog has the tools), but the next start would start the server again: /mcp says why.
			this.cacheTrouble = describeError(error);
		}
	}

	/**
	 * Puts a server's metadata in the catalog, without the tools its exposure hides (Pi 1.5's "hidden"),
	 * its `includeTools`/`excludeTools` leave out (2.36's), or the server meant for its app only (MCP Apps).
	 */
	private set(entry: ServerEntry, metadata: ServerMetadata): void {
		const tools = metadata.tools.filter((t) => exposureOf(entry.exposure, t.name) !== "hidden" && visibleToModel(t));
		const { includeTools, excludeTools } = entry;
		const prefix = this.options.toolPrefix;
		const filter: ToolFilter | undefined =
			includeTools?.length || excludeTools?.length
				? (all) => new ToolPatterns(entry.name, prefix, all).kept(all, includeTools, excludeTools)
				: undefined;
		const described = entry.description ? { description: entry.description } : {};
		this.catalog.set(entry.name, { ...metadata, tools, ...described }, entry.exposeResources, filter);
		this.options.onCatalogChanged?.();
	}
}
