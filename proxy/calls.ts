// The `mcp({tool})` mode: finding the tool (connecting servers only when the cache does not know
// it), checking its arguments, calling it or reading the resource it stands for, and turning the
// result into what the model reads.

import type { ReadResourceResult } from "@modelcontextprotocol/client";
import { closestNames } from "../catalog/closest-name.ts";
import type { CatalogTool } from "../catalog/tool-catalog.ts";
import { describeError, isAuthError, quote } from "../errors.ts";
import { loadSdk } from "../lazy.ts";
import type { ServerLifecycle } from "../lifecycle.ts";
import { expandTemplate, matchTemplate, readCall, resourceResultToContent, useUriTemplate } from "../resource-tools.ts";
import type { Progress } from "../server-manager.ts";
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
	lifecycle: ServerLifecycle,
	name: string,
	server: string | undefined,
	options: Pick<ProxyRunOptions, "signal" | "onWait">,
): Promise<CatalogTool | { error: string }> {
	if (server && !lifecycle.knows(server)) return { error: lifecycle.unknownServer(server) };
	const owner = server ?? ownerOf(lifecycle, name);
	const blocked = owner ? lifecycle.blocked(owner) : undefined;
	if (blocked) return { error: blocked };
	let found = lifecycle.catalog.resolve(name, server);
	if (found.kind !== "found") {
		await waitForServers(lifecycle, lifecycle.unlisted(owner ? [owner] : undefined), options);
		if (options.signal?.aborted) return { error: "Cancelled while the server was starting." };
		found = lifecycle.catalog.resolve(name, server);
	}
	if (found.kind === "found") return found.tool;
	if (found.kind === "ambiguous") {
		return {
			error: `${quote(name)} exists on several servers: ${found.tools.map((t) => t.qualifiedName).join(", ")}. Use one of these names.`,
		};
	}
	// A name that points at a server which could not connect: that server's problem is the answer.
	const unavailable = owner ? lifecycle.unavailable(owner) : undefined;
	if (unavailable) return { error: unavailable };
	const hint =
		found.suggestions.length > 0
			? ` Did you mean: ${found.suggestions.join(", ")}?`
			: ' Find tools with mcp({search:"words"}).';
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
 * What a `mcp({tool})` call comes to once its name is resolved (connecting servers when the cache
 * does not know it, through the approval gate): a tool to call, a resource to read, or why neither.
 * Nothing here reaches a tool or a resource: on Pi 1.5 the call then runs as the Pi tool it is.
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

export async function planCall(
	lifecycle: ServerLifecycle,
	name: string,
	input: ProxyInput,
	options: ProxyRunOptions,
): Promise<CallPlan> {
	// Templates are expanded and matched with the SDK's UriTemplate, which loads with the SDK (as the
	// call's connect would load it), never at start-up.
	useUriTemplate(await loadSdk());
	if (URI.test(name)) return planUriRead(lifecycle, name, input.server);
	// A first call to a server that is starting (a cold npx install) waits for it, with progress
	// ("waiting for everything: installing ... 12 s"), instead of asking to call again.
	const tool = await resolveTool(lifecycle, name, input.server, options);
	if ("error" in tool) return { kind: "failed", result: failure("tool", tool.error) };
	const parsed = parseArgs(input.args);
	if ("error" in parsed) {
		return { kind: "failed", result: failure("tool", `${parsed.error}\n${paramLines(tool.inputSchema).join("\n")}`) };
	}
	const uri = tool.resourceUri ?? (tool.resourceTemplate ? templateUri(tool, parsed.args) : undefined);
	if (uri === undefined) return { kind: "call", tool, args: parsed.args };
	const details = { server: tool.server, tool: tool.name };
	if (typeof uri === "object") return { kind: "failed", result: failure("tool", uri.error, details) };
	return { kind: "read", read: { server: tool.server, uri, label: tool.qualifiedName, details: { ...details, uri } } };
}

export async function callMode(
	lifecycle: ServerLifecycle,
	name: string,
	input: ProxyInput,
	options: ProxyRunOptions,
): Promise<ProxyResult> {
	const plan = await planCall(lifecycle, name, input, options);
	if (plan.kind === "failed") return plan.result;
	if (plan.kind === "read") return (await readResource(lifecycle, plan.read, options)).answer;
	const { tool } = plan;
	const details = { server: tool.server, tool: tool.name };
	try {
		await lifecycle.ensureConnected(tool.server, options.signal);
		// Connecting refreshed the server's tools; the one found in the cache may have changed or gone.
		const fresh = lifecycle.catalog.forServer(tool.server).find((t) => t.name === tool.name);
		if (!fresh) {
			const suggestions = closestNames(
				tool.name,
				lifecycle.catalog.forServer(tool.server).map((t) => t.qualifiedName),
			);
			const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(", ")}?` : "";
			return failure("tool", `Server "${tool.server}" no longer has a tool "${tool.name}".${hint}`, details);
		}
		return await invoke(lifecycle, fresh, plan.args, options);
	} catch (error) {
		if (options.signal?.aborted)
			return failure("tool", `${tool.qualifiedName} was cancelled; the server was told to stop.`, details);
		if (isAuthError(error)) return failure("tool", describeError(lifecycle.failed(tool.server, error)), details);
		// The parameters follow only a refusal of the arguments: after a crash or a timeout they read as if the arguments were wrong.
		const help = isInvalidParams(error) ? `\n${callHelp(tool)}` : "";
		return failure("tool", `${tool.qualifiedName} failed: ${describeError(error)}${help}`, details);
	}
}

/** A tool name that is a URI (`scheme://...`): the resource it names is read. */
const URI = /^[a-z][a-z0-9+.-]*:\/\//i;

/** A read by URI (a resource link's target), on the server given or the one whose cached resources it matches. */
function planUriRead(lifecycle: ServerLifecycle, uri: string, server: string | undefined): CallPlan {
	const owners = server
		? [server]
		: lifecycle.serverNames().filter((s) => lifecycle.catalog.forServer(s).some((t) => readsUri(t, uri)));
	if (owners.length !== 1) {
		const which = `To read ${quote(uri)}, say which server has it: mcp({tool:${JSON.stringify(uri)},server:"name"}).`;
		return { kind: "failed", result: failure("tool", which) };
	}
	const owner = owners[0];
	if (!lifecycle.knows(owner)) return { kind: "failed", result: failure("tool", lifecycle.unknownServer(owner)) };
	return { kind: "read", read: { server: owner, uri, label: uri, details: { server: owner, uri } } };
}

/**
 * Reads a resource (connecting its server first, through the gate) and answers as a tool result;
 * `contents` (known secrets masked by the lifecycle) is what scripts get. Serves `mcp` and `read_mcp_resource`.
 */
export async function readResource(
	lifecycle: ServerLifecycle,
	read: ResourceRead,
	options: ProxyRunOptions,
): Promise<{ answer: ProxyResult; contents?: ReadResourceResult["contents"] }> {
	const { server, uri, details } = read;
	try {
		await lifecycle.ensureConnected(server, options.signal);
		// A resource is a tool to `approveTools` (2.36's `read_<name>`): the read asks as a call does.
		const reader = lifecycle.catalog.forServer(server).find((t) => readsUri(t, uri));
		const refused = reader && (await lifecycle.approveCall(reader, { uri }, options.signal));
		if (refused) return { answer: failure("tool", refused.message, { ...details, error: refused.error }) };
		const result = await lifecycle.readResource(server, uri, { signal: options.signal });
		const answer = converted(
			lifecycle,
			server,
			read.label,
			{ content: resourceResultToContent(result) },
			options,
			details,
		);
		return { answer, contents: result.contents };
	} catch (error) {
		if (options.signal?.aborted) return { answer: failure("tool", `Reading ${uri} was cancelled.`, details) };
		if (isAuthError(error)) return { answer: failure("tool", describeError(lifecycle.failed(server, error)), details) };
		return { answer: failure("tool", `Reading ${uri} from "${server}" failed: ${describeError(error)}`, details) };
	}
}

function readsUri(tool: CatalogTool, uri: string): boolean {
	return (
		tool.resourceUri === uri ||
		(tool.resourceTemplate !== undefined && matchTemplate(tool.resourceTemplate, uri) !== undefined)
	);
}

/** Calls a tool on a connected server. */
async function invoke(
	lifecycle: ServerLifecycle,
	tool: CatalogTool,
	args: Record<string, unknown>,
	options: ProxyRunOptions,
): Promise<ProxyResult> {
	const details = { server: tool.server, tool: tool.name };
	const refused = await lifecycle.approveCall(tool, args, options.signal);
	if (refused) return failure("tool", refused.message, { ...details, error: refused.error });
	options.notes?.(tool.server); // dropped: the result tells only what happened during this call
	const result = await lifecycle.callTool(tool.server, tool.name, args, {
		signal: options.signal,
		onProgress: options.onProgress,
		task: tool.taskSupport === "required",
	});
	options.onResult?.(result);
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
