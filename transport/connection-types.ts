// The shapes of opening a connection: what the pool holds (ServerConnection), what opening needs
// (OpenOptions, a Launcher, the broker's SharedServers), what servers may ask of the client, and what
// an opened transport hands back. Types only: loading this module loads nothing.
import type {
	Client,
	CreateMessageRequest,
	CreateMessageResult,
	ElicitRequest,
	ElicitResult,
	JSONObject,
	JSONRPCMessage,
	LoggingMessageNotification,
	Root,
	Transport,
} from "@modelcontextprotocol/client";
import type { AuthContext } from "../oauth-handler.ts";
import type { Redactor } from "../trust/redaction.ts";
import type {
	PromptMetadata,
	ResourceMetadata,
	ResourceTemplateMetadata,
	ServerEntry,
	SkillSummary,
	StdioServerEntry,
	ToolMetadata,
	TransportKind,
} from "../types.ts";
import type { InstallProgress } from "./npx-install.ts";
import type { Skill } from "./skill-client.ts";

export interface ServerConnection {
	readonly name: string;
	readonly entry: ServerEntry;
	readonly client: Client;
	readonly transportKind: TransportKind;
	/** Pid of the stdio child, if any (none for a server the broker runs). */
	readonly pid?: number;
	/** Served by the per-user broker, shared with other sessions. */
	readonly shared?: boolean;
	tools: ToolMetadata[];
	resources: ResourceMetadata[];
	templates: ResourceTemplateMetadata[];
	prompts: PromptMetadata[];
	/** Its skills (SEP-2640) as listed; the entries as sent, to check each file read against; refused entries. */
	skills: SkillSummary[];
	skillEntries: Skill[];
	skillProblems: string[];
	readonly instructions?: string;
	status: "connected" | "closed";
	lastUsedAt: number;
	inFlight: number;
	/** The last few KB the server wrote to stderr, for error messages. */
	stderrTail(): string;
	/** Why the transport itself ended the connection (a message over the limit), if it did. */
	transportFailure(): string | undefined;
	/** How a stdio server's process ended by itself ("exit code 3"), once it has. */
	exitStatus?(): string | undefined;
	/** A stdio server that stopped reading its input: the moment it takes to exit, so `exitStatus` can say how. */
	settle?(): Promise<void>;
	/** Closes the client and ends everything it opened (process tree, sockets). */
	close(): Promise<void>;
	/** The OAuth access token this connection sends, if any. */
	readonly oauthToken?: string;
	/** At process exit, when no await is possible. */
	killSync(): void;
}

/** What opening a connection needs from the manager's options. */
export interface OpenOptions {
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly auth: AuthContext;
	readonly connectTimeoutMs: number;
	readonly maxMessageBytes: number;
	readonly launch?: Launcher;
	/** Told while the launch waits for a package install (see `Launcher`). */
	readonly onInstall?: (install: InstallProgress | undefined) => void;
	readonly debugLog?: (server: string, text: string) => void;
	/** Told every credential sent, so no message shows it. */
	readonly redactor: Redactor;
	/** Where a started process registers its synchronous killer until it is closed (for process exit). */
	readonly live?: Set<() => void>;
	/** Told the WWW-Authenticate challenge of every 401/403 (step-up scope, resource metadata). */
	readonly onChallenge?: (challenge: Challenge) => void;
	/** Told the OAuth access token a connect sends, so a refusal can be matched to it. */
	readonly onCredential?: (oauthToken: string) => void;
	/** Answers to what a server may ask the client; what is given here is what the client declares it can do. */
	readonly requests?: ClientRequests;
	/** Which stdio servers run in the per-user broker, shared with other sessions. */
	readonly broker?: SharedServers;
	/** Told once the server's process began (stdio) or its first request is about to go out (HTTP, the broker). */
	readonly onLaunched?: () => void;
}

/** How a shared server is started: resolved by the session (npx, `!command` values), run by the broker. */
export interface SharedLaunch {
	readonly command: string;
	readonly args: readonly string[];
	readonly env: Readonly<Record<string, string>>;
	readonly cwd?: string;
}

/** The broker's end of a shared server: an SDK transport that can say why it failed and be dropped at once. */
export interface SharedTransport extends Transport {
	readonly failure?: string;
	destroy(): void;
}

/**
 * The per-user broker as a connection uses it, passed in (`broker/client.ts` `brokerServers` builds it):
 * the broker runs servers through this folder's stdio, so this folder cannot import it.
 */
export interface SharedServers {
	shares(entry: StdioServerEntry): boolean;
	/** A transport to the broker's copy of the server; undefined when the broker cannot serve it (then it runs here). */
	open(
		entry: StdioServerEntry,
		launch: SharedLaunch,
		limits: { readonly maxMessageBytes: number; readonly connectTimeoutMs: number },
		parse: (line: string) => JSONRPCMessage,
		signal: AbortSignal,
	): Promise<SharedTransport | undefined>;
}

/**
 * What servers may ask of the client (MCP server-to-client requests and notifications), answered
 * for one server. Each handler given is a capability the client declares.
 */
export interface ClientRequests {
	/** `elicitation/create`: ask the user for input (form) or to visit a URL. */
	readonly elicit?: (server: string, request: ElicitRequest["params"], signal: AbortSignal) => Promise<ElicitResult>;
	/** `sampling/createMessage`: a completion from the user's model, with the user's consent. */
	readonly sample?: (
		server: string,
		request: CreateMessageRequest["params"],
		signal: AbortSignal,
	) => Promise<CreateMessageResult>;
	/**
	 * `roots/list`: the folders this server may work in (read on each request: they may change), or
	 * undefined for a server offered none (decided by its entry: the client then declares no roots to it).
	 */
	readonly roots?: (entry: ServerEntry) => Root[] | undefined;
	/** `notifications/message`: the server's log messages. */
	readonly log?: (server: string, message: LoggingMessageNotification["params"]) => void;
	/** The protocol extensions the client declares it supports (SEP-1724), by identifier, with their settings. */
	readonly extensions?: Readonly<Record<string, JSONObject>>;
}

/** What a server's 401/403 said in its WWW-Authenticate header (RFC 6750, RFC 9728). */
export interface Challenge {
	readonly status: 401 | 403;
	readonly error?: string;
	readonly scope?: string;
	readonly resourceMetadataUrl?: string;
}

/** How a stdio entry is actually started (the npx resolver rewrites npx launches). */
export type Launcher = (
	entry: StdioServerEntry,
	/** Ends the caller's wait (a connect cancelled, the session ending); work it started may go on. */
	signal?: AbortSignal,
	/** Told about once a second while the launch waits for a package install, and `undefined` when it stops waiting. */
	onInstall?: (install: InstallProgress | undefined) => void,
) => Promise<Launch>;

/** The command a stdio server is started with. */
export interface Launch {
	readonly command: string;
	readonly args: readonly string[];
}

/** An open client and how to end it. */
export interface Opened {
	readonly client: Client;
	readonly kind: TransportKind;
	readonly pid?: number;
	readonly stderrTail: () => string;
	readonly transportFailure: () => string | undefined;
	readonly exitStatus?: () => string | undefined;
	readonly settle?: () => Promise<void>;
	readonly close: () => Promise<void>;
	readonly killSync: () => void;
	/** The OAuth access token this connection sent, to know whether a refusal is about it. */
	readonly oauthToken?: string;
	/** Served by the per-user broker (the server process is shared with other sessions). */
	readonly shared?: boolean;
}
