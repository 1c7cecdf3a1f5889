// Shared types of the adapter, and the one rule every generated tool name follows.
import { createHash } from "node:crypto";

/** What the user approves: a hash of what runs or is contacted, and how it reads. */
export interface LaunchIdentity {
	readonly hash: string;
	/** Every line of what runs, is contacted and is sent, as written (variables unexpanded): the approval question. */
	readonly summary: string;
}

export type Lifecycle = "lazy" | "eager" | "keep-alive";
export type ToolPrefix = "server" | "short" | "none";

/** Where a server entry was defined, so every message can name the file. */
export interface ConfigSource {
	/** `extension`: registered by another Pi extension with `pi.registerMcpServer` (Pi 1.5). */
	readonly kind: "pi-global" | "pi-project" | "import" | "extension";
	/**
	 * `project`: a file in the working folder (.mcp.json, .pi/mcp.json, .cursor/mcp.json, ...),
	 * untrusted until the user approves; `user`: the user's own files.
	 */
	readonly scope: "user" | "project";
	/** The host an import came from (cursor, claude-code, ...). */
	readonly host?: string;
	readonly path: string;
}

interface ServerEntryBase {
	readonly name: string;
	readonly source: ConfigSource;
	/** What runs or is contacted, as written: what a project server's approval is for. */
	readonly launch: LaunchIdentity;
	/** Values no message may show: env and header values, tokens, what `${VAR}`s expanded to. */
	readonly secrets: readonly string[];
	readonly lifecycle: Lifecycle;
	/** Minutes idle before a lazy server is closed; undefined = the global setting. */
	readonly idleTimeout?: number;
	/** Request timeout in seconds (as Pi 1.5 reads mcp.json); undefined = settings.requestTimeoutMs. */
	readonly timeout?: number;
	readonly debug: boolean;
	/** Run a stdio server in the per-user broker, shared with other sessions; undefined = settings.shareServers. */
	readonly share?: boolean;
	/** `false`: the server is offered no roots (the client declares none to it) and keeps its own folders. */
	readonly roots?: boolean;
	readonly exposeResources: boolean;
	readonly directTools?: boolean | readonly string[];
	/** What the server offers, in a few words (config `description`): named in the `mcp` tool's description. */
	readonly description?: string;
	/** Pi 1.5's `exposure` / `toolExposure`, as how each tool reaches the model. */
	readonly exposure?: ExposureRules;
	/** 2.36's tool filters (names or globs): only the tools included, less those excluded, exist. */
	readonly includeTools?: readonly string[];
	readonly excludeTools?: readonly string[];
	/** 2.36's `approveTools`: tools that run only after the user's yes; undefined = settings.approveTools. */
	readonly approveTools?: ApproveTools;
	/** The entry's hash as pi-mcp-adapter 2.36 computes it (its `mcp-cache.json` key, which pi-subagents checks). */
	readonly compatHash?: string;
}

/** `true`: every tool asks; a list: the tools it names (globs); `false` or `[]`: none. */
export type ApproveTools = boolean | readonly string[];

/**
 * How a tool reaches the model, in Pi 1.5's words: `codemode` (scripts call it; the default),
 * `deferred` (`tool_search` loads it), `direct` (declared to the model), `hidden` (unreachable).
 * On pi 0.73, and through the `mcp` tool on both lines, codemode and deferred tools are reached by
 * `mcp`; on Pi 1.5 they are also Pi tools that codemode and tool_search reach.
 */
export type Exposure = "codemode" | "deferred" | "direct" | "hidden";

/** Whether the model reaches the tool some other way than as a declared tool (codemode, tool_search, `mcp`). */
export function reachedIndirectly(exposure: Exposure | undefined): boolean {
	return exposure === undefined || exposure === "codemode" || exposure === "deferred";
}

export interface ExposureRules {
	/** The server's default (`exposure`); undefined = codemode (or directTools). */
	readonly server?: Exposure;
	/** `toolExposure` in file order: exact names win over patterns; among patterns the first match wins. */
	readonly tools: readonly (readonly [pattern: string, exposure: Exposure])[];
}

