// One stand-in for Pi's extension API in tests that run the extension (or a part of it) without
// Pi: it keeps what is registered (tools, commands, handlers, messages), fires Pi's events to the
// handlers in the order they were added, as Pi does, and records what the UI was asked to show.
// The real Pi runs in the e2e tier (tests/support/pi-hosts.ts); this is for the unit tier.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

/** A tool as registered (a definition) or as Pi lists it (`getAllTools()`). */
export type StandInTool = Record<string, unknown> & { readonly name: string };
/** A registered command: its description, completions and handler, as the extension gave them. */
export type StandInCommand = Record<string, unknown> & { readonly description?: string };
// Handlers take whatever Pi sends; the stand-in passes what the test gives.
type Handler = (event: never, ctx: never) => unknown;

export interface StandInOptions {
	/** Tools Pi holds before the extension loads (its own, another extension's). */
	readonly tools?: readonly StandInTool[];
	/** The active tools at the start (default: the tools given). */
	readonly active?: readonly string[];
	/** Pi 1.x's MCP API (`registerMcpServer`, `getMcpServers`), which the extension feature-tests; absent as in Pi 0.73 by default. */
	readonly pi1?: boolean;
	/** What Pi 1.x's `getMcpServers()` lists. */
	readonly mcpServers?: readonly unknown[];
}

export interface ContextOptions {
	readonly trusted?: boolean;
	readonly hasUI?: boolean;
}

export interface PiStandIn {
	/** The API an extension is given. */
	readonly pi: ExtensionAPI;
	readonly tools: Map<string, StandInTool>;
	readonly commands: Map<string, StandInCommand>;
	/** What `sendMessage` was given, in order. */
	readonly messages: { message: Record<string, unknown>; options: unknown }[];
	/** What the UI showed: "status: ..." and "notify: ..." lines, in order. */
	readonly shown: string[];
	/** The active tools now. */
	active(): string[];
	/** Fires an event now, each handler in turn; returns the first result that is not undefined (not awaited). */
	fire(event: string, payload?: unknown, ctx?: unknown): unknown;
	/** Fires an event as Pi does: each handler awaited in turn; returns the first result that is not undefined. */
	emit(event: string, payload?: unknown, ctx?: unknown): Promise<unknown>;
	/** A session's context in `cwd`, whose UI records what it shows and answers no dialog. */
	ctx(cwd: string, options?: ContextOptions): Record<string, unknown>;
}

export function piStandIn(options: StandInOptions = {}): PiStandIn {
	const tools = new Map((options.tools ?? []).map((tool) => [tool.name, tool]));
	const commands = new Map<string, StandInCommand>();
	const handlers = new Map<string, Handler[]>();
	const messages: PiStandIn["messages"] = [];
	const shown: string[] = [];
	let active = [...(options.active ?? tools.keys())];
	const api = {
		registerTool: (definition: StandInTool) => void tools.set(definition.name, definition),
		registerCommand: (name: string, command: StandInCommand) => void commands.set(name, command),
		registerFlag: () => undefined,
		getFlag: () => undefined,
		on: (event: string, handler: Handler) => void handlers.set(event, [...(handlers.get(event) ?? []), handler]),
		getAllTools: () => [...tools.values()],
		getActiveTools: () => [...active],
		setActiveTools: (names: string[]) => {
			active = [...names];
		},
		sendMessage: (message: Record<string, unknown>, sent: unknown) => void messages.push({ message, options: sent }),
		sendUserMessage: () => undefined,
		...(options.pi1 ? { registerMcpServer: () => undefined, getMcpServers: () => options.mcpServers ?? [] } : {}),
	};
	const call = (handler: Handler, payload: unknown, ctx: unknown) =>
		(handler as (e: unknown, c: unknown) => unknown)(payload, ctx);
	return {
		pi: api as unknown as ExtensionAPI,
		tools,
		commands,
		messages,
		shown,
		active: () => [...active],
		fire: (event, payload = {}, ctx = undefined) =>
			(handlers.get(event) ?? []).map((handler) => call(handler, payload, ctx)).find((r) => r !== undefined),
		async emit(event, payload = {}, ctx = undefined) {
			let first: unknown;
			for (const handler of handlers.get(event) ?? []) {
				const result = await call(handler, payload, ctx);
				if (first === undefined) first = result;
			}
			return first;
		},
		ctx: (cwd, { trusted = false, hasUI = true } = {}) => ({
			cwd,
			hasUI,
			isProjectTrusted: () => trusted,
			ui: {
				setStatus: (_key: string, text: string | undefined) => void shown.push(`status: ${text}`),
				notify: (text: string) => void shown.push(`notify: ${text}`),
				select: async () => undefined,
				confirm: async () => false,
				input: async () => undefined,
			},
		}),
	};
}
