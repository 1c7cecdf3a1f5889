// Direct tools as Pi tools: the MCP tools a config promotes (`directTools`, Pi 1.5's "direct"
// exposure) registered under their own names beside `mcp` (tool-registrar.ts plans them). Once
// registered a name stays for the session; a start-up snapshot registers them again at the next
// start without the runtime.
import type { McpRuntime } from "../mcp-runtime.ts";
import { renderProxyResult } from "../pi-ui/tool-render.ts";
import {
	type DirectSelection,
	type DirectSummary,
	directSelection,
	planDirectTools,
	summarizeDirect,
} from "../tool-registrar.ts";
import type { ToolRef } from "./pi-tools.ts";

/** A registered direct tool as a start-up snapshot keeps it: its definition's data and its tool. */
export interface DirectToolRecord {
	readonly tool: ToolRef;
	readonly definition: Readonly<Record<string, unknown>>;
}

export interface DirectToolsState {
	readonly tools: readonly DirectToolRecord[];
	readonly summary?: DirectSummary;
}

/** What runs a direct tool (the proxy's call path); its thrown error marks a failed call. */
export type DirectCall = (
	tool: ToolRef,
	args: unknown,
	signal: AbortSignal | undefined,
	onUpdate: unknown,
	ctx: unknown,
) => Promise<{ content: unknown[]; details: unknown }>;

interface RegisterApi {
	registerTool(definition: Record<string, unknown>): void;
	getAllTools(): readonly { name: string }[];
}

export class DirectPiTools {
	private readonly registered = new Map<string, DirectToolRecord>();
	/** What the last plan said, for /mcp status and the start's token warning. */
	summary?: DirectSummary;

	constructor(
		private readonly pi: RegisterApi,
		private readonly call: DirectCall,
		/** The proxy's own name, which a direct tool never takes. */
		private readonly proxyName: string,
		/** Pi 1.5: the tools its exposure makes direct are Pi tools already (pi-tools/pi-tools.ts). */
		private readonly piToolsRegistered: boolean,
	) {}

	/** Registers the direct tools of allowed servers that are not registered yet (at start, and after an approval). */
	sync(active: McpRuntime): void {
		const allowed = active.lifecycle.serverNames().filter((n) => !active.lifecycle.blocked(n));
		const others = this.pi
			.getAllTools()
			.map((t) => t.name)
			.filter((name) => name !== this.proxyName && !this.registered.has(name));
		const selection = directSelection(active.config, active.configEnv);
		const ours: DirectSelection = this.piToolsRegistered
			? { ...selection, isDirect: (s, t) => selection.isDirect(s, t) && !selection.piNamed?.(s, t) }
			: selection;
		const plan = planDirectTools(active.lifecycle.catalog, ours, allowed, others);
		this.summary = summarizeDirect(plan);
		for (const tool of plan.tools) {
			if (this.registered.has(tool.name)) continue;
			this.register({
				tool: { server: tool.tool.server, name: tool.tool.name, qualifiedName: tool.tool.qualifiedName },
				definition: {
					name: tool.name,
					label: `${tool.tool.server}: ${tool.tool.name}`,
					description: tool.description,
					// The server's JSON Schema: Pi validates plain JSON Schemas as well as TypeBox ones.
					parameters: tool.parameters,
					// Pi 1.5 hands these to permission extensions (pi.getAllTools()); pi 0.73 ignores them.
					...(tool.annotations ? { annotations: tool.annotations } : {}),
				},
			});
		}
	}

	/** The server a registered direct tool calls. */
	serverOf(name: string): string | undefined {
		return this.registered.get(name)?.tool.server;
	}

	/** The name of the direct tool registered for `tool` of `server`, if any. */
	nameOf(server: string, tool: string): string | undefined {
		for (const [name, record] of this.registered)
			if (record.tool.server === server && record.tool.name === tool) return name;
		return undefined;
	}

	/** The server of each registered direct tool (one entry per tool). */
	toolServers(): string[] {
		return [...this.registered.values()].map((record) => record.tool.server);
	}

	/** The names registered. */
	names(): string[] {
		return [...this.registered.keys()];
	}

	state(): DirectToolsState {
		return { tools: [...this.registered.values()], ...(this.summary ? { summary: this.summary } : {}) };
	}

	restore(state: DirectToolsState): void {
		this.summary = state.summary;
		for (const record of state.tools) if (!this.registered.has(record.definition.name as string)) this.register(record);
	}

	private register(record: DirectToolRecord): void {
		this.registered.set(record.definition.name as string, record);
		this.pi.registerTool({
			...record.definition,
			execute: (_id: string, params: unknown, signal: AbortSignal | undefined, onUpdate: unknown, ctx: unknown) =>
				this.call(record.tool, params, signal, onUpdate, ctx),
			renderResult: (
				result: Parameters<typeof renderProxyResult>[0],
				options: Parameters<typeof renderProxyResult>[1],
				theme: Parameters<typeof renderProxyResult>[2],
				context: { isError: boolean },
			) => renderProxyResult({ ...result, isError: context.isError }, options, theme),
		});
	}
}