/** A tool's exposure under its server's rules, or undefined when none says (directTools then decides). */
export function exposureOf(rules: ExposureRules | undefined, tool: string): Exposure | undefined {
	if (!rules) return undefined;
	const exact = rules.tools.find(([pattern]) => pattern === tool);
	if (exact) return exact[1];
	const matched = rules.tools.find(([pattern]) => pattern.includes("*") && piToolPattern(pattern).test(tool));
	return matched ? matched[1] : rules.server;
}

/** A Pi 1.5 tool pattern (`toolExposure` keys, `--tools`/`--exclude-tools` entries): the whole name, `*` any characters. */
export function piToolPattern(pattern: string): RegExp {
	return new RegExp(
		`^${pattern
			.split("*")
			.map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
			.join(".*")}$`,
	);
}

export interface StdioServerEntry extends ServerEntryBase {
	readonly transport: "stdio";
	readonly command: string;
	readonly args: readonly string[];
	readonly env: Readonly<Record<string, string>>;
	readonly cwd?: string;
}

export interface HttpServerEntry extends ServerEntryBase {
	/** "http" tries streamable HTTP and falls back to SSE; "sse" speaks SSE only. */
	readonly transport: "http" | "sse";
	readonly url: string;
	readonly headers: Readonly<Record<string, string>>;
	readonly auth?: "oauth" | "bearer";
	readonly bearerToken?: string;
	readonly bearerTokenEnv?: string;
	/** Pi 1.5's `oauth` client settings (clientId, clientSecret, scope, callbackPort, ...). */
	readonly oauth?: Readonly<Record<string, unknown>>;
}

export type ServerEntry = StdioServerEntry | HttpServerEntry;

export interface McpSettings {
	readonly toolPrefix: ToolPrefix;
	/** Minutes; 0 disables idle shutdown. */
	readonly idleTimeout: number;
	readonly requestTimeoutMs: number;
	/** Default for servers that do not set `directTools`. */
	readonly directTools?: boolean;
	/** The longest one request may run, however much progress it reports. */
	readonly maxTotalTimeoutMs: number;
	readonly connectTimeoutMs: number;
	/**
	 * How long a connect waits for the npm install an `npx` server needs first (its own budget: the
	 * connect deadline starts once the package is there). The install itself is never cut.
	 */
	readonly installTimeoutMs: number;
	/** The largest message accepted from a server (a stdio line, a JSON body, one SSE event). */
	readonly maxMessageMB: number;
	/** The largest tool arguments sent; bigger is refused before sending. */
	readonly maxArgumentMB: number;
	/** Limits above which text output goes to a file; `false` turns the guard off. */
	readonly outputGuard: false | { readonly maxBytes?: number; readonly maxLines?: number };
	/** Start project servers without asking (only honored in the user's own config file). */
	readonly trustProjectServers: boolean;
	/** Run stdio servers in the per-user broker, one process shared by every session (a server's `share` overrides). */
	readonly shareServers: boolean;
	/**
	 * Start a server as soon as the model's tool call names it, while the call still streams
	 * (start-up/streamed-call.ts); `false`: only when the call runs, after every permission hook let it through.
	 */
	readonly prestart: boolean;
	/**
	 * At a session's first prompt, start the servers this project's recent sessions called
	 * (start-up/warm-up.ts, start-up/server-usage.ts); `false`, or `prestart: false`: nothing is learned or
	 * started that way.
	 */
	readonly warmUp: boolean;
	/**
	 * Pi 1.5: how the model reaches MCP tools. `codemode` (when codemode is active): as Pi 1.5's own
	 * MCP, through codemode scripts with the servers listed in the system prompt, and the `mcp` tool
	 * callable from scripts but not declared; `mcp`: the `mcp` tool declared, as on pi 0.73.
	 */
	readonly surface?: "codemode" | "mcp";
	/**
	 * Folders offered to servers as roots besides the working folder (absolute, `~/`, or relative
	 * to the working folder). Only honored in the user's own config file.
	 */
	readonly roots: readonly string[];
	/** 2.36's default `approveTools` for servers that do not set their own. */
	readonly approveTools?: ApproveTools;
	/**
	 * MCP Apps: a tool result whose tool declares a `ui://` view opens it in the user's browser
	 * where Pi has an interactive UI (apps/); `false` shows none.
	 */
	readonly apps: boolean;
}

