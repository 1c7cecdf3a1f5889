// What reaches Pi: MCP results turned into Pi content (text stays text, images stay images,
// embedded resources, resource links and audio become readable text, structuredContent is shown
// when the server sent no text for it), and direct tools: chosen MCP tools as first-class Pi tools.
import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import type { CatalogTool, ToolCatalog } from "./tool-catalog.ts";
import { exposureOf, formatToolName, type JsonSchema, type McpConfig, type ToolAnnotations } from "./types.ts";

export type PiContent = TextContent | ImageContent;

/** The content-block shapes of the MCP spec, loosely typed: servers vary in what they send. */
interface McpBlock {
	readonly type: string;
	readonly [key: string]: unknown;
}

export interface McpResultLike {
	readonly content?: readonly McpBlock[];
	readonly structuredContent?: unknown;
	readonly isError?: boolean;
}

export function toPiContent(result: McpResultLike): PiContent[] {
	const out: PiContent[] = [];
	for (const block of result.content ?? []) out.push(...convertBlock(block));
	const hasText = out.some((c) => c.type === "text" && c.text.trim().length > 0);
	if (result.structuredContent !== undefined && !hasText) {
		out.push({ type: "text", text: JSON.stringify(result.structuredContent, null, 2) });
	}
	if (out.length === 0) out.push({ type: "text", text: result.isError ? "(the tool failed and sent no message)" : "(no output)" });
	return out;
}

function convertBlock(block: McpBlock): PiContent[] {
	switch (block.type) {
		case "text":
			return [{ type: "text", text: String(block.text ?? "") }];
		case "image":
			if (typeof block.data === "string" && typeof block.mimeType === "string") {
				return [{ type: "image", data: block.data, mimeType: block.mimeType }];
			}
			return [{ type: "text", text: "[image without data]" }];
		case "audio":
			return [{ type: "text", text: `[audio: ${String(block.mimeType ?? "unknown type")}, ${base64Size(block.data)} — audio cannot be shown to the model]` }];
		case "resource":
			return [convertEmbedded(block.resource)];
		case "resource_link": {
			const parts = [`[resource link] ${String(block.name ?? "")} ${String(block.uri ?? "")}`.trim()];
			if (block.mimeType) parts.push(`(${String(block.mimeType)})`);
			if (block.description) parts.push(`— ${String(block.description)}`);
			return [{ type: "text", text: parts.join(" ") }];
		}
		default:
			return [{ type: "text", text: JSON.stringify(block) }];
	}
}

function convertEmbedded(resource: unknown): PiContent {
	const r = (resource ?? {}) as { uri?: string; mimeType?: string; text?: string; blob?: string };
	const label = `${r.uri ?? "resource"}${r.mimeType ? ` (${r.mimeType})` : ""}`;
	if (typeof r.text === "string") return { type: "text", text: `[resource ${label}]\n${r.text}` };
	if (typeof r.blob === "string") {
		if (r.mimeType?.startsWith("image/")) return { type: "image", data: r.blob, mimeType: r.mimeType };
		return { type: "text", text: `[resource ${label}: binary, ${base64Size(r.blob)}, not shown]` };
	}
	return { type: "text", text: `[resource ${label}: empty]` };
}

function base64Size(data: unknown): string {
	if (typeof data !== "string") return "size unknown";
	const bytes = Math.floor((data.length * 3) / 4);
	return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
}

/** All text of a content list joined, for the CLI and for error messages. */
export function contentText(content: readonly PiContent[]): string {
	return content.map((c) => (c.type === "text" ? c.text : `[image ${c.mimeType}, ${base64Size(c.data)}]`)).join("\n");
}

/** Pi's own tools (and the proxy): a direct tool never takes one of these names. */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set(["read", "bash", "edit", "write", "grep", "find", "ls", "mcp"]);

/** Which tools are first-class Pi tools. */
export interface DirectSelection {
	readonly isDirect: (server: string, tool: string) => boolean;
	/** Servers with any direct tool: their tools must be known (cached) to register them. */
	readonly servers: ReadonlySet<string>;
	/** Tools asked for by name, per server, to report names a server does not have. */
	readonly named: ReadonlyMap<string, ReadonlySet<string>>;
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
		for (const item of fromEnv.split(",").map((s) => s.trim()).filter(Boolean)) {
			const slash = item.indexOf("/");
			const server = slash < 0 ? item : item.slice(0, slash);
			if (!config.servers.has(server)) continue;
			if (slash < 0) whole.add(server);
			else name(server, item.slice(slash + 1));
		}
		return { isDirect: (server, tool) => whole.has(server) || (named.get(server)?.has(tool) ?? false), servers: new Set([...whole, ...named.keys()]), named };
	}
	const servers = new Set<string>();
	for (const entry of config.servers.values()) {
		const choice = entry.directTools ?? config.settings.directTools;
		if (choice === true) whole.add(entry.name);
		else if (Array.isArray(choice)) for (const tool of choice) name(entry.name, tool);
		const rules = entry.exposure;
		if (whole.has(entry.name) || named.has(entry.name) || rules?.server === "direct" || rules?.tools.some(([, e]) => e === "direct")) servers.add(entry.name);
	}
	const isDirect = (server: string, tool: string) => {
		const ruled = exposureOf(config.servers.get(server)?.exposure, tool);
		if (ruled !== undefined && ruled !== "proxy") return ruled === "direct";
		return ruled === undefined && (whole.has(server) || (named.get(server)?.has(tool) ?? false));
	};
	return { isDirect, servers, named };
}

export interface DirectTool {
	/** The Pi tool name: the catalog's name unless that is taken by Pi or another direct tool. */
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

/** Direct tools from the catalog, named deterministically (config order) and never colliding. */
export function planDirectTools(catalog: ToolCatalog, selection: DirectSelection, serverOrder: readonly string[]): DirectPlan {
	const taken = new Set(RESERVED_TOOL_NAMES);
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
		for (const name of selection.named.get(server) ?? []) if (!available.some((t) => t.name === name)) unknown.push(`${server}/${name}`);
		for (const tool of available) {
			if (!selection.isDirect(server, tool.name)) continue;
			let name = tool.qualifiedName;
			if (taken.has(name)) name = formatToolName(server, tool.name, "server");
			for (let n = 2; taken.has(name); n++) name = formatToolName(server, `${tool.name}_${n}`, "server");
			taken.add(name);
			tools.push({ name, tool, description: tool.description || `${tool.name} (MCP server ${server})`, parameters: tool.inputSchema, annotations: tool.annotations });
		}
	}
	const tokens = Math.ceil(tools.reduce((sum, t) => sum + t.name.length + t.description.length + JSON.stringify(t.parameters).length, 0) / 4);
	return { tools, uncached, unknown, tokens };
}
