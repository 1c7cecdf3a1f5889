// The `mcp({tool})` mode: finding the tool (connecting servers only when the cache does not know
// it), checking its arguments, calling it or reading the resource it stands for, and turning the
// result into what the model reads.

import type { ReadResourceResult } from "@modelcontextprotocol/client";
import { closestNames } from "../catalog/closest-name.ts";
import type { CatalogTool } from "../catalog/tool-catalog.ts";
import { afterError, describeError, quote } from "../errors.ts";
import type { Servers } from "../lifecycle.ts";
import { expandTemplate, matchTemplate, readCall, resourceResultToContent, useUriTemplate } from "../resource-tools.ts";
import type { Progress } from "../server-manager.ts";
import { loadSdk } from "../transport/mcp-sdk.lazy.ts";
import { serverPrefix } from "../types.ts";
import { failedNote, failure, type ProxyResult, type ProxyRunOptions } from "./answer.ts";
import type { ProxyInput } from "./surface.ts";
import { paramLines } from "./tool-format.ts";
import { convertResult, type McpResultLike } from "./tool-results.ts";
import { waitForServers } from "./waiting.ts";

/**
 * Finds a tool, connecting servers to learn their tools only when the known ones do not have it:
 * the server the name points at, else every server whose tools are not known yet, waited for as
 * long as their connects take (an install included), with progress.
 */
export async function resolveTool(
	servers: Servers,
	name: string,
	server: string | undefined,
	options: Pick<ProxyRunOptions, "signal" | "onWait">,
): Promise<CatalogTool | { error: string }> {
	if (server && !servers.knows(server)) return { error: servers.unknownServer(server) };
	const owner = server ?? ownerOf(servers, name);
	const blocked = owner ? servers.blocked(owner) : undefined;
	if (blocked) return { error: blocked };
	let found = servers.catalog.resolve(name, server);
	if (found.kind !== "found") {
		await waitForServers(servers, servers.unlisted(owner ? [owner] : undefined), options);
		if (options.signal?.aborted) return { error: "Cancelled while the server was starting." };
		found = servers.catalog.resolve(name, server);
	}
	if (found.kind === "found") return found.tool;
	if (found.kind === "ambiguous") {
		return {
			error: `${quote(name)} exists on several servers: ${found.tools.map((t) => t.qualifiedName).join(", ")}. Use one of these names.`,
		};
	}
	// A name that points at a server which could not connect: that server's problem is the answer.
	const unavailable = owner ? servers.unavailable(owner) : undefined;
	if (unavailable) return { error: unavailable };
	const hint =
		found.suggestions.length > 0
			? ` Did you mean: ${found.suggestions.join(", ")}?`
			: ' Find tools with mcp({search:"words"}).';
	return { error: `Unknown tool ${quote(name)}.${hint}${failedNote(servers)}` };
}

/** The server whose prefix a tool name starts with (the longest such name), if any. */
function ownerOf(servers: Servers, name: string): string | undefined {
	const mode = servers.config.settings.toolPrefix;
	return servers
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
			return {
				error: `args is not valid JSON (${(error as Error).message}). Pass an object, e.g. args: {"path": "README.md"}.`,
			};
		}
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		const got = Array.isArray(value) ? "an array" : typeof value;
		return { error: `args must be an object of named arguments, got ${got}. Example: args: {"path": "README.md"}.` };
	}
	return { args: value as Record<string, unknown> };
}

/**
 * What a call comes to once its tool is known: a tool to call with its arguments, a resource to
 * read (a resource's or a template's tool, a URI), or why neither. Nothing here reaches a tool or
 * a resource: on Pi 1.5 a `mcp({tool})` call then runs as the Pi tool it is.
 */
export type CallPlan =
	| { readonly kind: "call"; readonly tool: CatalogTool; readonly args: Record<string, unknown> }
	| { readonly kind: "read"; readonly read: ResourceRead }
	| { readonly kind: "failed"; readonly result: ProxyResult };

/** A resource to read: its server and URI, what names it in the answer, and the answer's details. */
export interface ResourceRead {
	readonly server: string;
	readonly uri: string;
	readonly label: string;
	readonly details: Record<string, unknown>;
}

/** Which MCP tool a Pi tool or a direct tool stands for: its server, its own name, the name the proxy knows it by. */
export interface ToolRef {
	readonly server: string;
	readonly name: string;
	readonly qualifiedName: string;
}

