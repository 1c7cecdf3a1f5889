// Pi 1.x keeps a session's tool loadout in its transcript (system messages that add and remove tool
// declarations) and restores it on a resume (`-c`, /resume) and a /reload: the tools `tool_search`
// loaded come back. Only those registered before the next prompt starts, though: Pi drops the rest
// when a run starts, and that run records the smaller loadout, so they stay lost for the rest of
// the session (later resumes included). Pi's built-in MCP registers a server's tools once it
// connects, and its first prompt waits only for servers with `direct` tools: `pi -p -c` loses them
// every time, a TUI prompt typed before the server connected too. Ours registers the cached tools
// before the first prompt (while loading, or at the session's start). What remains is a server
// without a cache entry (its config changed since, or the entry outlived its 7 days): a session's
// first prompt waits for it (as long as the built-in waits for its direct servers), then activates
// its tools the loadout names, unless the restored loadout was changed meanwhile (Pi 1.6's rule: a
// loadout that turns a restored tool off replaces it). pi 0.73 restores no loadout: nothing here
// runs there.

import type { McpRuntime } from "../mcp-runtime.ts";
import { mcpNamespace, type Pi15ToolApi } from "./pi-tools.ts";

/** How long a first prompt waits for the servers of restored tools (Pi 1.x's built-in waits as long for its direct servers). */
export const RESTORE_WAIT_MS = 10_000;

/** A tool declaration in a system message of the transcript (Pi's session format). */
interface Declared {
	readonly name?: unknown;
}

/** What this reads of a transcript entry: a system message's loadout changes. */
interface Entry {
	readonly type?: unknown;
	readonly message?: { readonly role?: unknown; readonly toolsAdded?: unknown; readonly toolsRemoved?: unknown };
}

/** The tools the branch's recorded loadout declares: every system message's changes replayed in order, as Pi does. */
export function recordedLoadout(branch: readonly unknown[]): string[] {
	const names = (list: unknown): string[] =>
		Array.isArray(list) ? list.flatMap((tool: Declared) => (typeof tool?.name === "string" ? [tool.name] : [])) : [];
	const tools = new Set<string>();
	for (const entry of branch as readonly Entry[]) {
		if (entry?.type !== "message" || entry.message?.role !== "system") continue;
		for (const name of names(entry.message.toolsRemoved)) tools.delete(name);
		for (const name of names(entry.message.toolsAdded)) tools.add(name);
	}
	return [...tools];
}

/** What a prompt's context offers here (Pi 1.x's `ctx`): the session's transcript, the turn's signal. */
export interface PromptContext {
	readonly sessionManager?: { getBranch?: () => readonly unknown[] };
	readonly signal?: AbortSignal;
}

export interface RestoreDeps {
	readonly pi: Pi15ToolApi;
	/** The session's runtime, built now if the start came from a snapshot (undefined between sessions). */
	readonly runtime: () => Promise<McpRuntime | undefined>;
	/** Registers the tools of the servers listed since (pi/registrations.ts, `listed`). */
	readonly listed: (runtime: McpRuntime) => void;
}

/** The restored MCP tools Pi could not activate at a session's start, activated at its first prompt. */
export class RestoredTools {
	/** A session started and its first prompt has not come yet. */
	private due = false;

	constructor(private readonly deps: RestoreDeps) {}

	/** `session_start` (a start, a resume, a reload): the next prompt is the session's first. */
	started(): void {
		this.due = true;
	}

	/** `before_agent_start`: at a session's first prompt, the restored MCP tools not registered yet. */
	async beforePrompt(ctx: PromptContext): Promise<void> {
		if (!this.due) return;
		this.due = false;
		const restored = recordedLoadout(ctx.sessionManager?.getBranch?.() ?? []).filter((name) =>
			name.startsWith("mcp__"),
		);
		if (restored.length === 0) return;
		const { pi } = this.deps;
		const registered = new Set(pi.getAllTools().map((tool) => tool.name));
		const late = restored.filter((name) => !registered.has(name));
		if (late.length === 0) return;
		// Someone turned a restored MCP tool off since Pi restored the loadout: theirs to decide.
		const active = new Set(pi.getActiveTools());
		if (restored.some((name) => registered.has(name) && !active.has(name))) return;
		const runtime = await this.deps.runtime();
		if (!runtime) return;
		const servers = runtime.lifecycle
			.serverNames()
			.filter((server) => late.some((name) => name.startsWith(`${mcpNamespace(server)}__`)));
		if (servers.length === 0) return;
		await runtime.lifecycle.ensureMetadata(servers, RESTORE_WAIT_MS, ctx.signal);
		this.deps.listed(runtime);
		const now = new Set(pi.getAllTools().map((tool) => tool.name));
		const current = pi.getActiveTools();
		const activate = late.filter((name) => now.has(name) && !current.includes(name));
		if (activate.length > 0) pi.setActiveTools([...current, ...activate]);
	}
}
