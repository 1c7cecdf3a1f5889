// pi-mcp-adapter 2.36's config, read as 2.36 reads it: its shared user files (~/.config/mcp/mcp.json,
// ~/.agents/mcp.json, ~/.agents/mcp/mcp.json, below the Pi file), its keys mapped to ours where they
// have a meaning here (requestTimeoutMs, lazy-keep-alive, auth/oauth false, directTools "search",
// the "mcp-servers" alias, its settings' values), and dropped with a reason where they have none.
// Also 2.36's cache hash of an entry (`computeServerHash`), which pi-subagents checks against
// 2.36's `mcp-cache.json` (metadata-cache.ts writes a copy in that format).
import { createHash } from "node:crypto";
import { join } from "node:path";

type Obj = Record<string, unknown>;
type Env = Readonly<Record<string, string | undefined>>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** 2.36's user-global files, lowest precedence first: each below the Pi file (`join(homedir(), ...)`, not XDG). */
export function sharedConfigPaths(home: string): string[] {
	return [
		join(home, ".config", "mcp", "mcp.json"),
		join(home, ".agents", "mcp.json"),
		join(home, ".agents", "mcp", "mcp.json"),
	];
}

/**
 * 2.36's server keys with no meaning here, and why (said once per entry that sets one to a value
 * that would change what runs). Keys that only tune 2.36's own UI or protocol choices are taken quietly.
 */
const UNSUPPORTED_SERVER_KEYS: Readonly<Record<string, string>> = {
	socket: "rmcp-mux sockets are not supported; share a stdio server with `share: true` (the per-user broker)",
	requestHeadersCommand: "a command signing each HTTP request is not supported; use headers with ${VAR} or !command",
	caFile: "a per-server CA bundle is not supported; set NODE_EXTRA_CA_CERTS for Pi",
	bearerTokenStore: "there is no keyring here; set bearerTokenEnv to a variable holding the token",
	toolPrefix: "the prefix is one setting for every server here (settings.toolPrefix)",
};
/** 2.36's server keys taken without a word: they tune what this adapter decides itself. */
const QUIET_SERVER_KEYS = [
	"protocolVersion",
	"tasks",
	"trace",
	"searchKeywords",
	"httpTransport",
	"pluginDataDir",
	"literalEnv",
];

/** 2.36's settings with no meaning here, and why; a user's file keeps working with them in place. */
const UNSUPPORTED_SETTINGS: Readonly<Record<string, string>> = {
	hostConfigDiscovery: 'host configs are read only when named in "imports"',
	ancestorConfigRoots: "only the working folder's .mcp.json and .pi/mcp.json are read",
	agentPluginPaths: "Agent Plugins are not loaded",
	autoAuth: "a tool call never opens a browser here; sign in with /mcp-auth",
};
const QUIET_SETTINGS = [
	"namespaceProxyTools",
	"scriptMode",
	"disableProxyTool",
	"freezeDirectTools",
	"strictDirectToolArguments",
	"directToolResultDetails",
	"warnOnLargeDirectTools",
	"sampling",
	"samplingAutoApprove",
	"elicitation",
	"showStatusIcon",
	"mcpFooterStatus",
	"notifyOnStartupConnect",
	"toolResultRendering",
	"collapsedResultLines",
	"trace",
	"authRequiredMessage",
	"oauthCredentialStore",
	"oauthDir",
	"jev",
];

/** A mapped value and what was said about it. */
export interface Mapped {
	readonly value: unknown;
	readonly notes: readonly string[];
}

/** A config file's top level: 2.36's `"mcp-servers"` is its alias of `mcpServers`; `claudePlugins` are not loaded. */
export function fileFrom236(data: unknown): Mapped {
	if (!isObj(data)) return { value: data, notes: [] };
	const { "mcp-servers": alias, claudePlugins, ...rest } = data;
	const notes =
		claudePlugins === undefined ? [] : ['"claudePlugins" ignored: Claude plugin bundles are not loaded here'];
	if (alias === undefined || rest.mcpServers !== undefined) return { value: rest, notes };
	return { value: { ...rest, mcpServers: alias }, notes };
}

/** One server entry with 2.36's values mapped to ours (before the schema checks it). */
export function serverFrom236(raw: unknown): Mapped {
	if (!isObj(raw)) return { value: raw, notes: [] };
	const out: Obj = {};
	const notes: string[] = [];
	for (const [key, value] of Object.entries(raw)) {
		if (QUIET_SERVER_KEYS.includes(key)) continue;
		if (key in UNSUPPORTED_SERVER_KEYS) {
			if (value !== undefined && value !== false) notes.push(`"${key}" ignored: ${UNSUPPORTED_SERVER_KEYS[key]}`);
			continue;
		}
		out[key] = value;
	}
	// add-mcp and 2.36 write milliseconds; ours (Pi 1.5's) is seconds. 0 or less: the default.
	const ms = raw.requestTimeoutMs;
	delete out.requestTimeoutMs;
	if (typeof ms === "number" && ms > 0 && raw.timeout === undefined) out.timeout = ms / 1000;
	// Started on first use, then never closed for being idle.
	if (raw.lifecycle === "lazy-keep-alive") {
		out.lifecycle = "lazy";
		if (raw.idleTimeout === undefined) out.idleTimeout = 0;
	}
	// `false`: never sign in. A server that then asks for credentials shows as needing sign-in.
	if (raw.auth === false) delete out.auth;
	if (raw.oauth === false) delete out.oauth;
	// "search": registered only for search; here the `mcp` tool's search is that path.
	if (raw.directTools === "search") out.directTools = false;
	// `inheritEnv: false` cannot be honoured: stdio servers here inherit Pi's environment.
	if (raw.inheritEnv === false) notes.push('"inheritEnv": false ignored: servers inherit Pi\'s environment here');
	delete out.inheritEnv;
	return { value: out, notes };
}

