// The one `mcp` tool the model sees, and its modes (priority tool > connect > describe > search >
// server > status). Each mode answers with text a model can act on; every failure says what was
// wrong and what to do instead. The same `runProxy` serves Pi and the CLI.
import { describeError, isAuthError, quote } from "./errors.ts";
import { formatProblem } from "./config.ts";
import type { ServerLifecycle } from "./lifecycle.ts";
import { expandTemplate, matchTemplate, readCall, resourceResultToContent } from "./resource-tools.ts";
import { closestNames } from "./closest-name.ts";
import type { CatalogTool } from "./tool-catalog.ts";
import { describeTool, paramLines, toolLine } from "./tool-format.ts";
import { convertResult, type McpResultLike, type PiContent } from "./tool-results.ts";
import type { OutputGuard } from "./output-guard.ts";
import type { Progress } from "./server-manager.ts";
import type { ProxyInput } from "./proxy-surface.ts";
import { countLabel, stateText } from "./server-status.ts";
import { serverPrefix } from "./types.ts";

export interface ProxyResult {
	readonly content: PiContent[];
	readonly isError: boolean;
	readonly details: { readonly mode: string; readonly [key: string]: unknown };
}

export interface ProxyRunOptions {
	readonly signal?: AbortSignal;
	/** Progress the server reports during a call. */
	readonly onProgress?: (progress: Progress) => void;
	/** Moves oversized text to a file; without one, results pass whole (the CLI). */
	readonly output?: OutputGuard;
	/** How long answers wait for servers still starting (the CLI waits longer: it has nothing else to do). */
	readonly waitMs?: Waits;
	/** What became of a server's questions during a call (declined without a UI, ...), for its result. */
	readonly notes?: (server: string) => string[];
}

interface Waits {
	/** Search, status and name lookups. */
	readonly brief: number;
	/** Listing one server's tools. */
	readonly list: number;
}

/** Hits shown by default, and how many of the best carry their parameters. */
const SEARCH_LIMIT = 5;
const HITS_WITH_PARAMS = 3;
/**
 * How long an answer waits for servers whose tools are not known yet: one slow or dead server
 * never stalls search or status; the answer says which servers are still starting.
 */
const BRIEF_WAIT_MS = 2000;
/** Listing one server's tools needs that server: it may take a little longer (an npx download). */
const LIST_WAIT_MS = 8000;
/** How much of a server's instructions `mcp({server})` shows. */
const INSTRUCTIONS_CHARS = 2000;

