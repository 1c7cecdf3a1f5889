// Readers for other MCP hosts' config files, each in its real shape, mapped to Pi's entry shape.
// Only the shape is translated here; validation and interpolation happen in config.ts.

import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readTextFile } from "../storage/file-guard.ts";
import { readJsoncFile } from "./jsonc-file.ts";
import { tomlParser } from "./parsers.lazy.ts";

export const IMPORT_HOSTS = [
	"cursor",
	"claude-code",
	"claude-desktop",
	"vscode",
	"windsurf",
	"codex",
	"opencode",
] as const;
export type ImportHost = (typeof IMPORT_HOSTS)[number];

export interface ImportContext {
	readonly cwd: string;
	readonly home: string;
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly platform: NodeJS.Platform;
}

/** One file read for an import: its servers in Pi's raw shape, or why it could not be used. */
export interface ImportedFile {
	readonly path: string;
	/** `project` for a file in the working folder (untrusted until approved), `user` for the user's own. */
	readonly scope: "user" | "project";
	readonly servers: Record<string, unknown>;
	readonly error?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Files are returned lowest precedence first; a later file's server wins within one host. */
export function readImport(host: ImportHost, ctx: ImportContext): ImportedFile[] {
	switch (host) {
		case "cursor":
			return [
				jsonServers(join(ctx.home, ".cursor", "mcp.json"), "user", "mcpServers"),
				jsonServers(join(ctx.cwd, ".cursor", "mcp.json"), "project", "mcpServers"),
			].filter(present);
		case "claude-code":
			// ~/.claude.json is the user's own file, project entries included (Claude Code's local scope).
			return claudeCode(join(ctx.home, ".claude.json"), ctx.cwd);
		case "claude-desktop":
			return [jsonServers(claudeDesktopPath(ctx), "user", "mcpServers")].filter(present);
		case "vscode":
			return [jsonServers(join(ctx.cwd, ".vscode", "mcp.json"), "project", "servers", fromVsCode)].filter(present);
		case "windsurf":
			return [
				jsonServers(join(ctx.home, ".codeium", "windsurf", "mcp_config.json"), "user", "mcpServers", fromWindsurf),
			].filter(present);
		case "codex":
			return [codex(join(ctx.home, ".codex", "config.toml"))].filter(present);
		case "opencode":
			// The paths pi-mcp-adapter 2.36 reads (homedir, not XDG); the project's file wins, entry by entry.
			return [
				jsonServers(join(ctx.home, ".config", "opencode", "opencode.json"), "user", "mcp", fromOpenCode),
				jsonServers(openCodeProjectFile(ctx.cwd), "project", "mcp", fromOpenCode),
			].filter(present);
	}
}

const present = (f: ImportedFile | undefined): f is ImportedFile => f !== undefined;

export function claudeDesktopPath(ctx: ImportContext): string {
	if (ctx.platform === "darwin")
		return join(ctx.home, "Library", "Application Support", "Claude", "claude_desktop_config.json");
	if (ctx.platform === "win32") {
		return join(ctx.env.APPDATA ?? join(ctx.home, "AppData", "Roaming"), "Claude", "claude_desktop_config.json");
	}
	return join(ctx.env.XDG_CONFIG_HOME ?? join(ctx.home, ".config"), "Claude", "claude_desktop_config.json");
}

function jsonServers(
	path: string,
	scope: ImportedFile["scope"],
	key: string,
	map: (e: Obj) => Obj = (e) => e,
): ImportedFile | undefined {
	const read = readJsoncFile(path);
	if (read.kind === "missing") return undefined;
	if (read.kind === "error") return { path, scope, servers: {}, error: read.message };
	if (!isObj(read.value)) return { path, scope, servers: {}, error: "not a JSON object" };
	return { path, scope, servers: mapEntries(read.value[key], map) };
}

function mapEntries(section: unknown, map: (e: Obj) => Obj): Record<string, unknown> {
	if (!isObj(section)) return {};
	return Object.fromEntries(Object.entries(section).map(([name, e]) => [name, isObj(e) ? map(e) : e]));
}

/** ~/.claude.json: user-scope `mcpServers`, plus `projects[<cwd>].mcpServers` (local scope, wins). */
function claudeCode(path: string, cwd: string): ImportedFile[] {
	const read = readJsoncFile(path);
	if (read.kind === "missing") return [];
	if (read.kind === "error") return [{ path, scope: "user", servers: {}, error: read.message }];
	if (!isObj(read.value)) return [{ path, scope: "user", servers: {}, error: "not a JSON object" }];
	const projects = isObj(read.value.projects) ? read.value.projects : {};
	const project = projects[cwd] ?? projects[cwd.replace(/\/+$/, "")];
	const local = isObj(project) ? mapEntries(project.mcpServers, fromClaudeCode) : {};
	return [{ path, scope: "user", servers: { ...mapEntries(read.value.mcpServers, fromClaudeCode), ...local } }];
}

/** Claude Code writes `type: "stdio" | "http" | "sse"`; the fields are otherwise Pi's. */
function fromClaudeCode(e: Obj): Obj {
	return withoutKeys(e, ["type"], e.type === "sse" ? { type: "sse" } : {});
}

/** VS Code: `servers`, `type` (stdio | http | sse), and an `envFile`/`inputs` we cannot honor. */
function fromVsCode(e: Obj): Obj {
	return withoutKeys(e, ["type", "envFile", "dev", "gallery", "version"], e.type === "sse" ? { type: "sse" } : {});
}

/** Windsurf names the URL of a remote server `serverUrl`. */
function fromWindsurf(e: Obj): Obj {
	if (typeof e.serverUrl === "string" && e.url === undefined)
		return withoutKeys(e, ["serverUrl", "disabledTools"], { url: e.serverUrl });
	return withoutKeys(e, ["disabledTools"], {});
}

/** The project's opencode.json: the nearest one from cwd up to the git root; without a git root, cwd's. */
function openCodeProjectFile(cwd: string): string {
	const start = resolve(cwd);
	let root: string | undefined;
	for (let dir = start; ; dir = dirname(dir)) {
		if (existsSync(join(dir, ".git"))) {
			root = dir;
			break;
		}
		if (dirname(dir) === dir) break;
	}
	if (!root) return join(start, "opencode.json");
	for (let dir = start; ; dir = dirname(dir)) {
		const file = join(dir, "opencode.json");
		if (existsSync(file) || dir === root) return file;
	}
}

/** opencode's `{env:VAR}` is `${VAR}` here. */
function fromOpenCodeVars<T>(value: T): T {
	if (typeof value === "string") return value.replace(/\{env:(\w+)\}/g, "${$1}") as T;
	if (Array.isArray(value)) return value.map(fromOpenCodeVars) as T;
	if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromOpenCodeVars(v)])) as T;
	return value;
}

