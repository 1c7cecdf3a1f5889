// Pi 1.x: the `mcp_servers` section of the system prompt, written as Pi 1.x's own MCP writes it
// (same tag, intro, lines, order and limits), since neither codemode nor tool_search lists the
// servers: every server that may run with `codemode` or `deferred` tools, how its tools are reached,
// and one line about it (Pi 1.6's `mcpServerSummary`).
import type { McpRuntime } from "../mcp-runtime.ts";
import { mcpNamespace } from "./pi-tools.ts";

/** The section's tag in the system prompt (Pi 1.5's). */
export const SERVERS_SECTION = "mcp_servers";
/** Characters of the whole section; descriptions shrink to fit, then the last servers are counted instead. */
const MAX_SECTION_CHARS = 4096;
/** Characters of one server's description. */
const MAX_SUMMARY_CHARS = 250;

type Reach = "codemode" | "tool_search";

/** The first line: only the ways of reaching tools the listed servers use. */
function intro(reaches: ReadonlySet<Reach>): string {
	let text = "MCP servers whose tools are not declared to you.";
	if (reaches.has("codemode")) text += " Call the tools of `codemode` servers from codemode scripts.";
	if (reaches.has("tool_search")) text += " Load the tools of `tool_search` servers with `tool_search`.";
	return text;
}

/**
 * `text` within `max` characters, ending in "..." when cut (never half a surrogate pair). Pi 1.5
 * writes "…": one character past Latin-1 makes every later request a two-byte string, which Pi
 * builds slower (tests/unit/one-byte-text.test.ts).
 */
function truncate(text: string, max: number): string {
	if (text.length <= max) return text;
	if (max <= 3) return "";
	let end = max - 3;
	if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end--;
	return `${text.slice(0, end).trimEnd()}...`;
}

/**
 * A server's one line, as `mcpServerSummary` of `@earendil-works/pi-mcp` 1.6 writes it: the first
 * line of the configured description, else of the server's instructions, each trimmed first (Pi
 * 1.5 did not trim the instructions: a blank first line gave no summary).
 */
export function serverSummary(description: string | undefined, instructions: string | undefined): string {
	const text = description?.trim() || instructions?.trim() || "";
	return (text.split("\n", 1)[0] ?? "").trim();
}

/** Per runtime, each server's summary from its instructions as first asked: fixed for the session. */
const fromInstructions = new WeakMap<McpRuntime, Map<string, string>>();

/**
 * A server's line in this runtime's section. Pi's built-in reads the instructions once the server
 * has connected, which changes the section mid-session (Pi then appends it to the conversation
 * again); here they come from the cache (a run before listed the server) and the line stays as the
 * session first wrote it, so the provider's prompt cache holds. The description is the config's.
 */
function summaryOf(runtime: McpRuntime, name: string, description: string | undefined): string {
	if (description?.trim()) return serverSummary(description, undefined);
	let known = fromInstructions.get(runtime);
	if (!known) {
		known = new Map();
		fromInstructions.set(runtime, known);
	}
	let line = known.get(name);
	if (line === undefined) {
		line = serverSummary(undefined, runtime.lifecycle.instructions(name));
		known.set(name, line);
	}
	return line;
}

/** The section's text, undefined when no server is listed. */
export function serversSection(runtime: McpRuntime): string | undefined {
	const listed = runtime.lifecycle
		.serverNames()
		.filter((name) => !runtime.lifecycle.blocked(name))
		.flatMap((name) => {
			const entry = runtime.config.servers.get(name);
			if (!entry) return [];
			const exposures = new Set([
				entry.exposure?.server ?? "codemode",
				...(entry.exposure?.tools ?? []).map(([, e]) => e),
			]);
			// Pi 1.5's rule: a server with any `codemode` tool is a codemode server, else a tool_search one.
			const reach: Reach | undefined = exposures.has("codemode")
				? "codemode"
				: exposures.has("deferred")
					? "tool_search"
					: undefined;
			return reach ? [{ name, reach, about: summaryOf(runtime, name, entry.description) }] : [];
		})
		.sort((a, b) => a.name.localeCompare(b.name));
	if (listed.length === 0) return undefined;
	const head = intro(new Set(listed.map((s) => s.reach)));
	const heads = listed.map((s) => `- ${mcpNamespace(s.name)} (${s.reach})`);
	const omitted = (count: number) =>
		count > 0 ? [`- ... ${count} more server${count === 1 ? "" : "s"}; find their tools with searchTools()`] : [];
	// The intro, the first `kept` server lines without descriptions, and the omission line.
	const size = (kept: number) => [head, ...heads.slice(0, kept), ...omitted(listed.length - kept)].join("\n").length;
	let kept = listed.length;
	while (kept > 0 && size(kept) > MAX_SECTION_CHARS) kept--;
	// Each description also takes a ": " separator.
	const perServer =
		kept === 0 ? 0 : Math.min(MAX_SUMMARY_CHARS, Math.floor((MAX_SECTION_CHARS - size(kept)) / kept) - 2);
	const lines = listed.slice(0, kept).map((s, i) => {
		const summary = perServer > 0 ? truncate(s.about, perServer) : "";
		return summary ? `${heads[i]}: ${summary}` : heads[i];
	});
	return [head, ...lines, ...omitted(listed.length - kept)].join("\n");
}