export const DEFAULT_SETTINGS: McpSettings = {
	toolPrefix: "server",
	idleTimeout: 10,
	requestTimeoutMs: 60_000,
	maxTotalTimeoutMs: 600_000,
	connectTimeoutMs: 30_000,
	installTimeoutMs: 300_000,
	maxMessageMB: 128,
	maxArgumentMB: 4,
	outputGuard: {},
	trustProjectServers: false,
	shareServers: false,
	prestart: true,
	warmUp: true,
	roots: [],
	apps: true,
};

export interface ConfigProblem {
	readonly severity: "error" | "warning";
	readonly file: string;
	readonly server?: string;
	readonly message: string;
}

/** A server the config names but that cannot run as written (an unset variable, a bad field, a broken file). */
export interface UnconfiguredServer {
	readonly name: string;
	readonly source: ConfigSource;
	/** What is wrong, as the config problem says it. */
	readonly reason: string;
}

export interface McpConfig {
	readonly servers: ReadonlyMap<string, ServerEntry>;
	/** Named in the config but not usable: listed everywhere as `needs configuration: <why>`. */
	readonly unconfigured: ReadonlyMap<string, UnconfiguredServer>;
	/** Turned off (`"enabled": false`), by name, with the file that says so: listed in /mcp, never run. */
	readonly disabled?: ReadonlyMap<string, string>;
	readonly settings: McpSettings;
	readonly problems: readonly ConfigProblem[];
	/** Pi 1.5's `autoEnableCodemode` (top level of the user's mcp.json): false keeps codemode off. */
	readonly autoEnableCodemode?: boolean;
}

/** MCP tool annotations: hints from the server, not verified (permission extensions read them). */
export interface ToolAnnotations {
	readonly title?: string;
	readonly readOnlyHint?: boolean;
	readonly destructiveHint?: boolean;
	readonly idempotentHint?: boolean;
	readonly openWorldHint?: boolean;
}

/** One callable thing of a server: an MCP tool, or a resource (template) exposed as a `get_<name>` tool. */
/** Who may reach a tool: the agent (`model`) and the app of the tool's own server (`app`). */
export type ToolAudience = "model" | "app";

/** A tool's MCP Apps declaration (`_meta.ui`, SEP-1865), as far as it is well formed (catalog/tool-ui.ts). */
export interface ToolUi {
	/** The `ui://` resource that renders the tool's results. */
	readonly resourceUri?: string;
	/** Who may reach the tool; absent means both (the spec's default). */
	readonly visibility?: readonly ToolAudience[];
}

export interface ToolMetadata {
	readonly server: string;
	/** The server's own name for it (for resources, the generated `get_<name>`). */
	readonly name: string;
	readonly title?: string;
	readonly description: string;
	readonly inputSchema: JsonSchema;
	/** The server's `outputSchema`: the shape of the tool's `structuredContent`. */
	readonly outputSchema?: JsonSchema;
	readonly annotations?: ToolAnnotations;
	/** Set for resource tools: the URI read with resources/read. */
	readonly resourceUri?: string;
	/** Set for resource-template tools: the RFC 6570 template its arguments fill in, then read. */
	readonly resourceTemplate?: string;
	/** The server's `execution.taskSupport`: "required" tools are called through the task API. */
	readonly taskSupport?: "required" | "optional";
	/** MCP Apps: the app that renders its results, and whether the model or only the app may reach it. */
	readonly ui?: ToolUi;
}

export interface ResourceMetadata {
	readonly uri: string;
	readonly name: string;
	readonly description?: string;
	readonly mimeType?: string;
}

/** A resource template (`resources/templates/list`): a family of resources read by filling in its variables. */
export interface ResourceTemplateMetadata {
	readonly uriTemplate: string;
	readonly name: string;
	readonly description?: string;
	readonly mimeType?: string;
	/** The template's variable names, in order (parsed with the SDK's UriTemplate when listed). */
	readonly variables: readonly string[];
}

/** A prompt a server offers (`prompts/list`): Pi runs it as the slash command `/<server>:<name>`. */
export interface PromptMetadata {
	readonly name: string;
	readonly title?: string;
	readonly description?: string;
	readonly arguments: readonly PromptArgument[];
}

