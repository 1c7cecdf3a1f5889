// The one `mcp` tool the model sees, and its modes (priority tool > connect > describe > search >
// server > status). Each mode answers with text a model can act on; every failure says what was
// wrong and what to do instead. The same `runProxy` serves Pi and the CLI.

import { formatProblem } from "../config.ts";
import { describeError, noServersMessage, quote } from "../errors.ts";
import type { ServerLifecycle, Servers } from "../lifecycle.ts";
import { loadSearch } from "../search/engine.lazy.ts";
import { scrubStrings } from "../trust/redaction.ts";
import { failedNote, failure, ok, type ProxyResult, type ProxyRunOptions } from "./answer.ts";
import { type CallPlan, callMode, planCall, planToolRef, resolveTool, runPlan, type ToolRef } from "./calls.ts";
import { instructionsInListing, wholeInstructions } from "./instructions.ts";
import { countLabel, stateText } from "./server-status.ts";
import { callsTool, type ProxyInput } from "./surface.ts";
import { describeTool, toolLine } from "./tool-format.ts";
import { waitForServers } from "./waiting.ts";

export type { ProxyResult, ProxyRunOptions } from "./answer.ts";
export type { CallPlan, ToolRef } from "./calls.ts";
export { approveRead, progressText, readResource } from "./calls.ts";
export { contentText } from "./tool-results.ts";

/** Hits shown by default, and how many of the best carry their parameters. */
const SEARCH_LIMIT = 5;
const HITS_WITH_PARAMS = 3;
/**
 * Past those, this many more by name only (~7 tokens each). Chosen on the tuning set searched
 * without the idiom lexicon (with it, 5 and more show the same): 5 -> 8 finds one more query's
 * tool, 10 and 15 none beyond 8.
 */
const NAMES_ONLY = 8;
/** A hit must answer at least this share of the query's words... */
const GOOD_COVERAGE = 0.5;
/** ...and score at least this share of the best hit's, or it is padding. */
const WEAK_SCORE = 0.15;
/**
 * Every other hit under this share of the top hit's score, and the top hit answering the whole query:
 * the top one is the answer, the rest left out. A top hit that leaves some of the query's words
 * unanswered is no clear winner, however loud: those words may be what a quieter tool answers
 * ("append a paragraph to a page": a link tool far ahead on "page", the block-appending tool below).
 * Chosen on the tuning set (issue 41, fourth round): any share from 0.6 to the whole query gains the same.
 */
const CLEAR_WINNER = 0.3;
/** The whole query: coverage is a sum of rarity weights, so a full answer may fall a rounding error short of 1. */
const CLEAR_WINNER_COVERAGE = 0.99;
/** How much of the ranking the details (Pi's UI and logs, never the model) keep. */
const RANKED_IN_DETAILS = 20;
/**
 * How long a status answer waits for the servers starting with the session (so that it can show
 * their tool counts): it needs none of them, and says what each is doing. Search, list, describe
 * and calls wait for the servers they need (proxy/waiting.ts).
 */
const STATUS_WAIT_MS = 2000;

export async function runProxy(
	lifecycle: ServerLifecycle,
	input: ProxyInput,
	options: ProxyRunOptions = {},
): Promise<ProxyResult> {
	const mode = pickMode(input);
	return answered(lifecycle, mode, () => dispatch(lifecycle, mode, input, options));
}

/**
 * The answer `work` makes, a thrown error worded as the mode's failure. A tool's own successful
 * output comes with its secrets masked (lifecycle.ts) and its URLs whole. Everything else passes the
 * scrubber, URLs' queries too: errors, status, search, descriptions may carry what a server echoed
 * (env, headers, tokens) or a URL's query.
 */
async function answered(servers: Servers, mode: Mode, work: () => Promise<ProxyResult>): Promise<ProxyResult> {
	let result: ProxyResult;
	try {
		result = await work();
	} catch (error) {
		result = failure(mode, describeError(error));
	}
	if (result.details.mode === "tool" && !result.isError) return result;
	return scrubbed(servers, result);
}

