// The streamed call's start ahead (`settings.prestart`): a server starts the moment a call to it
// becomes likely, and no earlier: while the model's tool call still streams, as soon as what has
// arrived names one server. The `mcp` tool's `tool` (a
// prefix only one server's tools share is enough) or `connect`, a direct tool or a Pi 1.5 tool
// (`mcp__server__tool`), and a tool that reaches others (a codemode script: every server its text
// names so far, all at once). The call itself then finds its server started or starting; nothing
// the model does not call is started. Project servers awaiting approval, disabled servers and
// servers backing off after a failure are not started (the call says why, as before).

/** A tool call as it streams: its name, and the arguments parsed from what has arrived. */
export interface StreamedCall {
	readonly name: string;
	readonly arguments: Record<string, unknown>;
}

/** What the session knows to map a call to its servers, and starts them. */
export interface PrestartTarget {
	/** Every configured server. */
	serverNames(): readonly string[];
	/** Every known tool: the name `mcp({tool})` takes, and its server. */
	tools(): readonly { readonly qualifiedName: string; readonly server: string }[];
	/** The server behind one of our registered Pi tools (a direct tool, a Pi 1.5 tool), if it is one. */
	piToolServer(name: string): string | undefined;
	/** Pi 1.5: the tool names a call of a tool that reaches others (codemode) may reach, or "all". */
	reaches?(toolName: string, input: Record<string, unknown>): unknown;
	/** Pi 1.5's namespace of a server (`mcp__<server>`), as scripts write it. */
	namespaceOf?(server: string): string;
	/** Starts a server without waiting (nothing if it runs, starts, may not run or backs off). */
	prestart(server: string): void;
}

/** The servers a call (perhaps still streaming) will reach, as far as what has arrived tells. */
export function serversOfCall(call: StreamedCall, proxyName: string, target: PrestartTarget): string[] {
	if (call.name === proxyName) return serversOfProxyCall(call.arguments, target);
	const owner = target.piToolServer(call.name);
	if (owner !== undefined) return [owner];
	const reach = target.reaches?.(call.name, call.arguments);
	if (reach === undefined || reach === "all" || !Array.isArray(reach)) return [];
	// "all" (a script whose reach is unknown) would start every server: left to the call's own wait.
	const words = reach.filter((w): w is string => typeof w === "string");
	const namespace = target.namespaceOf;
	if (!namespace) return [];
	// Pi's reach is the script's words: `tools.mcp__docs__search` gives `mcp__docs__search`. A
	// namespace counts once its closing `__` has arrived (`mcp__doc` may yet become `mcp__docs`).
	return target.serverNames().filter((server) => words.some((w) => w.startsWith(`${namespace(server)}__`)));
}

/** `mcp({connect})` names its server; `mcp({tool})` one once the name so far is only one server's. */
function serversOfProxyCall(args: Record<string, unknown>, target: PrestartTarget): string[] {
	const servers = target.serverNames();
	if (typeof args.connect === "string") return servers.includes(args.connect) ? [args.connect] : [];
	if (typeof args.tool !== "string" || args.tool.length === 0) return [];
	if (typeof args.server === "string" && servers.includes(args.server)) return [args.server];
	const prefix = args.tool;
	const owners = new Set(target.tools().flatMap((t) => (t.qualifiedName.startsWith(prefix) ? [t.server] : [])));
	return owners.size === 1 ? [...owners] : [];
}

/** The event Pi sends as the model's message streams (both Pi lines). */
interface MessageUpdate {
	readonly assistantMessageEvent?: {
		readonly type?: string;
		readonly contentIndex?: number;
		readonly partial?: { readonly content?: readonly unknown[] };
	};
}

interface StreamEvents {
	on(event: "message_update", handler: (event: MessageUpdate) => void): void;
}

const TOOL_CALL_EVENTS = new Set(["toolcall_start", "toolcall_delta", "toolcall_end"]);

/**
 * Watches the model's streamed tool calls and starts each server a call names, once per call.
 * `target` is undefined until the session's runtime is built (then asked for again at the next
 * piece of the call).
 */
export function prestartOnStreamedCalls(
	pi: StreamEvents,
	proxyName: string,
	target: () => PrestartTarget | undefined,
): void {
	// Per call (its block in the streamed message, updated in place): the servers already started.
	// Only saves work: starting a server that runs or starts does nothing.
	const started = new WeakMap<object, Set<string>>();
	pi.on("message_update", (event) => {
		const update = event.assistantMessageEvent;
		if (!update?.type || !TOOL_CALL_EVENTS.has(update.type) || update.contentIndex === undefined) return;
		const block = update.partial?.content?.[update.contentIndex];
		const call = streamedCall(block);
		const active = call && target();
		if (!call || !active || !block || typeof block !== "object") return;
		const done = started.get(block) ?? new Set<string>();
		started.set(block, done);
		for (const server of serversOfCall(call, proxyName, active)) {
			if (done.has(server)) continue;
			done.add(server);
			active.prestart(server);
		}
	});
}

function streamedCall(block: unknown): StreamedCall | undefined {
	if (typeof block !== "object" || block === null) return undefined;
	const { type, name, arguments: args } = block as { type?: unknown; name?: unknown; arguments?: unknown };
	if (type !== "toolCall" || typeof name !== "string" || name.length === 0) return undefined;
	const input = typeof args === "object" && args !== null && !Array.isArray(args) ? args : {};
	return { name, arguments: input as Record<string, unknown> };
}