/** `mcp({tool})`: the name resolved (connecting servers when the cache does not know it) and the arguments parsed, once. */
export async function planCall(
	servers: Servers,
	name: string,
	input: ProxyInput,
	options: ProxyRunOptions,
): Promise<CallPlan> {
	// Templates are expanded and matched with the SDK's UriTemplate, which loads with the SDK (as the
	// call's connect would load it), never at start-up.
	useUriTemplate(await loadSdk());
	if (URI.test(name)) return planUriRead(servers, name, input.server);
	// A first call to a server that is starting (a cold npx install) waits for it, with progress
	// ("waiting for everything: installing ... 12 s"), instead of asking to call again.
	const tool = await resolveTool(servers, name, input.server, options);
	if ("error" in tool) return { kind: "failed", result: failure("tool", tool.error) };
	const parsed = parseArgs(input.args);
	if ("error" in parsed) {
		return { kind: "failed", result: failure("tool", `${parsed.error}\n${paramLines(tool.inputSchema).join("\n")}`) };
	}
	return planTool(tool, parsed.args);
}

/**
 * A Pi tool's or a direct tool's call: its tool by server and name (the catalog's entry; no name
 * to resolve), its arguments as Pi checked them against the tool's schema (an object: taken as is).
 */
export async function planToolRef(
	servers: Servers,
	ref: ToolRef,
	args: unknown,
	options: Pick<ProxyRunOptions, "signal" | "onWait">,
): Promise<CallPlan> {
	const tool = await findTool(servers, ref, options);
	if ("error" in tool) return { kind: "failed", result: failure("tool", tool.error) };
	const parsed = parseArgs(args);
	if ("error" in parsed) {
		return { kind: "failed", result: failure("tool", `${parsed.error}\n${paramLines(tool.inputSchema).join("\n")}`) };
	}
	return planTool(tool, parsed.args);
}

/** A catalog tool by its server and name; when the catalog lacks it now, found as `mcp({tool, server})` finds it. */
async function findTool(
	servers: Servers,
	ref: ToolRef,
	options: Pick<ProxyRunOptions, "signal" | "onWait">,
): Promise<CatalogTool | { error: string }> {
	const listed = servers.blocked(ref.server) ? undefined : servers.catalog.forServer(ref.server);
	return listed?.find((t) => t.name === ref.name) ?? resolveTool(servers, ref.qualifiedName, ref.server, options);
}

/** A resolved tool and its arguments: a call, or the read its resource or template stands for. */
async function planTool(tool: CatalogTool, args: Record<string, unknown>): Promise<CallPlan> {
	if (tool.resourceTemplate) useUriTemplate(await loadSdk());
	const uri = tool.resourceUri ?? (tool.resourceTemplate ? templateUri(tool, args) : undefined);
	if (uri === undefined) return { kind: "call", tool, args };
	const details = { server: tool.server, tool: tool.name };
	if (typeof uri === "object") return { kind: "failed", result: failure("tool", uri.error, details) };
	return { kind: "read", read: { server: tool.server, uri, label: tool.qualifiedName, details: { ...details, uri } } };
}

/** Does what a plan says: the call, the read, or the failure's answer. */
export async function runPlan(servers: Servers, plan: CallPlan, options: ProxyRunOptions): Promise<ProxyResult> {
	if (plan.kind === "failed") return plan.result;
	if (plan.kind === "read") return (await readResource(servers, plan.read, options)).answer;
	return callTool(servers, plan.tool, plan.args, options);
}

/** `mcp({tool})` on a Pi without nested tool calls (and the CLI): planned, then run. */
export async function callMode(
	servers: Servers,
	name: string,
	input: ProxyInput,
	options: ProxyRunOptions,
): Promise<ProxyResult> {
	return runPlan(servers, await planCall(servers, name, input, options), options);
}

/**
 * The call, once its tool is resolved and its arguments parsed: every route ends here (`mcp`, Pi
 * 1.5's tools, direct tools). Connects the server (through the gate and its backoff), checks the
 * tool is still there, asks `approveTools`, calls, and words every failure for the model.
 */