function scrubbed(lifecycle: Pick<Servers, "redactor">, result: ProxyResult): ProxyResult {
	const scrub = (text: string) => lifecycle.redactor.scrub(text);
	return {
		...result,
		content: result.content.map((c) => (c.type === "text" ? { ...c, text: scrub(c.text) } : c)),
		details: scrubStrings(result.details, scrub),
	};
}

/**
 * `mcp({tool})` resolved but not run (Pi 1.5 runs it as the Pi tool it is, pi-tools/calls-through-pi.ts);
 * a failure is scrubbed as runProxy's answers are.
 */
export function planToolCall(
	servers: Servers,
	input: ProxyInput & { readonly tool: string },
	options: ProxyRunOptions = {},
): Promise<CallPlan> {
	return planned(servers, () => planCall(servers, input.tool, input, options));
}

/** A Pi tool's or a direct tool's call planned: its tool by server and name, its arguments as Pi checked them. */
export function planRefCall(
	servers: Servers,
	ref: ToolRef,
	args: unknown,
	options: ProxyRunOptions = {},
): Promise<CallPlan> {
	return planned(servers, () => planToolRef(servers, ref, args, options));
}

/** A plan, its failure (or a thrown error, worded) scrubbed as runProxy's answers are. */
async function planned(servers: Servers, plan: () => Promise<CallPlan>): Promise<CallPlan> {
	try {
		const made = await plan();
		return made.kind === "failed" ? { kind: "failed", result: scrubbed(servers, made.result) } : made;
	} catch (error) {
		return { kind: "failed", result: scrubbed(servers, failure("tool", describeError(error))) };
	}
}

/** A planned call run (the call, or the read), answered as runProxy answers. */
export function runCallPlan(servers: Servers, plan: CallPlan, options: ProxyRunOptions = {}): Promise<ProxyResult> {
	return answered(servers, "tool", () => runPlan(servers, plan, options));
}

/** A refusal of a `mcp({tool})` call, as the proxy words its failures. */
export const refusal = (body: string): ProxyResult => failure("tool", body);

async function dispatch(
	lifecycle: ServerLifecycle,
	mode: Mode,
	input: ProxyInput,
	options: ProxyRunOptions,
): Promise<ProxyResult> {
	switch (mode) {
		case "tool":
			return callMode(lifecycle, input.tool as string, input, options);
		case "connect":
			return connectMode(lifecycle, input.connect as string);
		case "describe":
			return describeMode(lifecycle, input.describe as string, input.server, options);
		case "search":
			return searchMode(lifecycle, input, options);
		case "server":
			return serverMode(lifecycle, input.server as string, input, options);
		default:
			// The first run fills the cache in the background: a moment's wait lets the model see tool counts.
			await lifecycle.settled(options.statusWaitMs ?? STATUS_WAIT_MS);
			return statusMode(lifecycle);
	}
}

type Mode = "tool" | "connect" | "describe" | "search" | "server" | "status";

function pickMode(input: ProxyInput): Mode {
	if (callsTool(input)) return "tool";
	if (present(input.connect)) return "connect";
	if (present(input.describe)) return "describe";
	if (present(input.search)) return "search";
	if (present(input.server)) return "server";
	return "status";
}

const present = (v: string | undefined): v is string => typeof v === "string" && v.trim().length > 0;
function statusMode(lifecycle: ServerLifecycle): ProxyResult {
	const names = lifecycle.serverNames();
	if (names.length === 0) {
		const errors = lifecycle.config.problems.filter((p) => p.severity === "error").map(formatProblem);
		if (errors.length > 0)
			return ok(
				"status",
				`No MCP server could be loaded; the config has problems (tell the user):\n${errors.slice(0, 5).join("\n")}`,
			);
		return ok("status", noServersMessage());
	}
	const lines = names.map((name) => `- ${name}: ${stateText(lifecycle, name)}`);
	const errors = lifecycle.config.problems.filter((p) => p.severity === "error" && !p.server).map(formatProblem);
	const broken = errors.length > 0 ? `\nConfig problems (tell the user):\n${errors.slice(0, 3).join("\n")}` : "";
	return ok("status", `MCP servers:\n${lines.join("\n")}${broken}\nFind tools with mcp({search:"words"}).`, {
		servers: names.map((name) => ({ name, state: lifecycle.state(name) })),
	});
}