export interface PromptArgument {
	readonly name: string;
	readonly description?: string;
	readonly required?: boolean;
}

/**
 * A skill a server publishes (SEP-2640, `skills/list`), as listed: what Pi shows of it before
 * anything of it is fetched. Its files are fetched, and checked, when the skill is loaded.
 */
export interface SkillSummary {
	/** Its `SKILL.md`'s resource URI: with the server's name, what identifies it. */
	readonly uri: string;
	readonly name: string;
	readonly description: string;
	/** How many files it has and their total size; both absent for a "dynamic" skill (no digests). */
	readonly files?: number;
	readonly bytes?: number;
}

/** Everything a server exposes, as listed at connect and cached on disk. */
export interface ServerMetadata {
	readonly tools: readonly ToolMetadata[];
	readonly resources: readonly ResourceMetadata[];
	readonly templates?: readonly ResourceTemplateMetadata[];
	readonly prompts?: readonly PromptMetadata[];
	/** The skills it publishes (servers declaring `io.modelcontextprotocol/skills`). */
	readonly skills?: readonly SkillSummary[];
	/** The server's `instructions` from initialize (what it is for, how to use it). */
	readonly instructions?: string;
	/** What the config says the server offers (its `description`): the catalog's copy only, searched with its tools. */
	readonly description?: string;
}

/** A JSON Schema as servers send it: untyped by nature. */
export type JsonSchema = { readonly [key: string]: unknown };

export const MAX_TOOL_NAME_LENGTH = 64;

/** Replaces every run of characters providers reject with one underscore. */
export function sanitizeName(raw: string): string {
	const cleaned = raw.replace(/[^A-Za-z0-9_-]+/g, "_");
	return cleaned.length > 0 ? cleaned : "_";
}

const HASH_LENGTH = 8;
const HEAD_BUDGET = MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1;
const MIN_PREFIX = 8;

function shortHash(text: string): string {
	return createHash("sha256").update(text).digest("hex").slice(0, HASH_LENGTH);
}

/** The server name as it appears in a prefix: `short` drops a `-mcp` (or `_mcp`) suffix. */
export function serverPrefix(server: string, mode: ToolPrefix): string {
	if (mode === "short") {
		const short = server.replace(/[-_]mcp$/i, "");
		return short.length > 0 ? short : server;
	}
	return server;
}

/**
 * The name a tool is known by in Pi: prefixed per the mode, sanitized, at most 64 characters.
 * When too long, the server prefix is shortened first, since the tool's own words are what the
 * model reads; the hash of the original keeps the result unique and stable.
 */
/**
 * Pi 1.5's own name for an MCP tool (`mcp__<server>__<tool>`, every character but letters, digits
 * and `_` as `_`): what a Pi 1.5 user's permission rules and `--tools 'mcp__x__*'` patterns name.
 * `salt` tells apart tools whose names come out the same; too long a name ends in a hash.
 */
export function piToolName(server: string, tool: string, salt?: string): string {
	const clean = (text: string) => text.replace(/[^A-Za-z0-9_]/g, "_");
	const full = `mcp__${clean(server)}__${clean(tool)}`;
	if (salt === undefined && full.length <= MAX_TOOL_NAME_LENGTH) return full;
	return `${full.slice(0, HEAD_BUDGET)}_${shortHash(`${server}\u0000${tool}\u0000${salt ?? ""}`)}`;
}

export function formatToolName(server: string, tool: string, mode: ToolPrefix): string {
	const prefix = mode === "none" ? "" : sanitizeName(serverPrefix(server, mode));
	const base = sanitizeName(tool);
	const full = prefix ? `${prefix}_${base}` : base;
	if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
	const keep = Math.max(MIN_PREFIX, HEAD_BUDGET - base.length - 1);
	const short = prefix ? `${prefix.slice(0, keep).replace(/[_-]+$/, "")}_${base}` : base;
	return `${short.slice(0, HEAD_BUDGET).replace(/[_-]+$/, "")}_${shortHash(`${server}\u0000${tool}\u0000${mode}`)}`;
}

export interface Progress {
	readonly progress: number;
	readonly total?: number;
	readonly message?: string;
}

/** How a connection talks to its server. */
export type TransportKind = "stdio" | "streamable-http" | "sse";
