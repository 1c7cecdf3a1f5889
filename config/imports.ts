// Readers for other MCP hosts' config files, each in its real shape, mapped to Pi's entry shape.
// Only the shape is translated here; validation and interpolation happen in config.ts.
import { createRequire } from "node:module";
import { join } from "node:path";
import { readTextFile } from "../storage/file-guard.ts";
import { readJsoncFile } from "./jsonc-file.ts";

export const IMPORT_HOSTS = ["cursor", "claude-code", "claude-desktop", "vscode", "windsurf", "codex"] as const;
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

/** ~/.codex/config.toml: `[mcp_servers.<name>]` with snake_case fields. */
function codex(path: string): ImportedFile | undefined {
	const read = readTextFile(path);
	if (read.kind === "missing") return undefined;
	if (read.kind === "error") return { path, scope: "user", servers: {}, error: read.message };
	const text = read.text;
	let data: Obj;
	try {
		// Loaded only for a codex import: most sessions never read TOML, and Pi's startup is shared.
		const { parse } = createRequire(import.meta.url)("smol-toml") as typeof import("smol-toml");
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
