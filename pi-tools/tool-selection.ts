// What Pi's command line lets the model reach of MCP tools, read as Pi reads it, for the calls of
// an MCP App's view that no check of Pi's sees. Pi 1.5 (and 1.6) checks every tool by its name,
// `executeTool` included, but a tool for the app only has no Pi tool (one would show it to the
// model): its `--exclude-tools` and its `--tools` allowlist are applied here, as Pi applies them
// to an MCP tool (`mcp__<server>__<tool>`): excluded when `--exclude-tools` names it; left out by
// an allowlist that filters MCP tools (one naming an `mcp__` entry, or `--no-tools`) and does not
// name it. pi 0.73 has an allowlist of exact names only (`--tools`, `--no-tools`), and a view's
// calls there never pass through a Pi tool at all: the model reaches an MCP tool through `mcp`, or
// through the tool's direct Pi tool; a view's call runs only where one of those is allowed.
import { piToolName, piToolPattern, type ToolMetadata } from "../types.ts";

/** Why Pi's command line keeps a view's call of `tool` from running, or undefined when it may run. */
export type PiToolLimit = (tool: ToolMetadata, route: "as-model" | "app-only") => string | undefined;

/** The tool options of Pi's command line, as its parser takes them (the last of each wins). */
interface ToolOptions {
	readonly tools?: readonly string[];
	readonly noTools: boolean;
	readonly excludeTools?: readonly string[];
}

function toolOptions(argv: readonly string[]): ToolOptions {
	let tools: string[] | undefined;
	let excludeTools: string[] | undefined;
	let noTools = false;
	const list = (value: string) =>
		value
			.split(",")
			.map((entry) => entry.trim())
			.filter(Boolean);
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === "--no-tools" || arg === "-nt") noTools = true;
		else if ((arg === "--tools" || arg === "-t") && i + 1 < argv.length) tools = list(argv[++i]);
		else if ((arg === "--exclude-tools" || arg === "-xt") && i + 1 < argv.length) excludeTools = list(argv[++i]);
	}
	return { noTools, ...(tools ? { tools } : {}), ...(excludeTools ? { excludeTools } : {}) };
}

/** Pi 1.5's matcher of a list of tool names and `*` patterns. */
function matcher(entries: readonly string[]): (name: string) => boolean {
	const patterns = entries.map(piToolPattern);
	return (name) => patterns.some((pattern) => pattern.test(name));
}

const isModifier = (entry: string) => entry.startsWith("+") || entry.startsWith("-");

/**
 * Pi 1.5's allowlist: `--tools` of plain names and patterns; with `--no-tools`, nothing, or what
 * a `+name`/`-name` list adds to nothing. A `+`/`-` list alone changes the defaults: no allowlist.
 */
function allowlist15({ tools, noTools }: ToolOptions): readonly string[] | undefined {
	if (tools?.some(isModifier)) {
		if (!noTools) return undefined;
		const chosen: string[] = [];
		for (const entry of tools) {
			const name = entry.slice(1);
			if (entry.startsWith("+") && name && !chosen.includes(name)) chosen.push(name);
			else if (entry.startsWith("-") && chosen.includes(name)) chosen.splice(chosen.indexOf(name), 1);
		}
		return chosen;
	}
	return tools ?? (noTools ? [] : undefined);
}

/** Pi 1.5's (and 1.6's) limits on a view's calls of tools for the app only (the others go through `executeTool`). */
export function pi15ToolLimit(argv: readonly string[]): PiToolLimit {
	const options = toolOptions(argv);
	const excluded = options.excludeTools ? matcher(options.excludeTools) : () => false;
	const allowed = allowlist15(options);
	const allows = allowed ? matcher(allowed) : () => true;
	// As Pi: an allowlist leaves MCP tools alone unless it is empty or names one (`mcp__`).
	const filtersMcp = allowed !== undefined && (allowed.length === 0 || allowed.some((e) => e.startsWith("mcp__")));
	return (tool, route) => {
		if (route !== "app-only") return undefined;
		const name = piToolName(tool.server, tool.name);
		if (excluded(name)) return `${name} is excluded from this session by --exclude-tools.`;
		if (filtersMcp && !allows(name))
			return options.tools
				? `${name} is not among the tools this session's --tools allows.`
				: `${name} is off in this session: Pi started with --no-tools.`;
		return undefined;
	};
}

/**
 * pi 0.73's limits on a view's calls: with an allowlist, a call runs only when it names `mcp` (the
 * model's route to every MCP tool) or the tool's direct Pi tool (`directName`).
 */
export function pi073ToolLimit(
	argv: readonly string[],
	proxyName: string,
	directName: (tool: ToolMetadata) => string | undefined,
): PiToolLimit {
	const { tools, noTools } = toolOptions(argv);
	const allowed = tools ?? (noTools ? [] : undefined);
	if (allowed === undefined || allowed.includes(proxyName)) return () => undefined;
	return (tool) => {
		const direct = directName(tool);
		if (direct !== undefined && allowed.includes(direct)) return undefined;
		return tools
			? `"${tool.name}" of "${tool.server}" is out of this session's reach: --tools names neither ${proxyName} nor a tool of its own.`
			: `"${tool.name}" of "${tool.server}" is off in this session: Pi started with --no-tools.`;
	};
}