/**
 * opencode: `{type: "local", command: [cmd, ...args], environment, cwd}` or `{type: "remote", url,
 * headers, oauth}`, mapped as 2.36 maps them; `enabled: false` is kept as turned off.
 */
function fromOpenCode(e: Obj): Obj {
	const out: Obj = e.enabled === false ? { disabled: true } : {};
	if (e.type === "local" && Array.isArray(e.command) && e.command.length > 0) {
		Object.assign(out, { command: e.command[0], args: e.command.slice(1) });
		if (e.environment !== undefined) out.env = e.environment;
		if (e.cwd !== undefined) out.cwd = e.cwd;
	} else if (e.type === "remote") {
		Object.assign(out, { url: e.url });
		if (e.headers !== undefined) out.headers = e.headers;
		if (isObj(e.oauth)) {
			const keys = ["clientId", "clientSecret", "clientMetadataUrl", "scope", "authServerMetadataUrl"];
			out.auth = "oauth";
			out.oauth = Object.fromEntries(
				keys.filter((k) => e.oauth && (e.oauth as Obj)[k] !== undefined).map((k) => [k, (e.oauth as Obj)[k]]),
			);
		}
	}
	return fromOpenCodeVars(out);
}

/** ~/.codex/config.toml: `[mcp_servers.<name>]` with snake_case fields. */
function codex(path: string): ImportedFile | undefined {
	const read = readTextFile(path);
	if (read.kind === "missing") return undefined;
	if (read.kind === "error") return { path, scope: "user", servers: {}, error: read.message };
	const text = read.text;
	let data: Obj;
	try {
		// Loaded only for a codex import: most sessions never read TOML, and Pi's startup is shared.
		const { parse } = tomlParser();
		data = parse(text) as Obj;
	} catch (error) {
		return { path, scope: "user", servers: {}, error: `invalid TOML: ${(error as Error).message.split("\n")[0]}` };
	}
	return { path, scope: "user", servers: mapEntries(data.mcp_servers, fromCodex) };
}

function fromCodex(e: Obj): Obj {
	const out: Obj = {};
	for (const key of ["command", "args", "env", "cwd", "url"]) if (e[key] !== undefined) out[key] = e[key];
	if (e.http_headers !== undefined) out.headers = e.http_headers;
	if (e.bearer_token_env_var !== undefined) out.bearerTokenEnv = e.bearer_token_env_var;
	if (typeof e.tool_timeout_sec === "number") out.timeout = e.tool_timeout_sec;
	if (e.enabled === false) out.disabled = true;
	return out;
}

function withoutKeys(e: Obj, drop: string[], add: Obj): Obj {
	const out: Obj = {};
	for (const [k, v] of Object.entries(e)) if (!drop.includes(k)) out[k] = v;
	return { ...out, ...add };
}
