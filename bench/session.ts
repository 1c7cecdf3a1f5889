// One subagent's session on every MCP stack a Pi user can choose, side by side in one run: the real
// `pi -p` with a scripted model that calls three real servers (a first cold call, a warm call, two
// more cold calls), then answers. Each Pi 1.x line's built-in MCP, pi-mcp-adapter 2.36 on Pi 1.5,
// and this extension on every line; Pi without MCP as the floor. Each stack first runs a session in
// a new home (empty caches: its first session), then RUNS more (medians), the stacks taking turns.
// The model thinks THINK_MS before its first answer, as a real one does, and sends each call at one
// of two paces: streamed over CALL_STREAM_MS (the tool's name first, its arguments after), as a
// model writing its call does, or at once (a fast model, a cached answer), which leaves a start on
// the streamed call no head start. Ours saves in three ways, measured apart: the learned warm-up (at
// the first prompt, the servers the project's recent sessions called start; "no warm-up" is
// `settings.warmUp: false`), the start on the streamed call (a server starts once the call names it;
// "no prestart" is `settings.prestart: false`, which turns both off), and the early send (a call
// goes out once its server is initialized, before its listing: always on, measured alone by
// bench/cold-start.ts).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EVERYTHING, FILESYSTEM, MEMORY } from "../tests/support/helpers.ts";
import type { ChatRequest, Step, StepReply } from "../tests/support/mock-openai.ts";
import { ensurePeerAdapter, PEER_VERSION } from "../tests/support/peer-adapter.ts";
import { BENCH_RUN_MS, createPiHome, type PiHome, type RunOptions, runPi } from "../tests/support/pi-cli-harness.ts";
import { PI_15, PI_073 } from "../tests/support/pi-hosts.ts";
import { lineName, PI1_LINES } from "./pi-lines.ts";
import { treeRssMb } from "./process-memory.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
/** How long the scripted model takes before its first call. */
export const THINK_MS = 1000;
/** How long a call's arguments take to stream after its tool's name (~20 tokens at ~60 tokens/s). */
export const CALL_STREAM_MS = 300;

/** How the model sends a call: its tool's name first and the rest `streamMs` later, or (0) all in one piece. */
interface Pace {
	readonly name: string;
	readonly streamMs: number;
}
const STREAMED: Pace = { name: `streamed ${CALL_STREAM_MS} ms`, streamMs: CALL_STREAM_MS };
const AT_ONCE: Pace = { name: "at once", streamMs: 0 };
const PACES: readonly Pace[] = [STREAMED, AT_ONCE];

interface Stack {
	readonly name: string;
	readonly options: RunOptions;
	readonly pace: Pace;
	/** Pi without MCP: the session only answers (the floor for session time, exit and memory). */
	readonly floor?: boolean;
	/** Settings written into the stack's mcp.json. */
	readonly settings?: Record<string, unknown>;
}

/** The calls, in order: the first reaches everything cold, the second warm, then memory and filesystem cold. */
const CALLS = [
	{ server: "everything", tool: "get-sum", args: { a: 1, b: 2 } },
	{ server: "everything", tool: "get-sum", args: { a: 3, b: 4 } },
	{ server: "memory", tool: "read_graph", args: {} },
	{ server: "filesystem", tool: "list_allowed_directories", args: {} },
] as const;
/** The servers the session calls: a stack that starts more started what it did not need. */
const CALLED = new Set(CALLS.map((c) => c.server)).size;

interface Sample {
	readonly session: number;
	/** Model answer with the call → Pi's next request (the result), per call. */
	readonly calls: number[];
	readonly exitAfterAnswer: number;
	readonly rssMb: number;
	readonly starts: number;
	/** Per server started: when its process began, in ms after the model sent the call that first needed it (< 0: before). */
	readonly spawnedAfterCall: Record<string, number>;
	readonly results: string[];
}

/** The stack's own way to call a tool: a Pi tool of that name if the model was given one, else the `mcp` proxy. */
export function toolCall(request: ChatRequest, server: string, tool: string, args: Record<string, unknown>) {
	// Pi 1.5 names it mcp__<server>__<tool>, sanitized (get-sum may become get_sum).
	const plain = (name: string) => name.replace(/[^A-Za-z0-9]/g, "_");
	const direct = request.tools?.find((t) => plain(t.function.name) === plain(`mcp__${server}__${tool}`));
	if (direct) return { toolCall: { name: direct.function.name, arguments: args } };
	return { toolCall: { name: "mcp", arguments: { tool: `${server}_${tool}`, args } } };
}

