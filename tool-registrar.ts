// Direct tools: chosen MCP tools promoted to first-class Pi tools, with names that never collide
// with Pi's own tools or each other. Results are converted by tool-results.ts.
import { piParameters } from "./catalog/pi-schema.ts";
import type { CatalogTool, ToolCatalog } from "./catalog/tool-catalog.ts";
import {
	exposureOf,
	formatToolName,
	type JsonSchema,
	type McpConfig,
	piToolName,
	type ToolAnnotations,
} from "./types.ts";

/**
 * Pi's own tools on both lines (Pi 1.5 adds powershell, codemode, tool_search and the MCP resource
 * tools) and the proxy: a direct tool never takes one of these names, whatever a server calls its
 * tools, even with `toolPrefix: "none"`.
 */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([
	"read",
	"bash",
	"edit",
	"write",
	"grep",
	"find",
	"ls",
	"powershell",
	"codemode",
	"tool_search",
	"list_mcp_resources",
	"list_mcp_resource_templates",
	"read_mcp_resource",
	"mcp",
]);

/** Which tools are first-class Pi tools. */
export interface DirectSelection {
	readonly isDirect: (server: string, tool: string) => boolean;
	/** Servers with any direct tool: their tools must be known (cached) to register them. */
	readonly servers: ReadonlySet<string>;
	/** Tools asked for by name, per server, to report names a server does not have. */
	readonly named: ReadonlyMap<string, ReadonlySet<string>>;
	/** Made direct by Pi 1.5's `exposure`/`toolExposure`: named as Pi 1.5 names them (`mcp__server__tool`). */
	readonly piNamed?: (server: string, tool: string) => boolean;
}

/**
 * Which tools become direct tools: `directTools` (per server, or settings.directTools), and Pi 1.5's
 * `exposure`/`toolExposure` ("direct"), which win for the tools they name. `MCP_DIRECT_TOOLS`
 * ("server" or "server/tool", comma-separated), when set, replaces all of that for this run: the
 * way to give a subagent exactly its tools.
 */
export function directSelection(config: McpConfig, env: Readonly<Record<string, string | undefined>>): DirectSelection {
	const whole = new Set<string>();
	const named = new Map<string, Set<string>>();
	const name = (server: string, tool: string) => named.set(server, new Set([...(named.get(server) ?? []), tool]));
	const fromEnv = env.MCP_DIRECT_TOOLS;
	if (fromEnv !== undefined) {
		for (const item of fromEnv
			.split(",")
			.map((s) => s.trim())
			.filter(Boolean)) {
			const slash = item.indexOf("/");
			const server = slash < 0 ? item : item.slice(0, slash);
			if (!config.servers.has(server)) continue;
			if (slash < 0) whole.add(server);
			else name(server, item.slice(slash + 1));
		}
		return {
			isDirect: (server, tool) => whole.has(server) || (named.get(server)?.has(tool) ?? false),
			servers: new Set([...whole, ...named.keys()]),
			named,
		};
	}
	const servers = new Set<string>();
	for (const entry of config.servers.values()) {
		const choice = entry.directTools ?? config.settings.directTools;
		if (choice === true) whole.add(entry.name);
		else if (Array.isArray(choice)) for (const tool of choice) name(entry.name, tool);
		const rules = entry.exposure;
		if (
			whole.has(entry.name) ||
			named.has(entry.name) ||
			rules?.server === "direct" ||
			rules?.tools.some(([, e]) => e === "direct")
		)
			servers.add(entry.name);
	}
	const isDirect = (server: string, tool: string) => {
		// An exposure the config gives wins; directTools decides only where none does.
		const ruled = exposureOf(config.servers.get(server)?.exposure, tool);
		if (ruled !== undefined) return ruled === "direct";
		return whole.has(server) || (named.get(server)?.has(tool) ?? false);
	};
	const piNamed = (server: string, tool: string) => exposureOf(config.servers.get(server)?.exposure, tool) === "direct";
	return { isDirect, servers, named, piNamed };
}

export interface DirectTool {
	/**
	 * The Pi tool name: the catalog's name unless that is taken by Pi or another direct tool; Pi
	 * 1.5's `mcp__server__tool` for a tool its `exposure` made direct.
	 */
	readonly name: string;
	readonly tool: CatalogTool;
	readonly description: string;
	readonly parameters: JsonSchema;
	/** The server's hints (readOnly, destructive, ...), for Pi 1.5's permission extensions. */
	readonly annotations?: ToolAnnotations;
}

export interface DirectPlan {
	readonly tools: DirectTool[];
	/** Selected servers with no cached metadata yet: their direct tools wait for the next start. */
	readonly uncached: string[];
	/** Selected tool names a server does not have. */
	readonly unknown: string[];
	/** Rough cost of the definitions (chars / 4, which over-estimates by about 10%). */
	readonly tokens: number;
}

export const DIRECT_TOOLS_TOKEN_WARNING = 5000;

/** What /mcp status says of the direct tools (kept in a start-up snapshot too). */
export interface DirectSummary {
	readonly names: readonly string[];
	readonly tokens: number;
	readonly uncached: readonly string[];
	readonly unknown: readonly string[];
}

export function summarizeDirect(plan: DirectPlan): DirectSummary {
	return { names: plan.tools.map((t) => t.name), tokens: plan.tokens, uncached: plan.uncached, unknown: plan.unknown };
}

/** Direct tools from the catalog, named deterministically (config order) and never colliding. */
export function planDirectTools(
	catalog: ToolCatalog,
	selection: DirectSelection,
	serverOrder: readonly string[],
	othersTools: Iterable<string> = [],
): DirectPlan {
	// Pi's tools, and those other extensions registered before us, are never replaced.
	const taken = new Set([...RESERVED_TOOL_NAMES, ...othersTools]);
	const tools: DirectTool[] = [];
	const uncached: string[] = [];
	const unknown: string[] = [];
	for (const server of serverOrder) {
		if (!selection.servers.has(server)) continue;
		if (!catalog.has(server)) {
			uncached.push(server);
			continue;
		}
		const available = catalog.forServer(server).filter((t) => !t.resourceUri);
		for (const name of selection.named.get(server) ?? [])
			if (!available.some((t) => t.name === name)) unknown.push(`${server}/${name}`);
		for (const tool of available) {
			if (!selection.isDirect(server, tool.name)) continue;
			let name: string;
			if (selection.piNamed?.(server, tool.name)) {
				name = piToolName(server, tool.name);
				for (let n = 2; taken.has(name); n++) name = piToolName(server, tool.name, String(n));
			} else {
				name = tool.qualifiedName;
				if (taken.has(name)) name = formatToolName(server, tool.name, "server");
				for (let n = 2; taken.has(name); n++) name = formatToolName(server, `${tool.name}_${n}`, "server");
			}
			taken.add(name);
			tools.push({
				name,
				tool,
				description: tool.description || `${tool.name} (MCP server ${server})`,
				parameters: piParameters(tool.inputSchema),
				annotations: tool.annotations,
			});
		}
	}
	const tokens = Math.ceil(
		tools.reduce((sum, t) => sum + t.name.length + t.description.length + JSON.stringify(t.parameters).length, 0) / 4,
	);
	return { tools, uncached, unknown, tokens };
}
