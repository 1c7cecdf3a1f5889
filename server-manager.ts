// The pool of MCP connections: one connect at a time per server (concurrent callers share it),
// calls counted in flight, events for the lifecycle, session recovery, list_changed, and closing
// every connection without leaving a process behind. Opening one connection: server-connection.ts.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { resolveAgentDir } from "./config.ts";
import { describeError, isSessionLost } from "./errors.ts";
import { type AuthContext, AuthRequiredError } from "./oauth-handler.ts";
import { killAllSync, listDescendants } from "./process-tree.ts";
import {
	closeConnection,
	explainRequestError,
	listMetadata,
	loadSdk,
	type McpSdk,
	type OpenOptions,
	openHttp,
	openStdio,
	STDERR_TAIL_BYTES,
	type ServerConnection,
	TailBuffer,
	withStderr,
} from "./server-connection.ts";
import { Redactor } from "./redaction.ts";
import type { ServerEntry, StdioServerEntry } from "./types.ts";

export { type ServerConnection, TailBuffer } from "./server-connection.ts";

export interface CallOptions {
	readonly signal?: AbortSignal;
	readonly timeoutMs?: number;
	/** The server's progress notifications for this request. */
	readonly onProgress?: (progress: Progress) => void;
}

export interface Progress {
	readonly progress: number;
	readonly total?: number;
	readonly message?: string;
}

/** What a listener hears: a connection opened or ended, or a server's tools or resources changed. */
export type ServerEvent = "connected" | "closed" | "changed";

export interface ServerManagerOptions {
	/** Default request timeout (ms) when an entry sets none; progress from the server resets it. */
	readonly requestTimeoutMs?: number;
	/** The longest a request may run however much progress it reports (default 10 min). */
	readonly maxTotalTimeoutMs?: number;
	/** How long connecting (spawn/handshake plus the first tool list) may take (default 30 s). */
	readonly connectTimeoutMs?: number;
	readonly env?: Readonly<Record<string, string | undefined>>;
	/** Where `debug: true` servers' stderr goes; defaults to process.stderr. */
	readonly debugLog?: (server: string, text: string) => void;
	readonly now?: () => number;
	/** Where OAuth tokens are and which environment bearer tokens come from. */
	readonly auth?: AuthContext;
	/** How a stdio entry is actually started (the npx resolver rewrites npx launches). */
	readonly launch?: (entry: StdioServerEntry) => { readonly command: string; readonly args: readonly string[] };
	/** Scrubs every error message; told each secret a connection uses (defaults to one of its own). */
	readonly redactor?: Redactor;
}

export type StateListener = (server: string, event: ServerEvent) => void;

export class McpServerManager {
	private readonly connections = new Map<string, ServerConnection>();
	private readonly listeners = new Set<StateListener>();
	private readonly pending = new Map<string, Promise<ServerConnection>>();
	private readonly options: ServerManagerOptions;
	private readonly now: () => number;
	private readonly auth: AuthContext;
	/** Every message this manager produces passes it; so should everything built from them. */
	readonly redactor: Redactor;

	constructor(options: ServerManagerOptions = {}) {
		this.options = options;
		this.now = options.now ?? Date.now;
		const env = options.env ?? process.env;
		this.auth = options.auth ?? { agentDir: resolveAgentDir(env), env };
		this.redactor = options.redactor ?? new Redactor(env);
	}

