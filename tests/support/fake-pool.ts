// A typed fake of the pool of connections (server-manager.ts `Pool`): servers that list what a test
// gives them, answer calls with what it scripts, fail to connect or to answer a ping on request.
// No process, no SDK: the lifecycle's and the call path's rules run over it in the unit tier.
import type { CallToolResult, ReadResourceResult } from "@modelcontextprotocol/client";
import { type LifecycleOptions, ServerLifecycle } from "../../lifecycle.ts";
import type { CallOptions, ConnectProgress, Pool, PooledConnection, StateListener } from "../../server-manager.ts";
import { Redactor } from "../../trust/redaction.ts";
import type { ResourceMetadata, ServerEntry, ToolMetadata } from "../../types.ts";
import { configOf } from "./helpers.ts";

/** What one fake server does. */
export interface FakeServer {
	/** The tools it lists (their `server` is filled in). */
	tools: Omit<ToolMetadata, "server">[];
	/** A connect fails with this error. */
	failConnect?: Error;
	/** Answers a call (or throws, as a server's error would reach the pool). */
	answer?: (tool: string, args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult>;
	/** Progress messages it reports during a call, before answering. */
	progress?: string[];
	/** A ping fails: the server stopped answering. */
	deaf?: boolean;
	/** The resources it lists (none unless told). */
	resources?: ResourceMetadata[];
}

export interface FakeConnection extends PooledConnection {
	lastUsedAt: number;
	inFlight: number;
}

export class FakePool implements Pool<FakeConnection> {
	readonly redactor = new Redactor({});
	/** Every connect asked of the pool, by server (joined ones not counted again). */
	readonly connects: string[] = [];
	/** Every call that reached a server: its server, tool and arguments. */
	readonly calls: { server: string; tool: string; args: Record<string, unknown> }[] = [];
	private readonly connections = new Map<string, FakeConnection>();
	private readonly pending = new Map<string, { promise: Promise<FakeConnection>; since: number }>();
	private readonly listeners = new Set<StateListener>();

	constructor(
		readonly servers: Record<string, FakeServer>,
		private readonly now: () => number = Date.now,
	) {}

	subscribe(listener: StateListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	get(name: string): FakeConnection | undefined {
		return this.connections.get(name);
	}

	connectedNames(): string[] {
		return [...this.connections.keys()];
	}

	connecting(name: string): boolean {
		return this.pending.has(name);
	}

	progress(name: string): ConnectProgress | undefined {
		const pending = this.pending.get(name);
		return pending ? { since: pending.since } : undefined;
	}

	challenge(): undefined {
		return undefined;
	}

	connect(entry: ServerEntry): Promise<FakeConnection> {
		const open = this.connections.get(entry.name);
		if (open) return Promise.resolve(open);
		const joined = this.pending.get(entry.name);
		if (joined) return joined.promise;
		this.connects.push(entry.name);
		const promise = this.open(entry).finally(() => this.pending.delete(entry.name));
		this.pending.set(entry.name, { promise, since: this.now() });
		return promise;
	}

	/** A fake server lists as it initializes: open is connected. */
	opened(entry: ServerEntry): Promise<FakeConnection> {
		return this.connect(entry);
	}

	listing(name: string): Promise<FakeConnection> | undefined {
		return this.pending.get(name)?.promise;
	}

	private async open(entry: ServerEntry): Promise<FakeConnection> {
		await Promise.resolve(); // a connect is never synchronous
		const server = this.servers[entry.name];
		if (!server) throw new Error(`no fake server "${entry.name}"`);
		if (server.failConnect) throw server.failConnect;
		const connection: FakeConnection = {
			name: entry.name,
			entry,
			transportKind: "stdio",
			tools: server.tools.map((tool) => ({ ...tool, server: entry.name })),
			resources: server.resources ?? [],
			templates: [],
			prompts: [],
			skills: [],
			lastUsedAt: this.now(),
			inFlight: 0,
			client: { ping: async () => (server.deaf ? Promise.reject(new Error("no answer")) : {}) },
		};
		this.connections.set(entry.name, connection);
		this.emit(entry.name, "connected");
		return connection;
	}

	async refresh(name: string): Promise<FakeConnection> {
		const connection = this.require(name);
		this.emit(name, "changed");
		return connection;
	}

	async close(name: string): Promise<void> {
		if (!this.connections.delete(name)) return;
		this.emit(name, "closed");
	}

	async closeAll(): Promise<void> {
		for (const name of [...this.connections.keys()]) await this.close(name);
	}

	async callTool(
		name: string,
		tool: string,
		args: Record<string, unknown>,
		options: CallOptions = {},
	): Promise<CallToolResult> {
		const connection = this.require(name);
		connection.inFlight++;
		connection.lastUsedAt = this.now();
		try {
			this.calls.push({ server: name, tool, args });
			for (const [i, message] of (this.servers[name]?.progress ?? []).entries())
				options.onProgress?.({ progress: i + 1, message });
			const answer = this.servers[name]?.answer;
			return answer ? await answer(tool, args) : { content: [{ type: "text", text: `${tool} done` }] };
		} finally {
			connection.inFlight--;
			connection.lastUsedAt = this.now();
		}
	}

	async readResource(name: string, uri: string): Promise<ReadResourceResult> {
		this.require(name);
		return { contents: [{ uri, text: `contents of ${uri}` }] };
	}

	async getPrompt(): Promise<never> {
		throw new Error("the fake pool has no prompts");
	}

	async complete(): Promise<never[]> {
		return [];
	}

	private require(name: string): FakeConnection {
		const connection = this.connections.get(name);
		if (!connection) throw new Error(`Server "${name}" is not connected`);
		return connection;
	}

	private emit(name: string, event: Parameters<StateListener>[1]): void {
		for (const listener of this.listeners) listener(name, event);
	}
}

/** Fake servers by name: each a stdio entry of the config (plus `entry`'s fields) and what it does. */
export type FakeEntries = Record<string, { entry?: Record<string, unknown>; server?: Partial<FakeServer> }>;

/** A real lifecycle over fake servers, each listing `tool` unless told otherwise; `now` is the pool's clock too. */
export function fakeLifecycle(
	entries: FakeEntries,
	tool: Omit<ToolMetadata, "server">,
	options: Omit<Partial<LifecycleOptions<FakeConnection>>, "config" | "manager"> = {},
): { pool: FakePool; lifecycle: ServerLifecycle<FakeConnection> } {
	const servers = Object.fromEntries(
		Object.entries(entries).map(([name, e]) => [name, { tools: [tool], ...e.server }]),
	);
	const config = configOf(
		Object.fromEntries(Object.entries(entries).map(([name, e]) => [name, { command: "fake", ...e.entry }])),
	);
	const pool = new FakePool(servers, options.now);
	return { pool, lifecycle: new ServerLifecycle({ config, manager: pool, ...options }) };
}