/** The call at the model's pace: at once, or the tool's name (and for `mcp` its `tool`) first and the rest `streamMs` later. */
function paced(call: ReturnType<typeof toolCall>, pace: Pace): StepReply {
	if (pace.streamMs === 0) return call;
	const text = JSON.stringify(call.toolCall.arguments);
	const named = call.toolCall.name === "mcp" ? text.indexOf('","args"') : 0;
	return { ...call, hold: { after: named, until: () => new Promise((r) => setTimeout(r, pace.streamMs)) } };
}

async function session(home: PiHome, stack: Stack, log: string): Promise<Sample> {
	const arrivals: number[] = [];
	const results: string[] = [];
	let pid = -1;
	let rssMb = 0;
	const startsBefore = startLines(log).length;
	const calls = stack.floor ? [] : CALLS;
	const steps: Step[] = [
		...calls.map(({ server, tool, args }, i) => async (request: ChatRequest) => {
			// The model thinks before its first call, as a real one does (for seconds): the time each
			// stack has to prepare (ours loads its MCP client then; Pi's built-in starts every server).
			if (i === 0) await new Promise((r) => setTimeout(r, THINK_MS));
			arrivals.push(performance.now());
			if (arrivals.length > 1) results.push(lastResult(request));
			return paced(toolCall(request, server, tool, { ...args }), stack.pace);
		}),
		async (request: ChatRequest) => {
			if (calls.length === 0) await new Promise((r) => setTimeout(r, THINK_MS)); // Pi without MCP: the same model
			arrivals.push(performance.now());
			if (calls.length > 0) results.push(lastResult(request));
			if (pid > 0) rssMb = treeRssMb(pid);
			return { text: "done" };
		},
	];
	const started = performance.now();
	const run = await runPi(home, "use the servers", {
		...stack.options,
		steps,
		timeoutMs: BENCH_RUN_MS,
		onSpawn: (p) => (pid = p),
	});
	const exited = performance.now();
	if (run.code !== 0) throw new Error(`${stack.name}: pi exited ${run.code}: ${run.stderr.slice(-2000)}`);
	const starts = startLines(log).slice(startsBefore);
	return {
		session: exited - started,
		calls: arrivals.slice(1).map((t, i) => t - arrivals[i]),
		exitAfterAnswer: exited - arrivals[arrivals.length - 1],
		rssMb,
		starts: starts.length,
		spawnedAfterCall: Object.fromEntries(
			starts.flatMap(({ server, at }) => {
				const first = calls.findIndex((c) => c.server === server);
				return first < 0 ? [] : [[server, at - (performance.timeOrigin + arrivals[first])]];
			}),
		),
		results,
	};
}

function lastResult(request: ChatRequest): string {
	const tool = [...request.messages].reverse().find((m) => m.role === "tool");
	return typeof tool?.content === "string" ? tool.content : JSON.stringify(tool?.content ?? "");
}

/** The starts logged so far: which server, and when (ms since the epoch). */
function startLines(file: string): { server: string; at: number }[] {
	if (!existsSync(file)) return [];
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.filter(Boolean)
		.map((line) => {
			const [server, at] = line.split(" ");
			return { server, at: Number(at) };
		});
}

/**
 * The three servers, each wrapped to log its starts (name and time); `exposure: "direct"` (the
 * default here) is Pi 1.5's way to declare their tools to the model, and every declared tool costs
 * Pi time each turn.
 */
