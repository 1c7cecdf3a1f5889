// Opening one MCP connection: the SDK (imported on first use), stdio with a bounded stderr tail,
// streamable HTTP with SSE fallback, listing tools and resources across pages, and closing with
// the server's whole process tree. The pool around connections is server-manager.ts.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describeError, isAuthError } from "./errors.ts";
import type { ResourcesPage, ToolsPage } from "./mcp-sdk.ts";
import { type AuthContext, requestHeaders } from "./oauth-handler.ts";
import { listDescendants, terminateAll } from "./process-tree.ts";
import type { Redactor } from "./redaction.ts";
import type { HttpServerEntry, JsonSchema, ResourceMetadata, ServerEntry, StdioServerEntry, ToolMetadata } from "./types.ts";

export type McpSdk = typeof import("./mcp-sdk.ts");
let sdkLoading: Promise<McpSdk> | undefined;
/** The SDK is imported on the first connect, keeping it out of Pi's startup (see mcp-sdk.ts). */
export function loadSdk(): Promise<McpSdk> {
	sdkLoading ??= import("./mcp-sdk.ts");
	return sdkLoading;
}

export const CLIENT_INFO = { name: "pi-mcp-adapter", version: "0.1.0" } as const;
export const STDERR_TAIL_BYTES = 8 * 1024;
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

/** What opening a connection needs from the manager's options. */
export interface OpenOptions {
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly auth: AuthContext;
	readonly connectTimeoutMs: number;
	readonly launch?: (entry: StdioServerEntry) => { readonly command: string; readonly args: readonly string[] };
	readonly debugLog?: (server: string, text: string) => void;
	/** Told every credential sent, so no message shows it. */
	readonly redactor: Redactor;
}

/** Spawns a stdio server; its stderr is kept in `stderr` (and echoed when `debug` is set). */
export async function openStdio({ Client, StdioClientTransport }: McpSdk, entry: StdioServerEntry, stderr: TailBuffer, options: OpenOptions) {
	const env = { ...definedOnly(options.env ?? process.env), ...entry.env };
	const launch = options.launch?.(entry) ?? entry;
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
		if (entry.debug) (options.debugLog ?? defaultDebugLog)(entry.name, options.redactor.scrub(chunk.toString("utf8")));
	});
	const client = new Client(CLIENT_INFO, { capabilities: {} });
	await client.connect(transport, { timeout: options.connectTimeoutMs });
	return { client, transport, kind: "stdio" as const };
}

/** Streamable HTTP first, SSE as the fallback (or SSE only for `type: "sse"`). */
export async function openHttp({ Client, SSEClientTransport, StreamableHTTPClientTransport }: McpSdk, entry: HttpServerEntry, options: OpenOptions) {
	const newClient = () => new Client(CLIENT_INFO, { capabilities: {} });
	const url = new URL(entry.url);
	const headers = requestHeaders(entry, options.auth);
	options.redactor.add(...Object.values(headers));
	const requestInit: RequestInit = { headers };
	const viaSse = async () => {
		const client = newClient();
		const transport = new SSEClientTransport(url, { requestInit });
		await client.connect(transport, { timeout: options.connectTimeoutMs });
		return { client, transport, kind: "sse" as const };
	};
	if (entry.transport === "sse") return viaSse();
	const client = newClient();
	const transport = new StreamableHTTPClientTransport(url, { requestInit });
	try {
		await client.connect(transport, { timeout: options.connectTimeoutMs });
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

/** Every tool and resource of a server, across all pages. */
export async function listMetadata(client: Client, name: string, timeout: number): Promise<{ tools: ToolMetadata[]; resources: ResourceMetadata[] }> {
	const { LenientToolsPage, LenientResourcesPage } = await loadSdk();
	const toolPages = await allPages((cursor): Promise<ToolsPage> => client.request({ method: "tools/list", params: cursorParams(cursor) }, LenientToolsPage, { timeout }));
	const tools = toolPages.flatMap((page) =>
		page.tools.map((tool) => ({ server: name, name: tool.name, title: tool.title, description: tool.description ?? "", inputSchema: objectSchema(tool.inputSchema) })),
	);
	if (!client.getServerCapabilities()?.resources) return { tools, resources: [] };
	const resourcePages = await allPages(
		(cursor): Promise<ResourcesPage> => client.request({ method: "resources/list", params: cursorParams(cursor) }, LenientResourcesPage, { timeout }),
	);
	const resources = resourcePages.flatMap((page) =>
		page.resources.map((r) => ({ uri: r.uri, name: r.name ?? r.uri, description: r.description, mimeType: r.mimeType })),
	);
	return { tools, resources };
}

const cursorParams = (cursor: string | undefined) => (cursor ? { cursor } : {});

/** Follows `nextCursor` until the server stops sending one (at most MAX_PAGES, against a loop). */
async function allPages<P extends { nextCursor?: string }>(fetch: (cursor: string | undefined) => Promise<P>): Promise<P[]> {
	const pages: P[] = [];
	let cursor: string | undefined;
	do {
		const page = await fetch(cursor);
		pages.push(page);
		cursor = page.nextCursor;
	} while (cursor && pages.length < MAX_PAGES);
	return pages;
}

/** A schema the model and Pi can use: always an object schema, whatever the server sent. */
function objectSchema(raw: unknown): JsonSchema {
	if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { type: "object", properties: {} };
	const schema = raw as JsonSchema;
	return schema.type === undefined ? { type: "object", ...schema } : schema;
}

export async function closeConnection(connection: ServerConnection): Promise<void> {
	// Descendants are listed before the close: once the wrapper dies its children are re-parented.
	const descendants = connection.pid ? listDescendants(connection.pid) : [];
	connection.client.onclose = undefined;
	await connection.client.close().catch(() => undefined);
	await terminateAll(descendants);
}

/** Timeouts and cancellations in words a user can act on. */
export function explainRequestError(error: unknown, connection: ServerConnection, timeoutMs: number): unknown {
	const code = (error as { code?: unknown } | null)?.code;
	if (code === -32001 && /timed out/i.test(describeError(error))) {
		return new Error(
			`No answer from "${connection.name}" within ${Math.round(timeoutMs / 1000)} s. Raise its "timeout" (ms) or settings.requestTimeoutMs if it needs longer.`,
			{ cause: error },
		);
	}
	return error;
}

export function withStderr(error: unknown, connection: ServerConnection): unknown {
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
