// Pi 1.5: every MCP tool is a Pi tool, as Pi 1.5's own MCP registers them, so that its codemode
// scripts (`tools.mcp__everything__get_sum`), `tool_search`, permission extensions (`tool_call`
// hooks, annotations), and `--tools` allowlists reach MCP tools. Registered from the metadata
// cache at session start with no server started: a server connects inside its first call. Tools
// of servers with no cache yet are registered when they connect, and a codemode or tool_search
// call waits for the servers it may reach (its `reachesTools`) before it runs. pi 0.73 has none of
// this API: nothing here runs there (feature-tested).

import { createHash } from "node:crypto";
import { piParameters } from "../catalog/pi-schema.ts";
import type { CatalogTool } from "../catalog/tool-catalog.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import type { ToolRef } from "../proxy/calls.ts";
import type { McpResultLike } from "../proxy/tool-results.ts";
import { type Exposure, exposureOf, type JsonSchema, piToolName } from "../types.ts";
import { mcpResultSchema } from "./result-schema.ts";

/** What this needs of Pi 1.5's extension API. */
export interface Pi15ToolApi {
	registerTool(definition: Record<string, unknown>): void;
	getAllTools(): readonly {
		name: string;
		exposure?: string;
		reachesTools?: (input: Record<string, unknown>) => unknown;
	}[];
	getActiveTools(): string[];
	setActiveTools(names: string[]): void;
}

/** Pi 1.5 has an MCP API (`registerMcpServer`) and tool exposure; pi 0.73 has neither. */
export function isPi15(pi: unknown): pi is Pi15ToolApi {
	return typeof (pi as { registerMcpServer?: unknown }).registerMcpServer === "function";
}

export const CODEMODE_TOOL = "codemode";
export const TOOL_SEARCH_TOOL = "tool_search";