	/** Tells `listener` whenever a server connects or its connection ends (crash included). */
	subscribe(listener: StateListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private emit(server: string, event: ServerEvent): void {
		for (const listener of this.listeners) listener(server, event);
	}

	get(name: string): ServerConnection | undefined {
		const connection = this.connections.get(name);
		return connection?.status === "connected" ? connection : undefined;
	}

	connectedNames(): string[] {
		return [...this.connections.values()].filter((c) => c.status === "connected").map((c) => c.name);
	}

	/** Connects, or returns the healthy connection / the connect already under way. */
	connect(entry: ServerEntry): Promise<ServerConnection> {
		const existing = this.get(entry.name);
		if (existing) return Promise.resolve(existing);
		const inFlight = this.pending.get(entry.name);
		if (inFlight) return inFlight;
		const attempt = this.open(entry).finally(() => this.pending.delete(entry.name));
		this.pending.set(entry.name, attempt);
		return attempt;
	}

	/** Lists tools and resources again (after list_changed, or on request). */
	async refresh(name: string): Promise<ServerConnection> {
		const connection = this.require(name);
		Object.assign(connection, await listMetadata(connection.client, name, this.connectTimeoutMs()));
		this.emit(name, "changed");
		return connection;
	}

	async callTool(name: string, tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
		// Counted in flight from the first moment, so an idle sweep can never close under it.
		return this.track(name, async (connection) => {
			const { CallToolResultSchema } = await loadSdk();
			return connection.client.request(
				{ method: "tools/call", params: { name: tool, arguments: args } },
				CallToolResultSchema,
				this.requestOptions(connection, options),
			);
		});
	}

	async readResource(name: string, uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
		return this.track(name, (connection) => connection.client.readResource({ uri }, this.requestOptions(connection, options)));
	}

	async close(name: string): Promise<void> {
		await this.pending.get(name)?.catch(() => undefined);
		const connection = this.connections.get(name);
		if (!connection) return;
		this.connections.delete(name);
		await closeConnection(connection);
		this.markClosed(connection);
	}

	/** Closes every connection; one server that will not close never blocks the others. */
	async closeAll(): Promise<void> {
		const names = new Set([...this.connections.keys(), ...this.pending.keys()]);
		await Promise.allSettled([...names].map((name) => this.close(name)));
	}

	/**
	 * Last resort when the process exits without an awaited shutdown: SIGKILL every stdio server
	 * and its descendants, synchronously.
	 */
	killAllSync(): void {
		for (const connection of this.connections.values()) {
			if (!connection.pid) continue;
			killAllSync([...listDescendants(connection.pid), connection.pid]);
		}
	}

	private require(name: string): ServerConnection {
		const connection = this.get(name);
		if (!connection) throw new Error(`Server "${name}" is not connected`);
		return connection;
	}

	private async track<T>(name: string, run: (connection: ServerConnection) => Promise<T>, retried = false): Promise<T> {
		const connection = this.require(name);
		connection.inFlight++;
		connection.lastUsedAt = this.now();
		try {
			return await run(connection);
		} catch (error) {
			// A streamable HTTP server that forgot our session (restarted): initialize again, retry once.
			if (!retried && connection.transportKind === "streamable-http" && isSessionLost(error)) {
				await this.close(name);
				await this.connect(connection.entry);
				return this.track(name, run, true);
			}
			const explained = withStderr(explainRequestError(error, connection, this.requestTimeout(connection)), connection);
			const message = describeError(explained);
			const scrubbed = this.redactor.scrub(message);
			throw scrubbed === message ? explained : new Error(scrubbed, { cause: explained });
		} finally {
			connection.inFlight--;
			connection.lastUsedAt = this.now();
		}
	}

	private requestTimeout(connection: ServerConnection): number {
		return connection.entry.timeout ?? this.options.requestTimeoutMs ?? 60_000;
	}

	private requestOptions(connection: ServerConnection, options: CallOptions) {
		return {
			signal: options.signal,
			timeout: options.timeoutMs ?? this.requestTimeout(connection),
			// A server that reports progress is working: each report restarts the timeout, up to a cap.
			resetTimeoutOnProgress: true,
			maxTotalTimeout: this.options.maxTotalTimeoutMs ?? 600_000,
			onprogress: options.onProgress
				? (p: { progress: number; total?: number; message?: string }) => options.onProgress?.({ progress: p.progress, total: p.total, message: p.message })
				: undefined,
		};
	}

	private async open(entry: ServerEntry): Promise<ServerConnection> {
		const stderr = new TailBuffer(STDERR_TAIL_BYTES);
		let opened: { client: Client; transport: Transport; kind: ServerConnection["transportKind"] };
		const sdk = await loadSdk();
		this.redactor.add(...entry.secrets);
		const options: OpenOptions = {
			env: this.options.env ?? process.env,
			auth: this.auth,
			redactor: this.redactor,
			connectTimeoutMs: this.connectTimeoutMs(),
			launch: this.options.launch,
			debugLog: this.options.debugLog,
		};
		try {
			opened = entry.transport === "stdio" ? await openStdio(sdk, entry, stderr, options) : await openHttp(sdk, entry, options);
		} catch (error) {
			if (error instanceof AuthRequiredError) throw error;
			const tail = stderr.text().trim();
			const message = `Server "${entry.name}" failed to connect: ${describeError(error)}${tail ? `\nServer stderr:\n${tail}` : ""}`;
			// Scrubbed: a server may echo a header or an env value back in its error or stderr.
			throw new Error(this.redactor.scrub(message), { cause: error });
		}
		const { client, transport, kind } = opened;
		const connection: ServerConnection = {
			name: entry.name,
			entry,
			client,
			transportKind: kind,
			pid: kind === "stdio" ? ((transport as { pid?: number | null }).pid ?? undefined) : undefined,
			tools: [],
			resources: [],
			instructions: client.getInstructions(),
			status: "connected",
			lastUsedAt: this.now(),
			inFlight: 0,
			stderrTail: () => stderr.text(),
		};
		client.onclose = () => this.markClosed(connection);
		this.watchListChanges(sdk, connection);
		this.connections.set(entry.name, connection);
		try {
			Object.assign(connection, await listMetadata(client, entry.name, this.connectTimeoutMs()));
		} catch (error) {
			this.connections.delete(entry.name);
			await closeConnection(connection);
			throw new Error(`Server "${entry.name}" connected but listing its tools failed: ${describeError(error)}`, { cause: error });
		}
		this.emit(entry.name, "connected");
		return connection;
	}

	/** list_changed from the server: list again (debounced), so catalog and cache follow. */
	private watchListChanges(sdk: McpSdk, connection: ServerConnection): void {
		let timer: ReturnType<typeof setTimeout> | undefined;
		const refresh = () => {
			clearTimeout(timer);
			timer = setTimeout(() => {
				if (this.get(connection.name) === connection) this.refresh(connection.name).catch(() => undefined);
			}, 100);
			timer.unref?.();
		};
		connection.client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, refresh);
		connection.client.setNotificationHandler(sdk.ResourceListChangedNotificationSchema, refresh);
	}

	private markClosed(connection: ServerConnection): void {
		if (connection.status === "closed") return;
		connection.status = "closed";
		if (this.connections.get(connection.name) === connection) this.connections.delete(connection.name);
		this.emit(connection.name, "closed");
	}

	private connectTimeoutMs(): number {
		return this.options.connectTimeoutMs ?? 30_000;
	}


}

