// What the model sees of the `mcp` tool: its name, its parameter schema and its description,
// which names the configured servers (a few words each) so a model knows what to look for. Every
// token here is paid on every request: the description changes only when the config does.
import { type Static, Type } from "@sinclair/typebox";

export const PROXY_TOOL_NAME = "mcp";

// Parameter names speak for themselves; every description here is paid for on every request.
export const ProxyParams = Type.Object({
	search: Type.Optional(Type.String()),
	tool: Type.Optional(Type.String()),
	args: Type.Optional(Type.Unknown({ description: "object or JSON string" })),
	describe: Type.Optional(Type.String()),
	server: Type.Optional(Type.String()),
	connect: Type.Optional(Type.String()),
	regex: Type.Optional(Type.Boolean()),
	includeSchemas: Type.Optional(Type.Boolean()),
	instructions: Type.Optional(Type.Boolean()),
	limit: Type.Optional(Type.Integer()),
});
export type ProxyInput = Static<typeof ProxyParams>;

/** Whether the input calls a tool (the mode every other mode gives way to). */
export function callsTool(input: ProxyInput): input is ProxyInput & { readonly tool: string } {
	return typeof input.tool === "string" && input.tool.trim().length > 0;
}

/**
 * Tolerates what models actually send before Pi validates: a non-object becomes status, and
 * `arguments` (the MCP spelling) stands in for `args`.
 */
export function normalizeProxyInput(raw: unknown): ProxyInput {
	if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return {};
	const input = { ...(raw as Record<string, unknown>) };
	if (input.args === undefined && input.arguments !== undefined) input.args = input.arguments;
	delete input.arguments;
	return input as ProxyInput;
}

export const PROXY_DESCRIPTION =
	'MCP tools. Find, then call: {search:"what you need"} -> {tool:"name",args:{...}}. ' +
	'{} lists servers, {server} its tools, {describe:"tool"} its parameters, {connect} reconnects.';

/** What the description says of one server: its name, and a few words when it says what it is for. */
export interface ServerBlurb {
	readonly name: string;
	readonly about?: string;
}

/** At most this much of a server's self-description: each character is paid on every request. */
const ABOUT_CHARS = 40;

/** Words that say nothing about what a server is for. */
const EMPTY_WORDS = new Set([
	"server",
	"servers",
	"mcp",
	"instructions",
	"the",
	"a",
	"an",
	"for",
	"of",
	"and",
	"tool",
	"tools",
]);

/**
 * A few words from a description or instructions: the first line (markdown marks dropped), first
 * sentence, cut at a word. Nothing when those words only repeat the server's name
 * ("# Everything Server – Server Instructions" says nothing of "everything").
 */
export function about(text: string | undefined, name = ""): string | undefined {
	const line = text
		?.trim()
		.split("\n")[0]
		?.replace(/^[#>*\s-]+/, "")
		.replace(/\s+/g, " ")
		.trim();
	if (!line) return undefined;
	const own = new Set(name.toLowerCase().split(/[^a-z0-9]+/));
	const words = line
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter((w) => w && !EMPTY_WORDS.has(w));
	if (words.every((w) => own.has(w))) return undefined;
	const sentence = /^(.+?)[.!?](\s|$)/.exec(line)?.[1] ?? line;
	if (sentence.length <= ABOUT_CHARS) return sentence;
	const cut = sentence.slice(0, ABOUT_CHARS);
	return cut.slice(0, Math.max(cut.lastIndexOf(" "), 20)).replace(/[\s,;:(-]+$/, "");
}

/** The tool's description for a session: the base, then the servers the model may reach. */
export function proxyDescription(servers: readonly ServerBlurb[]): string {
	if (servers.length === 0) return PROXY_DESCRIPTION;
	return `${PROXY_DESCRIPTION} Servers: ${servers.map((s) => (s.about ? `${s.name} (${s.about})` : s.name)).join(", ")}.`;
}