async function serverMode(
	lifecycle: ServerLifecycle,
	server: string,
	input: ProxyInput,
	options: ProxyRunOptions,
): Promise<ProxyResult> {
	if (!lifecycle.knows(server)) return failure("server", lifecycle.unknownServer(server));
	const blocked = lifecycle.blocked(server);
	if (blocked) return failure("server", blocked, { server });
	if (!lifecycle.catalog.has(server)) {
		await waitForServers(lifecycle, lifecycle.unlisted([server]), options);
		if (options.signal?.aborted) return failure("server", `Cancelled while "${server}" was starting.`, { server });
		// Not known after its connect ended: it failed, and this says why (fast, within the failure backoff).
		if (!lifecycle.catalog.has(server)) await lifecycle.ensureConnected(server);
	}
	const tools = lifecycle.catalog.forServer(server);
	const instructions = lifecycle.instructions(server);
	if (input.instructions === true) {
		const whole = instructions ? wholeInstructions(server, instructions) : `"${server}" sent no instructions.`;
		return ok("server", `${server}: ${countLabel(lifecycle, server)}\n${whole}`, { server, instructions: true });
	}
	// The server's own words on how to use it, where the model looks at its tools: their start (a
	// listing is asked for often), the whole on request.
	const about = instructions ? `\n${instructionsInListing(server, instructions)}\n` : "";
	if (tools.length === 0) return ok("server", `Server "${server}" has no tools.${about}`, { server });
	const withParams = input.includeSchemas !== false;
	const body = `${server}: ${countLabel(lifecycle, server)}${about}\n${tools.map((t) => toolLine(t, withParams)).join("\n")}`;
	return ok("server", body, { server, count: tools.length });
}

