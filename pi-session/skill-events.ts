// MCP skills (SEP-2640) as Pi loads skills, on both Pi lines: Pi's `resources_discover` is given
// the folder of their stubs (skills/mcp-skills.ts), a tool call that reaches into that folder
// first fetches (and checks) what it names, and `/skill:<name>` first loads the skill. Only the
// servers that may run offer skills (a project server awaiting approval or denied offers none),
// and loading one goes through the same gate and connection as its server's tools; each file's
// read asks what `read_mcp_resource` of its URI would (`approveTools`, proxy/calls.ts `approveRead`).
// A tool call's fetch waits for every other extension's `tool_call` hook (pi-tools/after-tool-hooks.ts):
// a permission hook that blocks the call leaves the server unasked. The file must be on disk when
// the tool (`read`, `bash`, any tool naming the folder) runs, and wrapping the built-in tools
// instead would replace other extensions' overrides of them and miss other tools. Should a later
// hook answer the call itself (then the fetch cannot wait for it), the tool runs without the
// files, and `tool_result` fetches them and asks the model to run the call again.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { atExit } from "../bounds/exit-cleanup.ts";
import { once } from "../bounds/waits.ts";
import type { ServerLifecycle } from "../lifecycle.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { afterOtherHooks } from "../pi-tools/after-tool-hooks.ts";
import { loadCallPath } from "../proxy/proxy-tool.lazy.ts";
import type { McpSkills, SkillServers } from "../skills/mcp-skills.ts";
import type { ServerSkills } from "../skills/skill-names.ts";
import { terminalSafe } from "../trust/safe-text.ts";

export interface SkillWiring {
	readonly agentDir: string;
	/** The session's runtime, built now if the start came from the snapshot. */
	readonly runtime: () => Promise<McpRuntime>;
	/** The skills the allowed servers list: the runtime's (from the cache or live), else the start snapshot's. */
	readonly listings: () => readonly ServerSkills[];
}

/** The skills each allowed server lists, for discovery and the start snapshot. */
export function skillListings(lifecycle: ServerLifecycle): ServerSkills[] {
	return [...lifecycle.config.servers.keys()]
		.filter((server) => !lifecycle.blocked(server))
		.map((server) => ({ server, skills: [...lifecycle.skills(server)] }))
		.filter((listing) => listing.skills.length > 0);
}

/** What loading a skill needs of the runtime: its gate, its connections, its secrets. */
function skillServers(runtime: McpRuntime): SkillServers {
	const { lifecycle } = runtime;
	return {
		blocked: (server) =>
			lifecycle.config.servers.has(server) ? lifecycle.blocked(server) : lifecycle.unknownServer(server),
		connect: (server, signal) => lifecycle.ensureConnected(server, signal),
		// A skill's file is a resource: its read asks as `read_mcp_resource` of it would.
		approve: async (server, uri, signal) => {
			const { approveRead } = await loadCallPath();
			return (await approveRead(lifecycle, server, uri, signal))?.message;
		},
		mask: (text) => lifecycle.redactor.scrubSecrets(text),
		requestTimeoutMs: lifecycle.config.settings.requestTimeoutMs,
	};
}

/** The names of the skills Pi has already (the user's own): an MCP skill never takes one. */
function skillsPiHas(pi: ExtensionAPI, ours: ReadonlySet<string>): Set<string> {
	const commands = typeof pi.getCommands === "function" ? pi.getCommands() : [];
	return new Set(
		commands
			.filter((c) => c.source === "skill" && c.name.startsWith("skill:"))
			.map((c) => c.name.slice("skill:".length))
			.filter((name) => !ours.has(name)),
	);
}

/** The session's MCP skills, as /mcp describes them. */
export interface SessionSkills {
	/** A server's skills, under their Pi names, and those not offered. */
	describe(server: string): string[];
}

/**
 * Hooks MCP skills into Pi's events. Their code (skills/) loads at the first discovery that finds
 * a skill: a session whose servers list none loads it never, and makes no folder.
 */
export function wireSkills(pi: ExtensionAPI, wiring: SkillWiring): SessionSkills {
	/** Set once loaded: the tool_call and input hooks of a session without skills do nothing. */
	let skills: McpSkills | undefined;
	const load = once(async (): Promise<McpSkills> => {
		const [{ McpSkills }, { SkillFolder }] = await Promise.all([
			import("../skills/mcp-skills.ts"),
			import("../skills/skill-folder.ts"),
		]);
		const folder = new SkillFolder(wiring.agentDir);
		// Removed at the session's end, and at an exit that does not wait for it (Ctrl-C of `pi -p`).
		atExit(() => folder.remove());
		skills = new McpSkills(folder, async () => skillServers(await wiring.runtime()));
		return skills;
	});

	pi.on("resources_discover", async () => {
		const listings = wiring.listings();
		if (listings.length === 0 && !skills) return undefined;
		const loaded = await load();
		const ours = new Set(loaded.offered.map((s) => s.piName));
		const skillPaths = loaded.discover(listings, skillsPiHas(pi, ours));
		return skillPaths.length > 0 ? { skillPaths } : undefined;
	});

	pi.on("tool_call", (event, ctx) => {
		const loaded = skills;
		if (!loaded || loaded.offered.length === 0 || !loaded.reachesFor(event.input, ctx.cwd)) return undefined;
		// Reads the input as the last hook left it: a hook may rewrite a call's arguments.
		return afterOtherHooks(async () => {
			const why = await loaded.beforeToolCall(event.input, ctx.cwd, ctx.signal);
			return why ? { block: true, reason: why } : undefined;
		});
	});

	pi.on("tool_result", async (event, ctx) => {
		if (!skills || skills.offered.length === 0) return undefined;
		const instead = await skills.afterToolRan(event.input, ctx.cwd, ctx.signal);
		return instead ? { content: [{ type: "text" as const, text: instead }], isError: true } : undefined;
	});

	pi.on("input", async (event, ctx) => {
		if (!skills || skills.offered.length === 0 || !event.text.startsWith("/skill:")) return undefined;
		const why = await skills.beforeCommand(event.text, ctx.signal);
		if (!why) return undefined;
		if (ctx.hasUI) ctx.ui.notify(terminalSafe(why), "error");
		else console.error(terminalSafe(why));
		return { action: "handled" as const };
	});

	pi.on("session_shutdown", () => skills?.close());
	return { describe: (server) => skills?.describe(server) ?? [] };
}
