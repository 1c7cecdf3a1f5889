// Every known tool of every server (connected or not), under the name the model uses for it.
// Resolves a name from the model back to (server, original name), with close matches on a miss.

import { resourceTools, templateTools } from "../resource-tools.ts";
import { formatToolName, type ServerMetadata, serverPrefix, type ToolMetadata, type ToolPrefix } from "../types.ts";
import { closestNames } from "./closest-name.ts";

export interface CatalogTool extends ToolMetadata {
	/** The name shown to the model: prefixed, sanitized, unique across servers. */
	readonly qualifiedName: string;
}

/** Keeps the tools of one server that exist for the model. */
export type ToolFilter = (tools: readonly ToolMetadata[]) => readonly ToolMetadata[];

export type Resolution =
	| { kind: "found"; tool: CatalogTool }
	| { kind: "ambiguous"; tools: CatalogTool[] }
	| { kind: "missing"; suggestions: string[] };

export class ToolCatalog {
	private readonly servers = new Map<string, ServerMetadata & { exposeResources: boolean; filter?: ToolFilter }>();
	private tools: CatalogTool[] = [];
	private byName = new Map<string, CatalogTool>();
	private toolsOf = new Map<string, CatalogTool[]>();
	/**
	 * Each server's tools as last built, with the listing they came from: a change to one server
	 * rebuilds that server's, and the others keep theirs (the same array, the same objects), so the
	 * search index sees at once which servers changed.
	 */
	private built = new Map<
		string,
		{ readonly from: object; readonly tools: CatalogTool[]; readonly ownNames: boolean }
	>();
	/** The lists are rebuilt on first use after a change: a session start sets every server once. */
	private stale = false;
	/** Bumped on every change, so indexes built on the catalog know when to rebuild. */
	version = 0;

	constructor(
		private readonly prefix: ToolPrefix,
		/** Server order (config order) decides which server keeps a name when two collide. */
		private serverOrder: readonly string[],
	) {}

	/** The config's server order changed (a server turned on or off while the session runs). */
	reorder(serverOrder: readonly string[]): void {
		this.serverOrder = serverOrder;
		this.changed();
	}

	/** `filter`: the tools (resource tools included) that exist for the model (2.36's include/exclude). */
	set(server: string, metadata: ServerMetadata, exposeResources: boolean, filter?: ToolFilter): void {
		this.servers.set(server, { ...metadata, exposeResources, filter });
		this.changed();
	}

	delete(server: string): void {
		if (this.servers.delete(server)) this.changed();
	}

	has(server: string): boolean {
		return this.servers.has(server);
	}

	all(): readonly CatalogTool[] {
		this.build();
		return this.tools;
	}

	forServer(server: string): CatalogTool[] {
		this.build();
		return [...(this.toolsOf.get(server) ?? [])];
	}

	/** Every server's tools (servers with none left out); a server unchanged since the last change keeps its array. */
	byServer(): ReadonlyMap<string, readonly CatalogTool[]> {
		this.build();
		return this.toolsOf;
	}

	/** Everything the server is known to expose (tools as listed, before naming), if it is known. */
	metadata(server: string): ServerMetadata | undefined {
		return this.servers.get(server);
	}

	/** Finds a tool by its qualified name, or by its own name when that is unambiguous. */
	resolve(name: string, server?: string): Resolution {
		this.build();
		const exact = this.byName.get(name);
		if (exact && (!server || exact.server === server)) return { kind: "found", tool: exact };
		const pool = server ? this.forServer(server) : this.tools;
		const own = pool.filter((t) => t.name === name || formatToolName(t.server, t.name, "none") === name);
		if (own.length === 1) return { kind: "found", tool: own[0] };
		if (own.length > 1) return { kind: "ambiguous", tools: own };
		if (server) {
			const prefixed = pool.find((t) => t.qualifiedName === `${serverPrefix(server, this.prefix)}_${name}`);
			if (prefixed) return { kind: "found", tool: prefixed };
		}
		return {
			kind: "missing",
			suggestions: closestNames(
				name,
				pool.map((t) => t.qualifiedName),
			),
		};
	}

	private changed(): void {
		this.stale = true;
		this.version++;
	}

	private build(): void {
		if (!this.stale) return;
		this.stale = false;
		const position = new Map<string, number>();
		for (const [i, server] of this.serverOrder.entries()) if (!position.has(server)) position.set(server, i);
		const rank = (server: string) => position.get(server) ?? this.serverOrder.length;
		const ordered = [...this.servers.keys()].sort((a, b) => rank(a) - rank(b));
		const tools: CatalogTool[] = [];
		const byName = new Map<string, CatalogTool>();
		const toolsOf = new Map<string, CatalogTool[]>();
		const built = new Map<string, { from: object; tools: CatalogTool[]; ownNames: boolean }>();
		for (const server of ordered) {
			const meta = this.servers.get(server);
			if (!meta) continue;
			const before = this.built.get(server);
			// Its own names, none taken by a server before it: what it built last time stands.
			const reused =
				before?.from === meta && before.ownNames && !before.tools.some((t) => byName.has(t.qualifiedName))
					? before
					: this.buildServer(server, meta, byName);
			built.set(server, reused);
			for (const tool of reused.tools) {
				byName.set(tool.qualifiedName, tool);
				tools.push(tool);
			}
			if (reused.tools.length > 0) toolsOf.set(server, reused.tools);
		}
		this.tools = tools;
		this.byName = byName;
		this.toolsOf = toolsOf;
		this.built = built;
	}

	/** One server's tools under their names, given the names servers before it took. */
	private buildServer(
		server: string,
		meta: ServerMetadata & { exposeResources: boolean; filter?: ToolFilter },
		taken: ReadonlyMap<string, CatalogTool>,
	): { from: object; tools: CatalogTool[]; ownNames: boolean } {
		const own = new Set(meta.tools.map((t) => t.name));
		const all = [...meta.tools];
		if (meta.exposeResources) {
			const resources = resourceTools(server, meta.resources, own);
			for (const r of resources) own.add(r.name);
			all.push(...resources, ...templateTools(server, meta.templates ?? [], own));
		}
		const tools: CatalogTool[] = [];
		const names = new Set<string>();
		let ownNames = true;
		const isTaken = (name: string) => taken.has(name) || names.has(name);
		for (const tool of meta.filter ? meta.filter(all) : all) {
			let qualifiedName = formatToolName(server, tool.name, this.prefix);
			// A clash (prefix "none", or two names that sanitize alike) falls back to the full prefix, then a counter.
			if (isTaken(qualifiedName)) {
				ownNames = false;
				qualifiedName = formatToolName(server, tool.name, "server");
			}
			for (let n = 2; isTaken(qualifiedName); n++)
				qualifiedName = formatToolName(server, `${tool.name}_${n}`, "server");
			names.add(qualifiedName);
			tools.push({ ...tool, qualifiedName });
		}
		return { from: meta, tools, ownNames };
	}
}
