// Tool patterns as pi-mcp-adapter 2.36 matches them (`includeTools`, `excludeTools`, `approveTools`):
// exact names, or globs with `*` and `?` (case-sensitive, whole name), tried against every name a
// tool is known by in 2.36 — its own name, `<prefix>_<tool>` for the session's prefix, `<server>_`,
// the short prefix and `mcp__<server>_` — and, for a resource tool, 2.36's `read_<name>` as well as
// our `get_<name>`. Spellings of older 2.36 versions (`-` as `_`) count only when the pattern names
// no other tool of the server, as in 2.36.
import type { McpSettings, ServerEntry, ToolMetadata, ToolPrefix } from "../types.ts";

type Tool = Pick<ToolMetadata, "name" | "resourceUri" | "resourceTemplate">;

/** 2.36's server part of a name: characters providers accept kept, any other written as `_<hex>_`. */
function serverPart(server: string, legacy: boolean): string {
	const valid = legacy ? /^[A-Za-z0-9]$/ : /^[A-Za-z0-9_-]$/;
	return Array.from(server, (c) => (valid.test(c) ? c : `_${c.codePointAt(0)?.toString(16)}_`)).join("");
}

type Mode = ToolPrefix | "mcp";

function prefixOf(server: string, mode: Mode, legacy = false): string {
	if (mode === "none") return "";
	if (mode === "short") return serverPart(server.replace(/-?mcp$/i, ""), legacy) || "mcp";
	if (mode === "mcp") return `mcp__${serverPart(server, legacy)}`;
	return serverPart(server, legacy);
}

/** 2.36's `formatToolName`: dots as `_`, and a prefix the tool's name already starts with not repeated. */
function formatName(tool: string, server: string, mode: Mode): string {
	const p = prefixOf(server, mode);
	const name = tool.replace(/\./g, "_");
	if (p && name.startsWith(`${p}_`) && name.length > p.length + 1) return name;
	return p ? `${p}_${name}` : name;
}

const MODES: readonly Mode[] = ["server", "short", "mcp"];

/** The names 2.36 knows a tool by, now. */
function currentNames(tool: string, server: string, prefix: ToolPrefix): Set<string> {
	return new Set([tool, formatName(tool, server, prefix), ...MODES.map((m) => formatName(tool, server, m))]);
}

/** The spellings of older 2.36 versions. */
function legacyNames(tool: string, server: string, prefix: ToolPrefix): Set<string> {
	const underscored = tool.replace(/-/g, "_");
	const names = new Set([underscored, ...currentNames(underscored, server, prefix)]);
	for (const mode of [prefix, ...MODES]) {
		const p = prefixOf(server, mode, true);
		const legacy = tool.replace(/[.-]/g, "_");
		names.add(p ? `${p}_${legacy}` : legacy);
		names.add(formatName(tool, server, mode).replace(/-/g, "_"));
	}
	return names;
}

/** A tool's own names: a resource tool (`get_<name>` here) is also 2.36's `read_<name>`. */
function ownNames(tool: Tool): string[] {
	const isResource = tool.resourceUri !== undefined || tool.resourceTemplate !== undefined;
	return isResource && tool.name.startsWith("get_") ? [tool.name, `read_${tool.name.slice(4)}`] : [tool.name];
}

const isGlob = (pattern: string) => pattern.includes("*") || pattern.includes("?");

function globToRegExp(pattern: string): RegExp {
	const escaped = pattern
		.replace(/[.+^${}()|[\]\\]/g, "\\$&")
		.replace(/\*/g, ".*")
		.replace(/\?/g, ".");
	return new RegExp(`^${escaped}$`);
}

function matches(names: ReadonlySet<string>, pattern: string): boolean {
	if (!isGlob(pattern)) return names.has(pattern);
	const re = globToRegExp(pattern);
	for (const name of names) if (re.test(name)) return true;
	return false;
}

/** Matches tools of one server against a list of patterns, as 2.36 does. */
export class ToolPatterns {
	private readonly current = new Map<Tool, Set<string>>();

	constructor(
		private readonly server: string,
		private readonly prefix: ToolPrefix,
		/** Every tool of the server: a legacy spelling counts only when no other tool's name matches. */
		private readonly tools: readonly Tool[],
	) {}

	private names(tool: Tool): Set<string> {
		let names = this.current.get(tool);
		if (!names) {
			names = new Set(ownNames(tool).flatMap((n) => [...currentNames(n, this.server, this.prefix)]));
			this.current.set(tool, names);
		}
		return names;
	}

	/** Whether any pattern names the tool. */
	matches(tool: Tool, patterns: readonly string[]): boolean {
		const current = this.names(tool);
		if (patterns.some((p) => matches(current, p))) return true;
		const legacy = new Set(ownNames(tool).flatMap((n) => [...legacyNames(n, this.server, this.prefix)]));
		for (const name of current) legacy.delete(name);
		return patterns.some(
			(p) => matches(legacy, p) && !this.tools.some((other) => other !== tool && matches(this.names(other), p)),
		);
	}

	/** The tools `includeTools` keeps (all when it is empty or unset), less those `excludeTools` names. */
	kept<T extends Tool>(tools: readonly T[], include?: readonly string[], exclude?: readonly string[]): T[] {
		return tools.filter(
			(tool) =>
				(!include || include.length === 0 || this.matches(tool, include)) &&
				!(exclude && exclude.length > 0 && this.matches(tool, exclude)),
		);
	}
}

/** Whether the entry's `approveTools` (else the settings') names this tool: `true` names every tool. */
export function needsApproval(
	entry: ServerEntry,
	settings: McpSettings,
	tool: Tool,
	serverTools: readonly Tool[],
): boolean {
	const rule = entry.approveTools ?? settings.approveTools;
	if (rule === true) return true;
	if (!rule || rule.length === 0) return false;
	return new ToolPatterns(entry.name, settings.toolPrefix, serverTools).matches(tool, rule);
}