function capped(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

export async function runProxy(lifecycle: ServerLifecycle, input: ProxyInput, options: ProxyRunOptions = {}): Promise<ProxyResult> {
	const result = await dispatch(lifecycle, input, options, options.waitMs ?? { brief: BRIEF_WAIT_MS, list: LIST_WAIT_MS });
	// Everything but a tool's own successful output passes the scrubber: errors, status, search,
	// descriptions may carry what a server echoed (env, headers, tokens) or a URL's query.
	if (result.details.mode === "tool" && !result.isError) return result;
	const scrub = (text: string) => lifecycle.manager.redactor.scrub(text);
	return { ...result, content: result.content.map((c) => (c.type === "text" ? { ...c, text: scrub(c.text) } : c)) };
}

async function dispatch(lifecycle: ServerLifecycle, input: ProxyInput, options: ProxyRunOptions, waits: Waits): Promise<ProxyResult> {
	const mode = pickMode(input);
	try {
		switch (mode) {
			case "tool":
				return await callMode(lifecycle, input.tool as string, input, options, waits);
			case "connect":
				return await connectMode(lifecycle, input.connect as string);
			case "describe":
				return await describeMode(lifecycle, input.describe as string, input.server, waits);
			case "search":
				return await searchMode(lifecycle, input, waits);
			case "server":
				return await serverMode(lifecycle, input.server as string, input.includeSchemas !== false, waits);
			default:
				// The first run fills the cache in the background: a moment's wait lets the model see tool counts.
				await lifecycle.settled(waits.brief);
				return statusMode(lifecycle);
		}
	} catch (error) {
		return failure(mode, describeError(error));
	}
}

type Mode = "tool" | "connect" | "describe" | "search" | "server" | "status";

function pickMode(input: ProxyInput): Mode {
	if (present(input.tool)) return "tool";
	if (present(input.connect)) return "connect";
	if (present(input.describe)) return "describe";
	if (present(input.search)) return "search";
	if (present(input.server)) return "server";
	return "status";
}

const present = (v: string | undefined): v is string => typeof v === "string" && v.trim().length > 0;
const text = (t: string): PiContent[] => [{ type: "text", text: t }];
const ok = (mode: string, body: string, details: Record<string, unknown> = {}): ProxyResult => ({
	content: text(body),
	isError: false,
	details: { mode, ...details },
});
const failure = (mode: string, body: string, details: Record<string, unknown> = {}): ProxyResult => ({
	content: text(body),
	isError: true,
	details: { mode, error: true, ...details },
});

function statusMode(lifecycle: ServerLifecycle): ProxyResult {
	const names = lifecycle.serverNames();
	if (names.length === 0) {
		const errors = lifecycle.config.problems.filter((p) => p.severity === "error").map(formatProblem);
		if (errors.length > 0) return ok("status", `No MCP server could be loaded; the config has problems (tell the user):\n${errors.slice(0, 5).join("\n")}`);
		return ok("status", "No MCP servers configured. Add them to ~/.pi/agent/mcp.json or .pi/mcp.json under \"mcpServers\".");
	}
	const lines = names.map((name) => `- ${name}: ${stateText(lifecycle, name)}`);
	const errors = lifecycle.config.problems.filter((p) => p.severity === "error" && !p.server).map(formatProblem);
	const broken = errors.length > 0 ? `\nConfig problems (tell the user):\n${errors.slice(0, 3).join("\n")}` : "";
	return ok("status", `MCP servers:\n${lines.join("\n")}${broken}\nFind tools with mcp({search:"words"}).`, {
		servers: names.map((name) => ({ name, state: lifecycle.state(name) })),
	});
}

async function serverMode(lifecycle: ServerLifecycle, server: string, withParams: boolean, waits: Waits): Promise<ProxyResult> {
	if (!lifecycle.knows(server)) return failure("server", lifecycle.unknownServer(server));
	const blocked = lifecycle.blocked(server);
	if (blocked) return failure("server", blocked, { server });
	if (!lifecycle.catalog.has(server)) {
		const starting = await lifecycle.ensureMetadata([server], waits.list);
		if (starting.length > 0) return ok("server", `Server "${server}" is still starting; list its tools again in a moment.`, { server, starting });
		// Not known and not starting: it failed, and this says why (fast, within the failure backoff).
		if (!lifecycle.catalog.has(server)) await lifecycle.ensureConnected(server);
	}
	const tools = lifecycle.catalog.forServer(server);
	const instructions = lifecycle.instructions(server);
	// The server's own words on how to use it, once, where the model looks at its tools.
	const about = instructions ? `\nInstructions from "${server}":\n${capped(instructions.trim(), INSTRUCTIONS_CHARS)}\n` : "";
	if (tools.length === 0) return ok("server", `Server "${server}" has no tools.${about}`, { server });
	const body = `${server}: ${countLabel(lifecycle, server)}${about}\n${tools.map((t) => toolLine(t, withParams)).join("\n")}`;
	return ok("server", body, { server, count: tools.length });
}

async function searchMode(lifecycle: ServerLifecycle, input: ProxyInput, waits: Waits): Promise<ProxyResult> {
	const query = (input.search as string).trim();
	if (input.server && !lifecycle.knows(input.server)) {
		return failure("search", lifecycle.unknownServer(input.server));
	}
	await lifecycle.ensureMetadata(input.server ? [input.server] : undefined, waits.brief);
	// The search engine (MiniSearch, stemmer, lexicon) loads on the first search, not with Pi.
	const { searchCatalog } = await import("./tool-search.ts");
	const hits = searchCatalog(lifecycle.catalog, query, { regex: input.regex, server: input.server });
	if (hits.length === 0) {
		return ok("search", `No tools match ${quote(query)}. Try other words, or mcp({}) to see the servers.${failedNote(lifecycle)}`, {
			query,
			count: 0,
		});
	}
	const limit = Math.max(1, Math.min(50, Math.floor(input.limit ?? SEARCH_LIMIT)));
	const shown = hits.slice(0, limit);
	const withParams = input.includeSchemas !== false;
	const lines = shown.map((h, i) => toolLine(h.tool, withParams && i < HITS_WITH_PARAMS));
	const more = hits.length > shown.length ? `\n(${hits.length - shown.length} more: raise limit or add words)` : "";
	const body = `${lines.join("\n")}${more}${failedNote(lifecycle)}`;
	// details stay with Pi (UI, logs), never reach the model: the ranking behind the answer.
	const ranked = hits.slice(0, 20).map((h) => ({ tool: h.tool.qualifiedName, score: Math.round(h.score * 100) / 100 }));
	return ok("search", body, { query, count: hits.length, tools: shown.map((h) => h.tool.qualifiedName), ranked });
}

function failedNote(lifecycle: ServerLifecycle): string {
	const names = lifecycle.serverNames();
	const failed = names.filter((n) => ["failed", "needs-auth"].includes(lifecycle.state(n)));
	const waiting = names.filter((n) => lifecycle.state(n) === "awaiting-approval");
	const starting = names.filter((n) => lifecycle.state(n) === "starting" && !lifecycle.catalog.has(n));
	const notes: string[] = [];
	if (starting.length > 0) notes.push(`\n(not searched yet, still starting: ${starting.join(", ")}; search again in a moment)`);
	if (failed.length > 0) notes.push(`\n(not searched, failed to connect: ${failed.join(", ")})`);
	if (waiting.length > 0) notes.push(`\n(not searched, awaiting approval: ${waiting.join(", ")}; ask the user to run /mcp approve)`);
	return notes.join("");
}

async function describeMode(lifecycle: ServerLifecycle, name: string, server: string | undefined, waits: Waits): Promise<ProxyResult> {
	const tool = await resolveTool(lifecycle, name, server, waits);
	if ("error" in tool) return failure("describe", tool.error);
	return ok("describe", describeTool(tool), { server: tool.server, tool: tool.name });
}

async function connectMode(lifecycle: ServerLifecycle, server: string): Promise<ProxyResult> {
	const blocked = lifecycle.blocked(server);
	if (blocked) return failure("connect", blocked, { server });
	const connection = await lifecycle.reconnect(server);
	const count = lifecycle.catalog.forServer(server).length;
	return ok("connect", `Connected to "${server}" (${connection.transportKind}): ${count} tools. List them with mcp({server:"${server}"}).`, {
		server,
		count,
	});
}

/** Finds a tool, connecting servers to learn their tools only when the known ones do not have it. */
async function resolveTool(
	lifecycle: ServerLifecycle,
	name: string,
	server: string | undefined,
	waits: Waits,
	signal?: AbortSignal,
): Promise<CatalogTool | { error: string }> {
	if (server && !lifecycle.knows(server)) return { error: lifecycle.unknownServer(server) };
	const blockedServer = server ?? ownerOf(lifecycle, name);
	const blocked = blockedServer ? lifecycle.blocked(blockedServer) : undefined;
	if (blocked) return { error: blocked };
	let found = lifecycle.catalog.resolve(name, server);
	if (found.kind !== "found") {
		// The owner, when the name says which server it is, may take as long as listing it; any other server only briefly.
		const owner = server ?? ownerOf(lifecycle, name);
		await lifecycle.ensureMetadata(owner ? [owner] : undefined, owner ? waits.list : waits.brief, signal);
		if (signal?.aborted) return { error: "Cancelled while the server was starting." };
		found = lifecycle.catalog.resolve(name, server);
	}
	if (found.kind === "found") return found.tool;
	if (found.kind === "ambiguous") {
		return { error: `${quote(name)} exists on several servers: ${found.tools.map((t) => t.qualifiedName).join(", ")}. Use one of these names.` };
	}
	// A name that points at a server which could not connect: that server's problem is the answer.
	const owner = server ?? ownerOf(lifecycle, name);
	const ownerFailure = owner ? lifecycle.failure(owner) : undefined;
	if (ownerFailure) return { error: ownerFailure.message };
	const hint = found.suggestions.length > 0 ? ` Did you mean: ${found.suggestions.join(", ")}?` : ' Find tools with mcp({search:"words"}).';
	return { error: `Unknown tool ${quote(name)}.${hint}${failedNote(lifecycle)}` };
}

/** The server whose prefix a tool name starts with (the longest such name), if any. */
function ownerOf(lifecycle: ServerLifecycle, name: string): string | undefined {
	const mode = lifecycle.config.settings.toolPrefix;
	return lifecycle
		.serverNames()
		.filter((s) => name.startsWith(`${serverPrefix(s, mode)}_`))
		.sort((a, b) => b.length - a.length)[0];
}

/** Accepts args as an object or a JSON string; anything else is a clear error. */
export function parseArgs(raw: unknown): { args: Record<string, unknown> } | { error: string } {
	if (raw === undefined || raw === null || raw === "") return { args: {} };
	let value = raw;
	if (typeof raw === "string") {
		try {
			value = JSON.parse(raw);
		} catch (error) {
			return { error: `args is not valid JSON (${(error as Error).message}). Pass an object, e.g. args: {"path": "README.md"}.` };
		}
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		const got = Array.isArray(value) ? "an array" : typeof value;
		return { error: `args must be an object of named arguments, got ${got}. Example: args: {"path": "README.md"}.` };
	}
	return { args: value as Record<string, unknown> };
}

async function callMode(lifecycle: ServerLifecycle, name: string, input: ProxyInput, options: ProxyRunOptions, waits: Waits): Promise<ProxyResult> {
	if (URI.test(name)) return readUri(lifecycle, name, input.server, options);
	const tool = await resolveTool(lifecycle, name, input.server, waits, options.signal);
	if ("error" in tool) return failure("tool", tool.error);
	const parsed = parseArgs(input.args);
	if ("error" in parsed) return failure("tool", `${parsed.error}\n${paramLines(tool.inputSchema).join("\n")}`);
	const details = { server: tool.server, tool: tool.name };
	try {
		await lifecycle.ensureConnected(tool.server, options.signal);
		// Connecting refreshed the server's tools; the one found in the cache may have changed or gone.
		const fresh = lifecycle.catalog.forServer(tool.server).find((t) => t.name === tool.name);
		if (!fresh) {
			const suggestions = closestNames(tool.name, lifecycle.catalog.forServer(tool.server).map((t) => t.qualifiedName));
			const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(", ")}?` : "";
			return failure("tool", `Server "${tool.server}" no longer has a tool "${tool.name}".${hint}`, details);
		}
		return await invoke(lifecycle, fresh, parsed.args, options);
	} catch (error) {
		if (options.signal?.aborted) return failure("tool", `${tool.qualifiedName} was cancelled; the server was told to stop.`, details);
		if (isAuthError(error)) return failure("tool", describeError(lifecycle.failed(tool.server, error)), details);
		return failure("tool", `${tool.qualifiedName} failed: ${describeError(error)}\n${callHelp(tool)}`, details);
	}
}

/** A tool name that is a URI (`scheme://...`): the resource it names is read. */
const URI = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Reads a resource by URI (a resource link's target), on the server given or the one whose resources it matches. */
async function readUri(lifecycle: ServerLifecycle, uri: string, server: string | undefined, options: ProxyRunOptions): Promise<ProxyResult> {
	const owners = server ? [server] : lifecycle.serverNames().filter((s) => lifecycle.catalog.forServer(s).some((t) => readsUri(t, uri)));
	if (owners.length !== 1) {
		return failure("tool", `To read ${quote(uri)}, say which server has it: mcp({tool:${JSON.stringify(uri)},server:"name"}).`);
	}
	const owner = owners[0];
	if (!lifecycle.knows(owner)) return failure("tool", lifecycle.unknownServer(owner));
	const details = { server: owner, uri };
	try {
		await lifecycle.ensureConnected(owner, options.signal);
		const result = await lifecycle.manager.readResource(owner, uri, { signal: options.signal });
		return converted(lifecycle, owner, uri, { content: resourceResultToContent(result) }, options, details);
	} catch (error) {
		if (options.signal?.aborted) return failure("tool", `Reading ${uri} was cancelled.`, details);
		return failure("tool", `Reading ${uri} from "${owner}" failed: ${describeError(error)}`, details);
	}
}

function readsUri(tool: CatalogTool, uri: string): boolean {
	return tool.resourceUri === uri || (tool.resourceTemplate !== undefined && matchTemplate(tool.resourceTemplate, uri) !== undefined);
}

/** Calls a tool, or reads a resource (template) tool's resource, on a connected server. */
async function invoke(lifecycle: ServerLifecycle, tool: CatalogTool, args: Record<string, unknown>, options: ProxyRunOptions): Promise<ProxyResult> {
	const details = { server: tool.server, tool: tool.name };
	const uri = tool.resourceUri ?? (tool.resourceTemplate ? templateUri(tool, args) : undefined);
	if (typeof uri === "object") return failure("tool", uri.error, details);
	if (uri !== undefined) {
		const result = await lifecycle.manager.readResource(tool.server, uri, { signal: options.signal });
		return converted(lifecycle, tool.server, tool.qualifiedName, { content: resourceResultToContent(result) }, options, { ...details, uri });
	}
	options.notes?.(tool.server); // dropped: the result tells only what happened during this call
	const result = await lifecycle.manager.callTool(tool.server, tool.name, args, {
		signal: options.signal,
		onProgress: options.onProgress,
		task: tool.taskSupport === "required",
	});
	const answer = converted(lifecycle, tool.server, tool.qualifiedName, result, options, details);
	if (result.isError) answer.content.push({ type: "text", text: `\n${callHelp(tool)}` });
	return answer;
}

/** A template tool's URI from its arguments, or what is missing. */
function templateUri(tool: CatalogTool, args: Record<string, unknown>): string | { error: string } {
	const required = Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required.map(String) : [];
	const missing = required.filter((name) => args[name] === undefined || args[name] === null || args[name] === "");
	if (missing.length > 0) return { error: `${tool.qualifiedName} needs ${missing.join(", ")}.\n${callHelp(tool)}` };
	return expandTemplate(tool.resourceTemplate as string, args);
}

/** A result as the model gets it: converted, guarded for size, with what the server's questions came to. */
function converted(
	lifecycle: ServerLifecycle,
	server: string,
	label: string,
	result: McpResultLike,
	options: ProxyRunOptions,
	details: Record<string, unknown>,
): ProxyResult {
	const readers = lifecycle.catalog.forServer(server).filter((t) => t.resourceUri || t.resourceTemplate);
	const output = options.output;
	const { content, forUser } = convertResult(result, {
		saveBlob: output ? (data, _mime, uri) => output.saveBlob(data, uri) : undefined,
		readHint: (uri) => readCall(readers, server, uri),
	});
	const guarded = output?.apply(content, label) ?? content;
	for (const note of options.notes?.(server) ?? []) guarded.push({ type: "text", text: `\n(${note})` });
	return { content: guarded, isError: result.isError === true, details: { mode: "tool", ...details, ...(forUser.length > 0 ? { forUser } : {}) } };
}

function callHelp(tool: CatalogTool): string {
	return `Expected by ${tool.qualifiedName}:\n${paramLines(tool.inputSchema).join("\n")}`;
}

/** `3/10 indexing` — what Pi shows while a long call runs. */
export function progressText(progress: Progress): string {
	const count = progress.total !== undefined ? `${progress.progress}/${progress.total}` : `${progress.progress}`;
	return progress.message ? `${count} ${progress.message}` : count;
}
