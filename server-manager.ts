// Owns every MCP connection: connects (stdio, streamable HTTP with SSE fallback), de-duplicates
// concurrent connects, lists tools and resources across pages, calls tools, and closes without
// leaving a process behind. Nothing else in the package creates a Client.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { resolveAgentDir } from "./config.ts";
import { describeError, isAuthError, isSessionLost, redact } from "./errors.ts";
import { type AuthContext, AuthRequiredError, requestHeaders, secretsOf } from "./oauth-handler.ts";
import { killAllSync, listDescendants, terminateAll } from "./process-tree.ts";
import type { ResourcesPage, ToolsPage } from "./mcp-sdk.ts";
import type { HttpServerEntry, JsonSchema, ResourceMetadata, ServerEntry, StdioServerEntry, ToolMetadata } from "./types.ts";

type McpSdk = typeof import("./mcp-sdk.ts");
let sdkLoading: Promise<McpSdk> | undefined;
/** The SDK is imported on the first connect, keeping it out of Pi's startup (see mcp-sdk.ts). */
function loadSdk(): Promise<McpSdk> {
	sdkLoading ??= import("./mcp-sdk.ts");
	return sdkLoading;
}

export const CLIENT_INFO = { name: "pi-mcp-adapter", version: "0.1.0" } as const;
const STDERR_TAIL_BYTES = 8 * 1024;
const MAX_PAGES = 100;
const MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

export interface ServerConnection {
	readonly name: string;
	readonly entry: ServerEntry;
	readonly client: Client;
	readonly transportKind: "stdio" | "streamable-http" | "sse";
	/** Pid of the stdio child, if any. */
	readonly pid?: number;
	tools: ToolMetadata[];
	resources: ResourceMetadata[];
	readonly instructions?: string;
	status: "connected" | "closed";
	lastUsedAt: number;
	inFlight: number;
	/** The last few KB the server wrote to stderr, for error messages. */
	stderrTail(): string;
}

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
}

export type StateListener = (server: string, event: ServerEvent) => void;

export class McpServerManager {
	private readonly connections = new Map<string, ServerConnection>();
	private readonly listeners = new Set<StateListener>();
	private readonly pending = new Map<string, Promise<ServerConnection>>();
	private readonly options: ServerManagerOptions;
	private readonly now: () => number;
	private readonly auth: AuthContext;