/** A settings block with 2.36's values mapped to ours. */
export function settingsFrom236(raw: unknown): Mapped {
	if (!isObj(raw)) return { value: raw, notes: [] };
	const out: Obj = {};
	const notes: string[] = [];
	for (const [key, value] of Object.entries(raw)) {
		if (QUIET_SETTINGS.includes(key)) continue;
		if (key in UNSUPPORTED_SETTINGS) {
			if (value !== undefined && value !== false && value !== "off")
				notes.push(`"${key}" ignored: ${UNSUPPORTED_SETTINGS[key]}`);
			continue;
		}
		out[key] = value;
	}
	// 2.36's "mcp" prefix (`mcp__<server>_<tool>`) is not offered: the server prefix is the closest.
	if (raw.toolPrefix === "mcp") {
		out.toolPrefix = "server";
		notes.push('toolPrefix "mcp" read as "server" (tools are named <server>_<tool>)');
	}
	if (typeof raw.requestTimeoutMs === "number" && raw.requestTimeoutMs <= 0) delete out.requestTimeoutMs;
	if (raw.directTools === "search") out.directTools = false;
	if (raw.outputGuard === true) out.outputGuard = {};
	if (isObj(raw.outputGuard) && "detailsMaxBytes" in raw.outputGuard) {
		const { detailsMaxBytes: _unused, ...guard } = raw.outputGuard;
		out.outputGuard = guard;
	}
	return { value: out, notes };
}

/** 2.36's `${VAR}`, `$env:VAR` and `{env:VAR}`: an unset variable is "". */
function interpolate236(value: string, env: Env): string {
	return value
		.replace(/\$\{(\w+)\}/g, (_, name: string) => env[name] ?? "")
		.replace(/\$env:(\w+)/g, (_, name: string) => env[name] ?? "")
		.replace(/\{env:(\w+)\}/g, (_, name: string) => env[name] ?? "");
}

/** A `!command` value stays as written; `!!` is a literal `!`. */
function secret236(value: string, env: Env): string {
	if (value.startsWith("!!")) return interpolate236(value.slice(1), env);
	return value.startsWith("!") ? value : interpolate236(value, env);
}

function record236(value: unknown, env: Env): Obj | undefined {
	if (!isObj(value)) return undefined;
	return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === "string" ? secret236(v, env) : v]));
}

function path236(value: unknown, env: Env, home: string): string | undefined {
	if (typeof value !== "string") return undefined;
	const resolved = interpolate236(value, env);
	if (resolved === "~") return home;
	return resolved.startsWith("~/") || resolved.startsWith("~\\") ? join(home, resolved.slice(2)) : resolved;
}

/** 2.36's `stableStringify`: keys sorted, and a key whose value is undefined kept as the bare token `undefined`. */
function stable236(value: unknown): string {
	if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
	if (Array.isArray(value)) return `[${value.map(stable236).join(",")}]`;
	const object = value as Obj;
	return `{${Object.keys(object)
		.sort()
		.map((key) => `${JSON.stringify(key)}:${stable236(object[key])}`)
		.join(",")}}`;
}

/**
 * 2.36's `computeServerHash` of an entry as its file wrote it: the key of its `mcp-cache.json`
 * entries, which pi-subagents recomputes before it starts a child. Undefined where 2.36 could not
 * use the entry (a URL naming an unset variable).
 */
export function hash236(raw: unknown, env: Env, home: string): string | undefined {
	if (!isObj(raw)) return undefined;
	let url: string | undefined;
	if (raw.url != null) {
		if (typeof raw.url !== "string") return undefined;
		const names = [...raw.url.matchAll(/\$\{(\w+)\}|\$env:(\w+)|\{env:(\w+)\}/g)].map((m) => m[1] ?? m[2] ?? m[3]);
		if (names.some((name) => env[name] === undefined)) return undefined;
		url = interpolate236(raw.url, env);
	}
	const command = isObj(raw.requestHeadersCommand) ? raw.requestHeadersCommand : undefined;
	const bearerToken =
		typeof raw.bearerToken === "string"
			? secret236(raw.bearerToken, env)
			: typeof raw.bearerTokenEnv === "string" && raw.bearerTokenEnv
				? env[raw.bearerTokenEnv]
				: undefined;
	const identity = {
		command: raw.command,
		args: raw.args,
		socket: path236(raw.socket, env, home),
		env: record236(raw.env, env),
		cwd: path236(raw.cwd, env, home),
		url,
		headers: record236(raw.headers, env),
		requestHeadersCommand: command && {
			command: typeof command.command === "string" ? interpolate236(command.command, env) : command.command,
			args: Array.isArray(command.args)
				? command.args.map((a) => (typeof a === "string" ? interpolate236(a, env) : a))
				: undefined,
			env: record236(command.env, env),
			timeoutMs: command.timeoutMs,
		},
		auth: raw.auth,
		protocolVersion: raw.protocolVersion,
		bearerToken,
		bearerTokenEnv: raw.bearerTokenEnv,
		exposeResources: raw.exposeResources,
		includeTools: raw.includeTools,
		excludeTools: raw.excludeTools,
	};
	return createHash("sha256").update(stable236(identity)).digest("hex");
}