export async function callTool(
	servers: Servers,
	tool: CatalogTool,
	args: Record<string, unknown>,
	options: ProxyRunOptions,
): Promise<ProxyResult> {
	const details = { server: tool.server, tool: tool.name };
	let listed = false;
	try {
		// The call goes out once the server is initialized, while its listing may still go on.
		await servers.ensureCallable(tool.server, options.signal);
		listed = servers.listed(tool.server);
		// Connecting refreshed the server's tools; the one found in the cache may have changed or gone.
		const fresh = listed ? servers.catalog.forServer(tool.server).find((t) => t.name === tool.name) : tool;
		if (!fresh) return goneTool(servers, tool, details);
		const answer = await invoke(servers, fresh, args, options);
		return answer.isError && !listed ? ((await goneAfterListing(servers, tool, details)) ?? answer) : answer;
	} catch (error) {
		if (options.signal?.aborted)
			return failure("tool", `${tool.qualifiedName} was cancelled; the server was told to stop.`, details);
		const gone = listed ? undefined : await goneAfterListing(servers, tool, details);
		if (gone) return gone;
		// The pool renewed what it could: a failure that still wants credentials marks the server as needing sign-in.
		if (afterError({ error, during: "request" }) === "sign-in")
			return failure("tool", describeError(servers.failed(tool.server, error)), details);
		// The parameters follow only a refusal of the arguments: after a crash or a timeout they read as if the arguments were wrong.
		const help = isInvalidParams(error) ? `\n${callHelp(tool)}` : "";
		return failure("tool", `${tool.qualifiedName} failed: ${describeError(error)}${help}`, details);
	}
}

/** The tool the cache named is not among those its server listed now. */
function goneTool(servers: Servers, tool: CatalogTool, details: Record<string, unknown>): ProxyResult {
	const suggestions = closestNames(
		tool.name,
		servers.catalog.forServer(tool.server).map((t) => t.qualifiedName),
	);
	const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(", ")}?` : "";
	return failure("tool", `Server "${tool.server}" no longer has a tool "${tool.name}".${hint}`, details);
}

/**
 * A call sent before its server's listing failed: once the listing is in, a tool that is gone is
 * told as such (the server's own error would read as a fault of the arguments or the server).
 */
async function goneAfterListing(
	servers: Servers,
	tool: CatalogTool,
	details: Record<string, unknown>,
): Promise<ProxyResult | undefined> {
	// Never a connect of its own (the server may have crashed under the call): the listing under way, if any.
	// One that fails is recorded as the server's failure; the call's own error says enough then.
	const listed = await servers.listingLanded(tool.server);
	const still = servers.catalog.forServer(tool.server).some((t) => t.name === tool.name);
	return listed && !still ? goneTool(servers, tool, details) : undefined;
}

/** A tool name that is a URI (`scheme://...`): the resource it names is read. */
const URI = /^[a-z][a-z0-9+.-]*:\/\//i;

/** A read by URI (a resource link's target), on the server given or the one whose cached resources it matches. */
function planUriRead(servers: Servers, uri: string, server: string | undefined): CallPlan {
	const owners = server
		? [server]
		: servers.serverNames().filter((s) => servers.catalog.forServer(s).some((t) => readsUri(t, uri)));
	if (owners.length !== 1) {
		const which = `To read ${quote(uri)}, say which server has it: mcp({tool:${JSON.stringify(uri)},server:"name"}).`;
		return { kind: "failed", result: failure("tool", which) };
	}
	const owner = owners[0];
	if (!servers.knows(owner)) return { kind: "failed", result: failure("tool", servers.unknownServer(owner)) };
	return { kind: "read", read: { server: owner, uri, label: uri, details: { server: owner, uri } } };
}

/**
 * Reads a resource (connecting its server first, through the gate) and answers as a tool result;
 * `contents` (known secrets masked by the lifecycle) is what scripts get. Serves `mcp` and `read_mcp_resource`.
 */
export async function readResource(
	servers: Servers,
	read: ResourceRead,
	options: ProxyRunOptions,
): Promise<{ answer: ProxyResult; contents?: ReadResourceResult["contents"] }> {
	const { server, uri, details } = read;
	try {
		await servers.ensureConnected(server, options.signal);
		const refused = await approveRead(servers, server, uri, options.signal);
		if (refused) return { answer: failure("tool", refused.message, { ...details, error: refused.error }) };
		const result = await servers.readResource(server, uri, { signal: options.signal });
		const answer = converted(
			servers,
			server,
			read.label,
			{ content: resourceResultToContent(result) },
			options,
			details,
		);
		return { answer, contents: result.contents };
	} catch (error) {
		if (options.signal?.aborted) return { answer: failure("tool", `Reading ${uri} was cancelled.`, details) };
		if (afterError({ error, during: "request" }) === "sign-in")
			return { answer: failure("tool", describeError(servers.failed(server, error)), details) };
		return { answer: failure("tool", `Reading ${uri} from "${server}" failed: ${describeError(error)}`, details) };
	}
}