	constructor(options: ServerManagerOptions = {}) {
		this.options = options;
		this.now = options.now ?? Date.now;
		const env = options.env ?? process.env;
		this.auth = options.auth ?? { agentDir: resolveAgentDir(env), env };
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
		await this.loadMetadata(connection);
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
		await shutdown(connection);
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
			const scrubbed = redact(message, secretsOf(connection.entry, this.auth));
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
		try {
			opened = entry.transport === "stdio" ? await this.openStdio(sdk, entry, stderr) : await this.openHttp(sdk, entry);
		} catch (error) {
			if (error instanceof AuthRequiredError) throw error;
			const tail = stderr.text().trim();
			const message = `Server "${entry.name}" failed to connect: ${describeError(error)}${tail ? `\nServer stderr:\n${tail}` : ""}`;
			// Scrubbed: a server may echo a header or an env value back in its error or stderr.
			throw new Error(redact(message, secretsOf(entry, this.auth)), { cause: error });
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
			await this.loadMetadata(connection);
		} catch (error) {
			this.connections.delete(entry.name);
			await shutdown(connection);
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

	private async openStdio({ Client, StdioClientTransport }: McpSdk, entry: StdioServerEntry, stderr: TailBuffer) {
		const env = { ...definedOnly(this.options.env ?? process.env), ...entry.env };
		const launch = this.options.launch?.(entry) ?? entry;
		const transport = new StdioClientTransport({
			command: launch.command,
			args: [...launch.args],
			env,
			cwd: entry.cwd,
			stderr: "pipe",
			// Room for one huge message (the SDK's default, 10 MB, drops the connection on a 20 MB result).
			maxBufferSize: MAX_MESSAGE_BYTES,
		});
		transport.stderr?.on("data", (chunk: Buffer) => {
			stderr.push(chunk);
			if (entry.debug) (this.options.debugLog ?? defaultDebugLog)(entry.name, chunk.toString("utf8"));
		});
		const client = new Client(CLIENT_INFO, { capabilities: {} });
		await client.connect(transport, { timeout: this.connectTimeout(entry) });
		return { client, transport, kind: "stdio" as const };
	}

	private async openHttp({ Client, SSEClientTransport, StreamableHTTPClientTransport }: McpSdk, entry: HttpServerEntry) {
		const newClient = () => new Client(CLIENT_INFO, { capabilities: {} });
		const url = new URL(entry.url);
		const requestInit: RequestInit = { headers: requestHeaders(entry, this.auth) };
		const viaSse = async () => {
			const client = newClient();
			const transport = new SSEClientTransport(url, { requestInit });
			await client.connect(transport, { timeout: this.connectTimeout(entry) });
			return { client, transport, kind: "sse" as const };
		};
		if (entry.transport === "sse") return viaSse();
		const client = newClient();
		const transport = new StreamableHTTPClientTransport(url, { requestInit });
		try {
			await client.connect(transport, { timeout: this.connectTimeout(entry) });
			return { client, transport, kind: "streamable-http" as const };
		} catch (streamableError) {
			await client.close().catch(() => undefined);
			if (isAuthError(streamableError)) throw streamableError;
			try {
				return await viaSse();
			} catch (sseError) {
				if (isAuthError(sseError)) throw sseError;
				throw new Error(`streamable HTTP: ${describeError(streamableError)}; SSE fallback: ${describeError(sseError)}`, {
					cause: streamableError,
				});
			}
		}
	}

	private connectTimeout(_entry: ServerEntry): number {
		return this.options.connectTimeoutMs ?? 30_000;
	}

	private async loadMetadata(connection: ServerConnection): Promise<void> {
		const { client, name } = connection;
		const { LenientToolsPage, LenientResourcesPage } = await loadSdk();
		const timeout = this.connectTimeout(connection.entry);
		const tools: ToolMetadata[] = [];
		let cursor: string | undefined;
		for (let page = 0; page < MAX_PAGES; page++) {
			const result: ToolsPage = await client.request(
				{ method: "tools/list", params: cursor ? { cursor } : {} },
				LenientToolsPage,
				{ timeout },
			);
			for (const tool of result.tools) {
				tools.push({
					server: name,
					name: tool.name,
					title: tool.title,
					description: tool.description ?? "",
					inputSchema: objectSchema(tool.inputSchema),
				});
			}
			cursor = result.nextCursor;
			if (!cursor) break;
		}
		const resources: ResourceMetadata[] = [];
		if (client.getServerCapabilities()?.resources) {
			cursor = undefined;
			for (let page = 0; page < MAX_PAGES; page++) {
				const result: ResourcesPage = await client.request(
					{ method: "resources/list", params: cursor ? { cursor } : {} },
					LenientResourcesPage,
					{ timeout },
				);
				for (const r of result.resources) resources.push({ uri: r.uri, name: r.name ?? r.uri, description: r.description, mimeType: r.mimeType });
				cursor = result.nextCursor;
				if (!cursor) break;
			}
		}
		connection.tools = tools;
		connection.resources = resources;
	}
}

/** A schema the model and Pi can use: always an object schema, whatever the server sent. */
function objectSchema(raw: unknown): JsonSchema {
	if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { type: "object", properties: {} };
	const schema = raw as JsonSchema;
	return schema.type === undefined ? { type: "object", ...schema } : schema;
}

async function shutdown(connection: ServerConnection): Promise<void> {
	// Descendants are listed before the close: once the wrapper dies its children are re-parented.
	const descendants = connection.pid ? listDescendants(connection.pid) : [];
	connection.client.onclose = undefined;
	await connection.client.close().catch(() => undefined);
	await terminateAll(descendants);
}

/** Timeouts and cancellations in words a user can act on. */
function explainRequestError(error: unknown, connection: ServerConnection, timeoutMs: number): unknown {
	const code = (error as { code?: unknown } | null)?.code;
	if (code === -32001 && /timed out/i.test(describeError(error))) {
		return new Error(
			`No answer from "${connection.name}" within ${Math.round(timeoutMs / 1000)} s. Raise its "timeout" (ms) or settings.requestTimeoutMs if it needs longer.`,
			{ cause: error },
		);
	}
	return error;
}

function withStderr(error: unknown, connection: ServerConnection): unknown {
	if (connection.status === "connected" || connection.transportKind !== "stdio") return error;
	const tail = connection.stderrTail().trim();
	if (!tail) return error;
	return new Error(`${describeError(error)}\nServer "${connection.name}" exited. Its stderr ended with:\n${tail}`, { cause: error });
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
	return out;
}

function defaultDebugLog(server: string, text: string): void {
	process.stderr.write(text.replace(/^(?=.)/gm, `[mcp:${server}] `));
}

/** Keeps only the last `limit` bytes written, so a chatty server cannot grow memory. */
export class TailBuffer {
	private chunks: Buffer[] = [];
	private size = 0;
	constructor(private readonly limit: number) {}
	push(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.size += chunk.length;
		while (this.size > this.limit && this.chunks.length > 1) this.size -= (this.chunks.shift() as Buffer).length;
		if (this.size > this.limit) {
			const only = this.chunks[0];
			this.chunks = [only.subarray(only.length - this.limit)];
			this.size = this.limit;
		}
	}
	text(): string {
		return Buffer.concat(this.chunks).toString("utf8");
	}
}
