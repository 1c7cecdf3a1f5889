// Decides when servers connect and keeps the catalog in step with what they expose.
// The manager owns connections; this module owns the policy around them.
import type { McpServerManager, ServerConnection } from "./server-manager.ts";
import { ToolCatalog } from "./tool-catalog.ts";
import type { McpConfig } from "./types.ts";
import { describeError } from "./errors.ts";

export type ServerState = "connected" | "idle" | "failed" | "not-connected";

export interface Failure {
	readonly message: string;
	readonly at: number;
}

export interface LifecycleOptions {
	readonly config: McpConfig;
	readonly manager: McpServerManager;
	readonly now?: () => number;
	/** How many servers connect at once when several are needed. */
	readonly parallelism?: number;
}

export class ServerLifecycle {
	readonly config: McpConfig;
	readonly manager: McpServerManager;
	readonly catalog: ToolCatalog;
	private readonly failures = new Map<string, Failure>();
	private readonly now: () => number;
	private readonly parallelism: number;

	constructor(options: LifecycleOptions) {
		this.config = options.config;
		this.manager = options.manager;
		this.now = options.now ?? Date.now;
		this.parallelism = options.parallelism ?? 10;
		this.catalog = new ToolCatalog(options.config.settings.toolPrefix, [...options.config.servers.keys()]);
	}

	serverNames(): string[] {
		return [...this.config.servers.keys()];
	}

	state(name: string): ServerState {
		if (this.manager.get(name)) return "connected";
		if (this.failures.has(name)) return "failed";
		return this.catalog.has(name) ? "idle" : "not-connected";
	}

	failure(name: string): Failure | undefined {
		return this.failures.get(name);
	}

	/** Connects a configured server (or reuses its connection) and records its metadata. */
	async ensureConnected(name: string): Promise<ServerConnection> {
		const entry = this.config.servers.get(name);
		if (!entry) throw new Error(unknownServerMessage(name, this.serverNames()));
		try {
			const connection = await this.manager.connect(entry);
			this.failures.delete(name);
			this.record(connection);
			return connection;
		} catch (error) {
			this.failures.set(name, { message: describeError(error), at: this.now() });
			throw error;
		}
	}

	/** Closes and connects again, refreshing metadata. */
	async reconnect(name: string): Promise<ServerConnection> {
		if (!this.config.servers.has(name)) throw new Error(unknownServerMessage(name, this.serverNames()));
		await this.manager.close(name);
		return this.ensureConnected(name);
	}

	/** Makes sure every named server (default: all) has metadata, connecting those that lack it. */
	async ensureMetadata(names: readonly string[] = this.serverNames()): Promise<void> {
		const missing = names.filter((n) => !this.catalog.has(n));
		await mapLimit(missing, this.parallelism, (name) => this.ensureConnected(name).catch(() => undefined));
	}

	record(connection: ServerConnection): void {
		this.catalog.set(connection.name, { tools: connection.tools, resources: connection.resources }, connection.entry.exposeResources);
	}

	async shutdown(): Promise<void> {
		await this.manager.closeAll();
	}
}

export function unknownServerMessage(name: string, known: readonly string[]): string {
	return known.length === 0
		? `Unknown server "${name}": no MCP servers are configured. Add them to ~/.pi/agent/mcp.json or .pi/mcp.json.`
		: `Unknown server "${name}". Configured servers: ${known.join(", ")}`;
}

/** Runs `fn` over `items` with at most `limit` running at once. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
	const results: R[] = new Array(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const i = next++;
			results[i] = await fn(items[i]);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
	return results;
}