/**
 * Whether a read of `uri` on a connected server may go out: a resource is a tool to `approveTools`
 * (2.36's `read_<name>`), so the read asks as a call of the tool that reads it does. Every route to
 * a resource asks here (`mcp`, `read_mcp_resource`, a skill's files: pi-session/skill-events.ts).
 */
export async function approveRead(
	servers: Pick<Servers, "catalog" | "approveCall">,
	server: string,
	uri: string,
	signal?: AbortSignal,
): ReturnType<Servers["approveCall"]> {
	const reader = servers.catalog.forServer(server).find((t) => readsUri(t, uri));
	return reader && servers.approveCall(reader, { uri }, signal);
}

function readsUri(tool: CatalogTool, uri: string): boolean {
	return (
		tool.resourceUri === uri ||
		(tool.resourceTemplate !== undefined && matchTemplate(tool.resourceTemplate, uri) !== undefined)
	);
}

/** Calls a tool on a connected server. */
async function invoke(
	servers: Servers,
	tool: CatalogTool,
	args: Record<string, unknown>,
	options: ProxyRunOptions,
): Promise<ProxyResult> {
	const details = { server: tool.server, tool: tool.name };
	const refused = await servers.approveCall(tool, args, options.signal);
	if (refused) return failure("tool", refused.message, { ...details, error: refused.error });
	options.notes?.(tool.server); // dropped: the result tells only what happened during this call
	const result = await servers.callTool(tool.server, tool.name, args, {
		signal: options.signal,
		onProgress: options.onProgress,
		taskSupport: tool.taskSupport,
	});
	options.onResult?.(result);
	const answer = converted(servers, tool.server, tool.qualifiedName, result, options, details);
	if (result.isError) answer.content.push({ type: "text", text: `\n${callHelp(tool)}` });
	const view = tool.ui?.resourceUri;
	if (view && !result.isError && options.showApp) {
		const shown = await options.showApp(
			{ tool: { ...tool, ui: { ...tool.ui, resourceUri: view } }, args, result },
			options.signal,
		);
		if (shown) answer.content.push({ type: "text", text: `\n(${shown})` });
	}
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
	servers: Servers,
	server: string,
	label: string,
	result: McpResultLike,
	options: ProxyRunOptions,
	details: Record<string, unknown>,
): ProxyResult {
	const readers = servers.catalog.forServer(server).filter((t) => t.resourceUri || t.resourceTemplate);
	const output = options.output;
	const { content, forUser } = convertResult(result, {
		saveBlob: output ? (data, _mime, uri) => output.saveBlob(data, uri) : undefined,
		readHint: (uri) => readCall(readers, server, uri),
	});
	// The answer holds no known secret (the lifecycle masked every string of it), so neither does
	// the output guard's file nor the content kept for the user.
	const guarded = output?.apply(content, label) ?? content;
	for (const note of options.notes?.(server) ?? []) guarded.push({ type: "text", text: `\n(${note})` });
	return {
		content: guarded,
		isError: result.isError === true,
		details: { mode: "tool", ...details, ...(forUser.length > 0 ? { forUser } : {}) },
	};
}

/** JSON-RPC's "Invalid params" (-32602), here or in a cause (a masked message wraps it): the server refused the arguments. */
function isInvalidParams(error: unknown): boolean {
	for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++)
		if ((e as { code?: unknown }).code === -32602) return true;
	return false;
}

function callHelp(tool: CatalogTool): string {
	return `Expected by ${tool.qualifiedName}:\n${paramLines(tool.inputSchema).join("\n")}`;
}

/** `3/10 indexing` — what Pi shows while a long call runs. */
export function progressText(progress: Progress): string {
	const count = progress.total !== undefined ? `${progress.progress}/${progress.total}` : `${progress.progress}`;
	return progress.message ? `${count} ${progress.message}` : count;
}
