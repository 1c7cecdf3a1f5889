// The session's side of start-up/streamed-call.ts: which servers exist, which tool names are ours, what a
// codemode script reaches (Pi 1.5's `reachesTools`), and the runtime that starts a server.
import type { McpRuntime } from "../mcp-runtime.ts";
import { mcpNamespace, type Pi15ToolApi } from "../pi-tools/pi-tools.ts";
import type { PrestartTarget } from "./streamed-call.ts";

interface OwnedTools {
	serverOf(name: string): string | undefined;
}

type Reach = (input: Record<string, unknown>) => unknown;

/** Tools that reach others, by name: looked up in Pi's list once per name, not at every streamed piece. */
const reachers = new WeakMap<Pi15ToolApi, Map<string, Reach | undefined>>();

function reachOf(pi: Pi15ToolApi, name: string): Reach | undefined {
	const known = reachers.get(pi) ?? new Map<string, Reach | undefined>();
	reachers.set(pi, known);
	if (!known.has(name)) known.set(name, pi.getAllTools().find((t) => t.name === name)?.reachesTools);
	return known.get(name);
}

export function prestartTarget(
	runtime: McpRuntime,
	owned: { direct: OwnedTools; piTools: OwnedTools | undefined; tools: Pi15ToolApi | undefined },
): PrestartTarget {
	const { lifecycle } = runtime;
	const pi = owned.tools;
	return {
		serverNames: () => lifecycle.serverNames(),
		tools: () => lifecycle.catalog.all(),
		piToolServer: (name) => owned.direct.serverOf(name) ?? owned.piTools?.serverOf(name),
		reaches: pi
			? (name, input) => {
					try {
						return reachOf(pi, name)?.(input);
					} catch {
						// A script still streaming may not parse yet: its reach is known at a later piece.
						return undefined;
					}
				}
			: undefined,
		namespaceOf: mcpNamespace,
		prestart: (server) => runtime.prestart(server),
	};
}