export function mcpConfig(home: PiHome, log: string, direct = true): Record<string, unknown> {
	const server = (name: string, script: string, extra: string[] = [], env: Record<string, string> = {}) => ({
		command: "sh",
		args: [
			"-c",
			`echo ${name} $(date +%s%3N) >> '${log}'; exec '${process.execPath}' '${script}' ${extra.map((a) => `'${a}'`).join(" ")}`,
		],
		env,
		...(direct ? { exposure: "direct" } : {}),
	});
	return {
		mcpServers: {
			everything: server("everything", EVERYTHING, ["stdio"]),
			memory: server("memory", MEMORY, [], { MEMORY_FILE_PATH: join(home.root, "memory.jsonl") }),
			filesystem: server("filesystem", FILESYSTEM, [home.cwd]),
		},
	};
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Row {
	readonly stack: Stack;
	readonly first: Sample;
	readonly warm: Sample[];
}

/**
 * Each stack in its own home: its first session, then RUNS more, the stacks taking turns session by
 * session, so a busy moment of the shared machine falls on all of them alike.
 */
async function measure(stacks: readonly Stack[]): Promise<Row[]> {
	const homes: { stack: Stack; home: PiHome; log: string; first?: Sample; warm: Sample[] }[] = [];
	try {
		for (const stack of stacks) {
			const home = await createPiHome({});
			const log = join(home.root, "starts.log");
			homes.push({ stack, home, log, warm: [] });
			home.writeAgentFile("mcp.json", JSON.stringify({ ...mcpConfig(home, log), settings: stack.settings }));
		}
		for (const h of homes) h.first = await session(h.home, h.stack, h.log);
		for (let i = 0; i < RUNS; i++) for (const h of homes) h.warm.push(await session(h.home, h.stack, h.log));
		return homes.map((h) => ({ stack: h.stack, first: h.first as Sample, warm: h.warm }));
	} finally {
		for (const { home } of homes) await home.dispose();
	}
}

/** Every stack measured: per Pi 1.x line its floor, and its built-in and ours at each pace; then the others. */
function allStacks(peer: string): Stack[] {
	const stacks: Stack[] = [];
	for (const host of PI1_LINES) {
		const line = lineName(host);
		stacks.push({ name: `${line}, no MCP`, options: { host, noExtension: true }, pace: AT_ONCE, floor: true });
		for (const pace of PACES) {
			stacks.push({
				name: `${line} built-in MCP, ${pace.name}`,
				options: { host, noExtension: true, builtins: ["mcp"] },
				pace,
			});
			stacks.push({ name: `ours, ${line}, ${pace.name}`, options: { host }, pace });
		}
	}
	const oursOn15 = (what: string, pace: Pace, settings: Record<string, unknown>): Stack => ({
		name: `ours, Pi 1.5, ${pace.name}, ${what}`,
		options: { host: PI_15 },
		pace,
		settings,
	});
	stacks.push(
		oursOn15("no warm-up", STREAMED, { warmUp: false }),
		oursOn15("no warm-up", AT_ONCE, { warmUp: false }),
		oursOn15("no prestart", STREAMED, { prestart: false }),
		{
			name: `pi-mcp-adapter ${PEER_VERSION}, Pi 1.5, ${STREAMED.name}`,
			options: { host: PI_15, noExtension: true, extraArgs: ["-e", peer] },
			pace: STREAMED,
		},
		{ name: "pi 0.73, no MCP", options: { host: PI_073, noExtension: true }, pace: AT_ONCE, floor: true },
		{ name: `ours, pi 0.73, ${STREAMED.name}`, options: { host: PI_073 }, pace: STREAMED },
	);
	return stacks;
}

export async function main(): Promise<void> {
	// BENCH_STACKS="at once|no MCP" measures only the stacks whose names contain one of those (names hold commas).
	const only = process.env.BENCH_STACKS?.split("|");
	const chosen = allStacks(ensurePeerAdapter()).filter((s) => !only || only.some((w) => s.name.includes(w)));
	const rows = await measure(chosen);
	console.log(
		`== One subagent session (pi -p): 3 real servers, ${CALLS.length} calls, then the answer; medians of ${RUNS} after a first session ==`,
	);
	printTable(rows);
	for (const row of rows)
		for (const { results } of row.warm)
			if (results.some((r) => !/3|7|entities|directories|Allowed/i.test(r)))
				console.log(`(warning: ${row.stack.name} answered a call with: ${results.join(" | ").slice(0, 300)})`);
	printVersusBuiltIn(rows);
	printSavings(rows);
}

const m = (row: Row, pick: (s: Sample) => number) => median(row.warm.map(pick));
const ms = (x: number | undefined) => (x === undefined ? "-" : `${x.toFixed(0)} ms`);
/** The later first calls (memory, then filesystem), each the first to its server: their mean. */
const laterFirst = (s: Sample) => (s.calls[2] + s.calls[3]) / 2;

function printTable(rows: readonly Row[]): void {
	const header = [
		"stack",
		"session",
		"1st call",
		"warm call",
		"later 1st calls",
		"exit after answer",
		"RSS",
		"starts 1st/later",
	];
	const table = rows.map(({ stack, first, warm }) => {
		const call = (i: number) => (warm[0].calls.length > i ? median(warm.map((s) => s.calls[i])) : undefined);
		return [
			stack.name,
			ms(median(warm.map((s) => s.session))),
			ms(call(0)),
			ms(call(1)),
			ms(warm[0].calls.length > 3 ? median(warm.map(laterFirst)) : undefined),
			ms(median(warm.map((s) => s.exitAfterAnswer))),
			`${median(warm.map((s) => s.rssMb)).toFixed(0)} MB`,
			`${first.starts}/${median(warm.map((s) => s.starts))}`,
		];
	});
	const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
	for (const line of [header, ...table]) console.log(line.map((c, i) => c.padEnd(widths[i])).join("  "));
}

/**
 * Ours over each Pi 1.x line's built-in at each pace, as ratios measured side by side: the first
 * call, a later first call to another server, the whole session; servers started beside those called.
 */
function printVersusBuiltIn(rows: readonly Row[]): void {
	const get = (name: string) => rows.find((r) => r.stack.name === name);
	console.log(
		`ours / the built-in (ratios of medians; targets at once: calls <= 2x, session <= 1x, servers started = ${CALLED} called):`,
	);
	for (const host of PI1_LINES)
		for (const pace of PACES) {
			const ours = get(`ours, ${lineName(host)}, ${pace.name}`);
			const builtIn = get(`${lineName(host)} built-in MCP, ${pace.name}`);
			if (!ours || !builtIn) continue;
			const ratio = (pick: (s: Sample) => number) =>
				`${(m(ours, pick) / m(builtIn, pick)).toFixed(2)}x (${m(ours, pick).toFixed(0)} / ${m(builtIn, pick).toFixed(0)} ms)`;
			const spawned = ["memory", "filesystem"].map(
				(server) => `${server} ${m(ours, (s) => s.spawnedAfterCall[server] ?? Number.NaN).toFixed(0)}`,
			);
			console.log(
				`  ${lineName(host)}, ${pace.name}: 1st call ${ratio((s) => s.calls[0])}, later 1st call ${ratio(laterFirst)}, session ${ratio((s) => s.session)}; servers started ${m(ours, (s) => s.starts)} (built-in ${m(builtIn, (s) => s.starts)}) for ${CALLED} called; ours started each later server ${spawned.join(", ")} ms after its call`,
			);
		}
}

/** What each of ours' ways saves (beside the stack without it), the exit, and the other extension. */
function printSavings(rows: readonly Row[]): void {
	const get = (name: string) => rows.find((r) => r.stack.name === name);
	const saving = (what: string, withIt: Row | undefined, without: Row | undefined) => {
		if (!withIt || !without) return;
		console.log(
			`${what}: 1st call ${m(withIt, (s) => s.calls[0]).toFixed(0)} vs ${m(without, (s) => s.calls[0]).toFixed(0)} ms without, later 1st calls ${m(withIt, laterFirst).toFixed(0)} vs ${m(without, laterFirst).toFixed(0)} ms, session ${(m(withIt, (s) => s.session) / m(without, (s) => s.session)).toFixed(2)}x`,
		);
	};
	for (const pace of PACES)
		saving(
			`learned warm-up, ${pace.name}`,
			get(`ours, Pi 1.5, ${pace.name}`),
			get(`ours, Pi 1.5, ${pace.name}, no warm-up`),
		);
	saving(
		`start on the streamed call (without warm-up), ${STREAMED.name}`,
		get(`ours, Pi 1.5, ${STREAMED.name}, no warm-up`),
		get(`ours, Pi 1.5, ${STREAMED.name}, no prestart`),
	);
	const ours = get(`ours, Pi 1.5, ${STREAMED.name}`);
	const floor = get("Pi 1.5, no MCP");
	const others = [
		get(`Pi 1.5 built-in MCP, ${STREAMED.name}`),
		get(`pi-mcp-adapter ${PEER_VERSION}, Pi 1.5, ${STREAMED.name}`),
	];
	if (!ours || !floor || others.some((o) => !o)) return;
	const exit = (row: Row) => m(row, (s) => s.exitAfterAnswer);
	const bestExit = Math.min(...others.map((o) => exit(o as Row)));
	console.log(
		`exit after answer, ours - best other: ${(exit(ours) - bestExit).toFixed(0)} ms (target <= 50); ours - Pi without MCP: ${(exit(ours) - exit(floor)).toFixed(0)} ms`,
	);
	for (const other of others as Row[]) {
		const ratio = (pick: (s: Sample) => number) => (m(ours, pick) / m(other, pick)).toFixed(2);
		console.log(
			`ours / ${other.stack.name}: session ${ratio((s) => s.session)}x, 1st call ${ratio((s) => s.calls[0])}x, warm call ${(m(ours, (s) => s.calls[1]) - m(other, (s) => s.calls[1])).toFixed(1)} ms apart, RSS ${ratio((s) => s.rssMb)}x`,
		);
	}
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