async function searchMode(
	lifecycle: ServerLifecycle,
	input: ProxyInput,
	options: ProxyRunOptions,
): Promise<ProxyResult> {
	const query = (input.search as string).trim();
	if (input.server && !lifecycle.knows(input.server)) {
		return failure("search", lifecycle.unknownServer(input.server));
	}
	const { searchCatalog } = await loadSearch();
	const limit = Math.max(1, Math.min(50, Math.floor(input.limit ?? SEARCH_LIMIT)));
	// Only what the answer can use: the good hits (within WEAK_SCORE of the best), the 20 best for details, the shown ones.
	const search = () =>
		searchCatalog(lifecycle.catalog, query, {
			regex: input.regex,
			server: input.server,
			keep: { top: Math.max(RANKED_IN_DETAILS, limit), share: WEAK_SCORE },
		});
	let hits = search();
	// Servers whose tools are not known yet (installing, starting) are waited for, unless the known
	// tools already answer the query well: then the answer does not depend on them.
	const unlisted = lifecycle.unlisted(input.server ? [input.server] : undefined);
	if (unlisted.length > 0 && !(hits[0] && isGoodHit(hits[0], hits[0].score))) {
		await waitForServers(lifecycle, unlisted, options);
		if (options.signal?.aborted) return failure("search", "Cancelled while servers were starting.");
		hits = search();
	}
	if (hits.length === 0) {
		return ok(
			"search",
			`No tools match ${quote(query)}. Try other words, or ${listHint(lifecycle)}.${failedNote(lifecycle)}`,
			{ query, count: 0 },
		);
	}
	// A hit that answers under half the query's words is a guess: marked so, but kept in the engine's
	// order (re-sorting good ones first hid the right tool ranked 4th or 5th behind worse "good" ones).
	const isGood = (h: (typeof hits)[number]) => isGoodHit(h, hits[0].score);
	const good = hits.filter(isGood);
	// One clear winner (it answers the whole query, every other hit scores under CLEAR_WINNER of it): the answer may stay short.
	const clear =
		isGood(hits[0]) &&
		hits[0].coverage >= CLEAR_WINNER_COVERAGE &&
		hits.slice(1).every((h) => h.score < hits[0].score * CLEAR_WINNER);
	const shown = clear ? hits.filter(isGood).slice(0, limit) : hits.slice(0, limit);
	// More candidates for a few tokens: the next ones by name only (describe or call them by it).
	const also = clear
		? []
		: hits.filter((h) => !shown.includes(h) && h.score >= hits[0].score * WEAK_SCORE).slice(0, NAMES_ONLY);
	const alsoLine = also.length > 0 ? `\nAlso: ${also.map((h) => h.tool.qualifiedName).join(", ")}` : "";
	if (good.length === 0) {
		// No tool answers the query well: the closest, and the next ones by name (where more candidates matter most).
		const closest = shown.map((h) => toolLine(h.tool, false));
		const body = `No tool matches all of ${quote(query)}. Closest:\n${closest.join("\n")}${alsoLine}\nOr ${listHint(lifecycle)}.${failedNote(lifecycle)}`;
		return ok("search", body, { query, count: 0, closest: shown.map((h) => h.tool.qualifiedName) });
	}
	const withParams = input.includeSchemas !== false;
	const lines = shown.map(
		(h, i) => `${toolLine(h.tool, withParams && i < HITS_WITH_PARAMS)}${isGood(h) ? "" : " (weak match)"}`,
	);
	const rest = good.filter((h) => !shown.includes(h) && !also.includes(h)).length;
	const more = rest > 0 ? `\n(${rest} more: raise limit or add words)` : "";
	const body = `${lines.join("\n")}${alsoLine}${more}${failedNote(lifecycle)}`;
	// details stay with Pi (UI, logs), never reach the model: the ranking behind the answer.
	const ranked = hits
		.slice(0, RANKED_IN_DETAILS)
		.map((h) => ({ tool: h.tool.qualifiedName, score: Math.round(h.score * 100) / 100 }));
	const tools = [...shown, ...also].map((h) => h.tool.qualifiedName);
	return ok("search", body, { query, count: good.length, tools, ranked });
}

/** A hit that answers at least half the query's words and is not padding beside the best one. */
function isGoodHit(hit: { readonly coverage: number; readonly score: number }, best: number): boolean {
	return hit.coverage >= GOOD_COVERAGE && hit.score >= best * WEAK_SCORE;
}

/** Where to look when search finds nothing good: the servers whose tools are known. */
function listHint(lifecycle: ServerLifecycle): string {
	const known = lifecycle.serverNames().filter((n) => lifecycle.catalog.has(n));
	return known.length > 0
		? `list a server's tools: mcp({server:"name"}) (${known.join(", ")})`
		: "no server's tools are known yet";
}

async function describeMode(
	lifecycle: ServerLifecycle,
	name: string,
	server: string | undefined,
	options: ProxyRunOptions,
): Promise<ProxyResult> {
	const tool = await resolveTool(lifecycle, name, server, options);
	if ("error" in tool) return failure("describe", tool.error);
	return ok("describe", describeTool(tool), { server: tool.server, tool: tool.name });
}

async function connectMode(lifecycle: ServerLifecycle, server: string): Promise<ProxyResult> {
	const blocked = lifecycle.blocked(server);
	if (blocked) return failure("connect", blocked, { server });
	const connection = await lifecycle.reconnect(server);
	const count = lifecycle.catalog.forServer(server).length;
	return ok(
		"connect",
		`Connected to "${server}" (${connection.transportKind}): ${count} tools. List them with mcp({server:"${server}"}).`,
		{
			server,
			count,
		},
	);
}
