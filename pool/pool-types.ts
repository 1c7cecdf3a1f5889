// The pool's shapes: what a call may ask (CallOptions), what a listener hears, what the pool is
// built with, and the Pool interface the lifecycle sees (McpServerManager is it; tests have a fake).
import type { CallToolResult, CompleteResult, GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/client";
import type { BrokerOptions } from "../broker/client.ts";
import type { AuthContext } from "../oauth-handler.ts";
import type { InstallProgress } from "../transport/npx-install.ts";
import type { Challenge, ClientRequests, Launcher, ServerConnection } from "../transport/open-connection.ts";
import type { Redactor } from "../trust/redaction.ts";
import type {
	Progress,
	PromptMetadata,
	ResourceMetadata,
	ResourceTemplateMetadata,
	ServerEntry,
	SkillSummary,
	ToolMetadata,
} from "../types.ts";

export interface CallOptions {
	readonly signal?: AbortSignal;
	readonly timeoutMs?: number;
	/** The server's progress notifications for this request. */
	readonly onProgress?: (progress: Progress) => void;
	/**
	 * The tool's listed task support: "required" is called through the 2025 task API; on the 2026
	 * wire every call to a server offering the tasks extension goes through it (transport/task-route.ts).
	 * A task's status messages come as progress.
	 */
	readonly taskSupport?: "required" | "optional";
}

/**
 * What a listener hears: a connection opened or ended, a server's tools or resources changed, or a
 * connect's wait for a package install moved on (about once a second, and when it stopped).
 */
export type ServerEvent = "connected" | "closed" | "changed" | "installing";

/** A connect under way: since when, and the package install it waits for, if any. */
export interface ConnectProgress {
	readonly since: number;
	readonly install?: InstallProgress;
}

export interface ServerManagerOptions {
	/** Default request timeout (ms) when an entry sets none; progress from the server resets it. */
	readonly requestTimeoutMs?: number;
	/** The longest a request may run however much progress it reports (default 10 min). */
	readonly maxTotalTimeoutMs?: number;
	/** How long connecting (spawn/handshake plus the first tool list) may take (default 30 s). */
	readonly connectTimeoutMs?: number;
	/** The largest message accepted from a server (default 128 MB). */
	readonly maxMessageBytes?: number;
	/** The largest arguments sent to a tool (default 4 MB): bigger is refused before sending. */
	readonly maxArgumentBytes?: number;
	readonly env?: Readonly<Record<string, string | undefined>>;
	/** Where `debug: true` servers' stderr goes; defaults to process.stderr. */
	readonly debugLog?: (server: string, text: string) => void;
	readonly now?: () => number;
	/** Where OAuth tokens are and which environment bearer tokens come from. */
	readonly auth?: AuthContext;
	/** How a stdio entry is actually started (the npx resolver rewrites npx launches). */
	readonly launch?: Launcher;
	/** Scrubs every error message; told each secret a connection uses (defaults to one of its own). */
	readonly redactor?: Redactor;
	/**
	 * Asked once when a server refuses credentials (at connect or mid-call), with the OAuth token it
	 * refused and its challenge: true when there are new credentials to retry with (a refresh).
	 */
	readonly renewCredentials?: (
		entry: ServerEntry,
		refusedToken: string | undefined,
		challenge: Challenge | undefined,
	) => Promise<boolean>;
	/** Answers to server-to-client requests (elicitation, ...): what is given is what the client declares. */
	readonly requests?: ClientRequests;
	/** Which stdio servers run in the per-user broker, shared with other sessions. */
	readonly broker?: BrokerOptions;
}

export type StateListener = (server: string, event: ServerEvent) => void;

/**
 * A pooled connection as the lifecycle sees it: its server, what it listed, how it is used, and a
 * ping for the health check (`ServerConnection` is one; a unit test's fake is another).
 */
export interface PooledConnection {
	readonly name: string;
	readonly entry: ServerEntry;
	readonly transportKind: ServerConnection["transportKind"];
	readonly shared?: boolean;
	readonly tools: readonly ToolMetadata[];
	readonly resources: readonly ResourceMetadata[];
	readonly templates: readonly ResourceTemplateMetadata[];
	readonly prompts: readonly PromptMetadata[];
	readonly skills: readonly SkillSummary[];
	readonly instructions?: string;
	readonly lastUsedAt: number;
	readonly inFlight: number;
	readonly client: { ping(options?: { timeout?: number }): Promise<unknown> };
}

/**
 * What the lifecycle needs of the pool of connections (McpServerManager is it), so the lifecycle's
 * rules (backoff, the gate, idle close, keep-alive) are tested over a typed fake without processes.
 */
export interface Pool<C extends PooledConnection = PooledConnection> {
	/** Scrubs every error message the pool produces. */
	readonly redactor: Redactor;
	subscribe(listener: StateListener): () => void;
	/** The healthy connection to a server, if there is one. */
	get(name: string): C | undefined;
	connectedNames(): string[];
	connecting(name: string): boolean;
	progress(name: string): ConnectProgress | undefined;
	challenge(name: string): Challenge | undefined;
	/** Connects, or joins the connect under way; `signal` stops only this caller's wait. */
	connect(entry: ServerEntry, signal?: AbortSignal): Promise<C>;
	/** As `connect`, resolving once the server is initialized: a call can go out while the listing goes on. */
	opened(entry: ServerEntry, signal?: AbortSignal): Promise<C>;
	/** The listing of a connect under way; undefined when none is. */
	listing(name: string): Promise<C> | undefined;
	refresh(name: string): Promise<unknown>;
	close(name: string): Promise<void>;
	closeAll(): Promise<void>;
	callTool(name: string, tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
	readResource(name: string, uri: string, options?: CallOptions): Promise<ReadResourceResult>;
	getPrompt(
		name: string,
		prompt: string,
		args: Record<string, string>,
		options?: CallOptions,
	): Promise<GetPromptResult>;
	complete(
		name: string,
		ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
		argument: { name: string; value: string },
		context: Record<string, string>,
		options?: CallOptions,
	): Promise<CompleteResult["completion"]["values"]>;
}