/** `mcp__<server>`: Pi 1.5's namespace of a server (what codemode's describeNamespace() and `reachesTools` words use). */
export function mcpNamespace(server: string): string {
	return `mcp__${server.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

/** Which MCP tool a Pi tool is: its server, its own name, and the name the proxy knows it by. */
export type { ToolRef } from "../proxy/calls.ts";

/** A server's tools as one call of a Pi tool reaches them: the content for the model, the whole result for scripts. */
export type PiToolCall = (
	tool: ToolRef,
	args: Record<string, unknown>,
	signal: AbortSignal | undefined,
	onUpdate: unknown,
	ctx: unknown,
) => Promise<{
	content: unknown[];
	details: unknown;
	isError: boolean;
	result?: McpResultLike;
}>;

/** Pi's tool exposure of an MCP exposure: `codemode` tools are `deferred` Pi tools (listed by no tool), as in Pi 1.5. */
function piExposure(exposure: Exposure): "deferred" | "direct" | "hidden" {
	return exposure === "codemode" ? "deferred" : exposure;
}

/** The fingerprint of a withdrawn tool. */
const HIDDEN = "hidden";

/** A registered Pi tool as a start-up snapshot keeps it: everything but its function. */
export interface PiToolRecord {
	readonly tool: ToolRef;
	readonly fingerprint: string;
	readonly definition: Readonly<Record<string, unknown>>;
	/** The tool's title, which a Pi definition has no place for (Pi's searches rank with it). */
	readonly title?: string;
}

/** What McpPiTools registered, to register again at the next start (start-up/start-snapshot.ts). */
export interface PiToolsState {
	readonly tools: readonly PiToolRecord[];
	readonly byServer: Readonly<Record<string, readonly string[]>>;
}

/** A short, stable digest of what a definition was made from (kept per name, and in snapshots). */
function fingerprintOf(print: string): string {
	return createHash("sha256").update(print).digest("base64url").slice(0, 22);
}

export class McpPiTools {
	/** Pi tool name → `<server>\0<tool>`: names stay unique and stable for the session. */
	private readonly owners = new Map<string, string>();
	/** The names each server's tools are registered under now. */
	private readonly byServer = new Map<string, Set<string>>();
	/** The last definition under each name, to withdraw it (hidden) when the server drops the tool. */
	private readonly definitions = new Map<string, Record<string, unknown>>();
	/** The tool each name stands for. */
	private readonly refs = new Map<string, ToolRef>();
	/**
	 * What each name was last registered as: a definition that did not change is not registered
	 * again, since every registerTool after load makes Pi rebuild its tool registry (20 servers'
	 * tools registered again cost ~60 ms of blocked event loop at each session start and connect).
	 */
	private readonly fingerprints = new Map<string, string>();
	private synced = "";
	/** Each name's tool's title, kept beside its definition (a snapshot's start has no catalog to ask). */
	private readonly titles = new Map<string, string>();

	constructor(
		private readonly pi: Pi15ToolApi,
		private readonly call: PiToolCall,
	) {}

	/** The Pi tool name of a catalog tool, once registered. */
	nameOf(tool: CatalogTool): string | undefined {
		for (const [name, owner] of this.owners) if (owner === `${tool.server}\0${tool.name}`) return name;
		return undefined;
	}

	/** The Pi tool name of a catalog tool, registering its server's tools first if they are not yet (a server just connected). */
	registeredName(runtime: McpRuntime, tool: CatalogTool): string | undefined {
		this.sync(runtime);
		return this.nameOf(tool);
	}

	/**
	 * The title of the tool a Pi tool name stands for, for Pi's searches: Pi's tool list carries a
	 * tool's annotations but no title. Known from registration, so from a snapshot's start too.
	 */
	titleOf(piName: string): string | undefined {
		return this.titles.get(piName);
	}

	/** Which tool a Pi tool name is, for the `tool_call` wait. */
	serverOf(piName: string): string | undefined {
		return this.owners.get(piName)?.split("\0", 1)[0];
	}

	/** Registers the tools of every server that may run, and withdraws those it no longer has. */
	sync(runtime: McpRuntime): void {
		const { lifecycle } = runtime;
		const allowed = lifecycle.serverNames().filter((name) => !lifecycle.blocked(name) && lifecycle.catalog.has(name));
		const signature = `${lifecycle.catalog.version}|${allowed.join(",")}`;
		if (signature === this.synced) return;
		this.synced = signature;
		for (const server of new Set([...this.byServer.keys(), ...allowed])) {
			const entry = runtime.config.servers.get(server);
			const tools =
				allowed.includes(server) && entry
					? lifecycle.catalog.forServer(server).filter((t) => !t.resourceUri && !t.resourceTemplate)
					: [];
			const namespace = {
				name: mcpNamespace(server),
				// describeNamespace("everything") finds mcp__everything, as in Pi 1.5.
				aliases: [server],
				...(entry?.description ? { description: entry.description } : {}),
				...(lifecycle.instructions(server) ? { instructions: lifecycle.instructions(server) } : {}),
			};
			const current = new Set<string>();
			const plain = tools.map((t) => piToolName(server, t.name));
			for (const tool of tools) {
				const owner = `${server}\0${tool.name}`;
				const name = this.assign(server, tool.name, owner, current, plain);
				const exposure = piExposure(exposureOf(entry?.exposure, tool.name) ?? "codemode");
				const fingerprint = fingerprintOf(
					JSON.stringify([
						tool.qualifiedName,
						tool.title,
						tool.description,
						tool.inputSchema,
						tool.outputSchema,
						tool.annotations,
						exposure,
						namespace,
					]),
				);
				if (this.fingerprints.get(name) === fingerprint) continue;
				const ref = { server, name: tool.name, qualifiedName: tool.qualifiedName };
				this.register(name, ref, this.describe(name, tool, exposure, namespace), fingerprint, tool.title);
			}
			// Tools cannot be unregistered: those the server dropped are registered again as hidden.
			for (const name of this.byServer.get(server) ?? []) {
				const previous = this.definitions.get(name);
				if (current.has(name) || !previous || this.fingerprints.get(name) === HIDDEN) continue;
				const hidden = { ...previous, exposure: "hidden" };
				this.definitions.set(name, hidden);
				this.fingerprints.set(name, HIDDEN);
				this.pi.registerTool(hidden);
			}
			this.byServer.set(server, current);
		}
	}

	/** The Pi tool names registered (withdrawn ones included: a name stays Pi's for the session). */
	names(): string[] {
		return [...this.definitions.keys()];
	}

	/** What is registered now, for the next start to register without the runtime. */
	state(): PiToolsState {
		const tools: PiToolRecord[] = [];
		for (const [name, definition] of this.definitions) {
			const tool = this.refs.get(name);
			const fingerprint = this.fingerprints.get(name);
			if (!tool || !fingerprint) continue;
			const { execute: _execute, ...plain } = definition;
			const title = this.titles.get(name);
			tools.push({ tool, fingerprint, definition: plain, ...(title ? { title } : {}) });
		}
		return { tools, byServer: Object.fromEntries([...this.byServer].map(([server, names]) => [server, [...names]])) };
	}

	/**
	 * Registers what a start-up snapshot kept, as `sync` had registered it: a later `sync` with the
	 * runtime registers only what differs from it.
	 */
	restore(state: PiToolsState): void {
		for (const { tool, fingerprint, definition, title } of state.tools) {
			const name = definition.name as string;
			this.owners.set(name, `${tool.server}\0${tool.name}`);
			this.register(name, tool, definition, fingerprint, title);
		}
		for (const [server, names] of Object.entries(state.byServer)) this.byServer.set(server, new Set(names));
	}

	/** Registers a definition (its data) with the function that calls its tool, and remembers both. */
	private register(
		name: string,
		tool: ToolRef,
		data: Readonly<Record<string, unknown>>,
		fingerprint: string,
		title: string | undefined,
	): void {
		const definition = { ...data, execute: this.executor(tool) };
		if (title) this.titles.set(name, title);
		else this.titles.delete(name);
		this.definitions.set(name, definition);
		this.refs.set(name, tool);
		this.fingerprints.set(name, fingerprint);
		this.pi.registerTool(definition);
	}

	/**
	 * The discovery tools this session's servers want, as Pi 1.5's MCP decides: `codemode` for
	 * servers with codemode tools (unless `autoEnableCodemode` is false), `tool_search` for deferred ones.
	 */
	discoveryWanted(runtime: McpRuntime): string[] {
		const exposures = new Set<Exposure>();
		for (const entry of runtime.config.servers.values()) {
			if (runtime.lifecycle.state(entry.name) === "denied") continue;
			exposures.add(entry.exposure?.server ?? "codemode");
			for (const [, exposure] of entry.exposure?.tools ?? []) exposures.add(exposure);
		}
		const wanted: string[] = [];
		if (exposures.has("codemode") && runtime.config.autoEnableCodemode !== false) wanted.push(CODEMODE_TOOL);
		if (exposures.has("deferred")) wanted.push(TOOL_SEARCH_TOOL);
		return wanted;
	}

	/**
	 * Activates the wanted discovery tools, as Pi 1.5's MCP does: only a tool of that name that
	 * declares `reachesTools` (Pi's own, or a replacement that can reach MCP tools). True when Pi's
	 * own tools reach every MCP tool the model may use, as with Pi 1.5's MCP: codemode or tool_search
	 * is active and reaches them (either reaches every `codemode` or `deferred` tool), or none is
	 * wanted (every tool `direct` or `hidden`, or no server). False only when tools would be out of
	 * reach (`autoEnableCodemode: false`, codemode not loaded): then the `mcp` tool is their way in.
	 */
	activateDiscovery(wanted: readonly string[]): boolean {
		if (wanted.length === 0) return true;
		const tools = this.pi.getAllTools();
		const reaching = (name: string) => tools.some((tool) => tool.name === name && tool.reachesTools);
		const active = this.pi.getActiveTools();
		const activate = wanted.filter((name) => reaching(name) && !active.includes(name));
		if (activate.length > 0) this.pi.setActiveTools([...active, ...activate]);
		const reachable = [...active, ...activate];
		return [CODEMODE_TOOL, TOOL_SEARCH_TOOL].some((name) => reachable.includes(name) && reaching(name));
	}

	/** Same sanitized name twice within a server: each gets a stable hash, as Pi 1.5 does. */
	private assign(server: string, tool: string, owner: string, current: Set<string>, plain: readonly string[]): string {
		let name = piToolName(server, tool);
		const clashes = (candidate: string) =>
			(this.owners.has(candidate) && this.owners.get(candidate) !== owner) || current.has(candidate);
		if (plain.indexOf(name) !== plain.lastIndexOf(name) || clashes(name)) name = piToolName(server, tool, "");
		for (let n = 2; clashes(name); n++) name = piToolName(server, tool, String(n));
		this.owners.set(name, owner);
		current.add(name);
		return name;
	}

	/** A tool's Pi definition, as data (what a snapshot keeps). */
	private describe(
		name: string,
		tool: CatalogTool,
		exposure: "deferred" | "direct" | "hidden",
		namespace: Record<string, unknown>,
	): Record<string, unknown> {
		return {
			name,
			label: `${tool.server}/${tool.name}`,
			description: tool.description.trim() || tool.title || `MCP tool ${tool.name} from server ${tool.server}`,
			// The server's JSON Schema without regexes or references (Pi's engines backtrack; the server checks them).
			parameters: piParameters(tool.inputSchema) as JsonSchema,
			// The CallToolResult scripts get, its structuredContent typed by the tool's own schema.
			outputSchema: mcpResultSchema(tool.outputSchema),
			exposure,
			namespace,
			...(hints(tool) ? { annotations: hints(tool) } : {}),
		};
	}

	/** What runs a Pi tool: a call of its MCP tool (the runtime is built then if it is not yet). */
	private executor(tool: ToolRef) {
		return async (_id: string, params: unknown, signal: AbortSignal | undefined, onUpdate: unknown, ctx: unknown) => {
			const outcome = await this.call(tool, (params ?? {}) as Record<string, unknown>, signal, onUpdate, ctx);
			// No result at all (the server could not be reached): Pi reports the thrown error.
			if (!outcome.result) {
				if (outcome.isError) throw new Error(textOf(outcome.content));
				return { content: outcome.content, details: outcome.details };
			}
			const { _meta: _dropped, ...script } = outcome.result as McpResultLike & { _meta?: unknown };
			return {
				content: outcome.content,
				details: outcome.details,
				structuredContent: script,
				...(outcome.isError ? { isError: true } : {}),
			};
		};
	}
}

/** The boolean hints of an MCP tool (what Pi 1.5's permission extensions read). */
function hints(tool: CatalogTool): Record<string, boolean> | undefined {
	const out: Record<string, boolean> = {};
	for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
		const value = tool.annotations?.[hint];
		if (typeof value === "boolean") out[hint] = value;
	}
	return Object.keys(out).length > 0 ? out : undefined;
}

function textOf(content: readonly unknown[]): string {
	return content
		.map((c) => ((c as { type?: string; text?: string }).type === "text" ? (c as { text: string }).text : ""))
		.join("\n");
}

/** Whether a call that reaches `reach` (a tool's `reachesTools`) needs `server`: all, or a word naming its namespace. */
export function reachesServer(reach: unknown, server: string): boolean {
	if (reach === "all") return true;
	const namespace = mcpNamespace(server);
	return Array.isArray(reach) && reach.some((word) => typeof word === "string" && word.includes(namespace));
}

/** Before a tool that reaches other tools runs: connect the servers it may reach that have no tools listed yet. */
export async function waitForReachedServers(
	pi: Pi15ToolApi,
	runtime: McpRuntime | undefined,
	event: { toolName: string; input: Record<string, unknown> },
	signal: AbortSignal | undefined,
): Promise<undefined> {
	if (!runtime) return undefined;
	const { lifecycle } = runtime;
	// Every call passes here: when every server's tools are listed (the usual case) there is nothing
	// to wait for, and Pi's tool list is not even built.
	const unlisted = lifecycle.serverNames().filter((name) => !lifecycle.catalog.has(name));
	if (unlisted.length === 0) return undefined;
	const reach = pi
		.getAllTools()
		.find((tool) => tool.name === event.toolName)
		?.reachesTools?.(event.input);
	if (reach === undefined) return undefined;
	// The resource tools (list_mcp_resources, ...) reach every server, as in Pi 1.5.
	const everyServer =
		Array.isArray(reach) && reach.some((word) => typeof word === "string" && word.includes("mcp_resource"));
	const names = unlisted.filter((name) => everyServer || reachesServer(reach, name));
	// As long as their connects take (an npx install included); the turn's signal ends the wait.
	if (names.length > 0) await lifecycle.ensureMetadata(names, undefined, signal);
	return undefined;
}
