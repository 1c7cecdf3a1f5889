// One subagent's session on every MCP stack a Pi user can choose, side by side in one run: the real
// `pi -p` with a scripted model that calls three real servers (a first cold call, a warm call, two
// more cold calls), then answers. Pi 1.5's and 1.6's built-in MCP, pi-mcp-adapter 2.36 on Pi 1.5, and this
// extension on every Pi line; Pi without MCP as the floor. Each stack first runs a session in a new
// home (empty caches: its first session), then RUNS more (medians), the stacks taking turns. The model thinks THINK_MS
// before its first answer, as a real one does, and streams each call over CALL_STREAM_MS (the
// tool's name first, its arguments after), as real ones do. Ours saves in three ways, measured
// apart: the learned warm-up (at the first prompt, the servers the project's recent sessions
// called start; "no warm-up" is `settings.warmUp: false`), the start on the streamed call (a server
// starts once the call names it; "no prestart" is `settings.prestart: false`, which turns both
// off), and the early send (a call goes out once its server is initialized, before its listing:
// always on, measured alone by bench/cold-start.ts).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EVERYTHING, FILESYSTEM, MEMORY } from "../tests/support/helpers.ts";
import type { ChatRequest, Step } from "../tests/support/mock-openai.ts";
import { BENCH_RUN_MS, createPiHome, type PiHome, type RunOptions, runPi } from "../tests/support/pi-cli-harness.ts";
import { PI_15, PI_16, PI_073 } from "../tests/support/pi-hosts.ts";
import { ensurePeerAdapter, PEER_VERSION } from "./peer-adapter.ts";
import { treeRssMb } from "./process-memory.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
/** How long the scripted model takes before its first call. */
export const THINK_MS = 1000;
/** How long a call's arguments take to stream after its tool's name (~20 tokens at ~60 tokens/s). */
export const CALL_STREAM_MS = 300;

interface Stack {
	readonly name: string;
	readonly options: RunOptions;
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

interface Sample {
	readonly session: number;
	/** Model answer with the call → Pi's next request (the result), per call. */
	readonly calls: number[];
	readonly exitAfterAnswer: number;
	readonly rssMb: number;
	readonly starts: number;
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

/** The call as a model streams it: the tool's name (and for `mcp` its `tool`) first, the rest CALL_STREAM_MS later. */
function streamed(call: ReturnType<typeof toolCall>): Step extends (r: ChatRequest) => infer R ? Awaited<R> : never {
	const text = JSON.stringify(call.toolCall.arguments);
	const named = call.toolCall.name === "mcp" ? text.indexOf('","args"') : 0;
	return { ...call, hold: { after: named, until: () => new Promise((r) => setTimeout(r, CALL_STREAM_MS)) } };
}

async function session(home: PiHome, stack: Stack, log: string): Promise<Sample> {
	const arrivals: number[] = [];
	const results: string[] = [];
	let pid = -1;
	let rssMb = 0;
	const startsBefore = countLines(log);
	const calls = stack.floor ? [] : CALLS;
	const steps: Step[] = [
		...calls.map(({ server, tool, args }, i) => async (request: ChatRequest) => {
			// The model thinks before its first call, as a real one does (for seconds): the time each
			// stack has to prepare (ours loads its MCP client then; Pi's built-in starts every server).
			if (i === 0) await new Promise((r) => setTimeout(r, THINK_MS));
			arrivals.push(performance.now());
			if (arrivals.length > 1) results.push(lastResult(request));
			return streamed(toolCall(request, server, tool, { ...args }));
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
	return {
		session: exited - started,
		calls: arrivals.slice(1).map((t, i) => t - arrivals[i]),
		exitAfterAnswer: exited - arrivals[arrivals.length - 1],
		rssMb,
		starts: countLines(log) - startsBefore,
		results,
	};
}

function lastResult(request: ChatRequest): string {
	const tool = [...request.messages].reverse().find((m) => m.role === "tool");
	return typeof tool?.content === "string" ? tool.content : JSON.stringify(tool?.content ?? "");
}

function countLines(file: string): number {
	return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).length : 0;
}

/**
 * The three servers, each wrapped to log its starts; `exposure: "direct"` (the default here) is
 * Pi 1.5's way to declare their tools to the model, and every declared tool costs Pi time each turn.
 */
export function mcpConfig(home: PiHome, log: string, direct = true): Record<string, unknown> {
	const server = (name: string, script: string, extra: string[] = [], env: Record<string, string> = {}) => ({
		command: "sh",
		args: [
			"-c",
			`echo ${name} >> '${log}'; exec '${process.execPath}' '${script}' ${extra.map((a) => `'${a}'`).join(" ")}`,
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
	readonly name: string;
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
		return homes.map((h) => ({ name: h.stack.name, first: h.first as Sample, warm: h.warm }));
	} finally {
		for (const { home } of homes) await home.dispose();
	}
}

export async function main(): Promise<void> {
	const peer = ensurePeerAdapter();
	const stacks: Stack[] = [
		{ name: "Pi 1.5, no MCP", options: { host: PI_15, noExtension: true }, floor: true },
		{ name: "Pi 1.5 built-in MCP", options: { host: PI_15, noExtension: true, builtins: ["mcp"] } },
		{
			name: `pi-mcp-adapter ${PEER_VERSION}, Pi 1.5`,
			options: { host: PI_15, noExtension: true, extraArgs: ["-e", peer] },
		},
		{ name: "ours, Pi 1.5", options: { host: PI_15 } },
		{ name: "ours, Pi 1.5, no warm-up", options: { host: PI_15 }, settings: { warmUp: false } },
		{ name: "ours, Pi 1.5, no prestart", options: { host: PI_15 }, settings: { prestart: false } },
		{ name: "Pi 1.6, no MCP", options: { host: PI_16, noExtension: true }, floor: true },
		{ name: "Pi 1.6 built-in MCP", options: { host: PI_16, noExtension: true, builtins: ["mcp"] } },
		{ name: "ours, Pi 1.6", options: { host: PI_16 } },
		{ name: "pi 0.73, no MCP", options: { host: PI_073, noExtension: true }, floor: true },
		{ name: "ours, pi 0.73", options: { host: PI_073 } },
	];
	// BENCH_STACKS=ours,built-in measures only the stacks whose names contain one of those words.
	const only = process.env.BENCH_STACKS?.split(",");
	const rows = await measure(stacks.filter((stack) => !only || only.some((w) => stack.name.includes(w))));
	if (only) {
		for (const row of rows)
			console.log(
				`${row.name}: warm call ${median(row.warm.map((s) => s.calls[1] ?? 0)).toFixed(1)} ms, 1st call ${median(row.warm.map((s) => s.calls[0] ?? 0)).toFixed(1)} ms`,
			);
		return;
	}

	console.log(
		`== One subagent session (pi -p): 3 real servers, ${CALLS.length} calls, then the answer; medians of ${RUNS} after a first session ==`,
	);
	const ms = (x: number | undefined) => (x === undefined ? "-" : `${x.toFixed(0)} ms`);
	const header = [
		"stack",
		"session",
		"1st call",
		"warm call",
		"later cold",
		"exit after answer",
		"RSS",
		"starts 1st/later",
	];
	const table = rows.map(({ name, first, warm }) => {
		const call = (i: number) => (warm[0].calls.length > i ? median(warm.map((s) => s.calls[i])) : undefined);
		const laterCold = warm[0].calls.length > 3 ? median(warm.map((s) => (s.calls[2] + s.calls[3]) / 2)) : undefined;
		return [
			name,
			ms(median(warm.map((s) => s.session))),
			ms(call(0)),
			ms(call(1)),
			ms(laterCold),
			ms(median(warm.map((s) => s.exitAfterAnswer))),
			`${median(warm.map((s) => s.rssMb)).toFixed(0)} MB`,
			`${first.starts}/${median(warm.map((s) => s.starts))}`,
		];
	});
	const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
	for (const line of [header, ...table]) console.log(line.map((c, i) => c.padEnd(widths[i])).join("  "));

	// Every stack must have answered every call: a figure from a failed call would be meaningless.
	for (const { name, warm } of rows)
		for (const { results } of warm)
			if (results.some((r) => !/3|7|entities|directories|Allowed/i.test(r)))
				console.log(`(warning: ${name} answered a call with: ${results.join(" | ").slice(0, 300)})`);

	const get = (name: string) => rows.find((r) => r.name === name) as Row;
	const ours = get("ours, Pi 1.5");
	const others = [get("Pi 1.5 built-in MCP"), get(`pi-mcp-adapter ${PEER_VERSION}, Pi 1.5`)];
	const floor = get("Pi 1.5, no MCP");
	const m = (row: Row, pick: (s: Sample) => number) => median(row.warm.map(pick));
	const cold = (s: Sample) => (s.calls[2] + s.calls[3]) / 2;
	const saving = (what: string, withIt: Row, without: Row) =>
		console.log(
			`${what}: 1st call ${m(withIt, (s) => s.calls[0]).toFixed(0)} vs ${m(without, (s) => s.calls[0]).toFixed(0)} ms without, later cold ${m(withIt, cold).toFixed(0)} vs ${m(without, cold).toFixed(0)} ms, session ${(m(withIt, (s) => s.session) / m(without, (s) => s.session)).toFixed(2)}x`,
		);
	const unwarmed = get("ours, Pi 1.5, no warm-up");
	saving("learned warm-up", ours, unwarmed);
	saving("start on the streamed call (without warm-up)", unwarmed, get("ours, Pi 1.5, no prestart"));
	const exit = (row: Row) => m(row, (s) => s.exitAfterAnswer);
	const bestExit = Math.min(...others.map(exit));
	console.log(
		`exit after answer, ours - best other: ${(exit(ours) - bestExit).toFixed(0)} ms (target <= 50); ours - Pi without MCP: ${(exit(ours) - exit(floor)).toFixed(0)} ms`,
	);
	const pairs: [Row, Row][] = [
		...others.map((other): [Row, Row] => [ours, other]),
		[get("ours, Pi 1.6"), get("Pi 1.6 built-in MCP")],
	];
	for (const [mine, other] of pairs) {
		const ratio = (pick: (s: Sample) => number) => (m(mine, pick) / m(other, pick)).toFixed(2);
		console.log(
			`${mine.name} / ${other.name}: session ${ratio((s) => s.session)}x, 1st call ${ratio((s) => s.calls[0])}x, warm call ${(m(mine, (s) => s.calls[1]) - m(other, (s) => s.calls[1])).toFixed(1)} ms apart, RSS ${ratio((s) => s.rssMb)}x`,
		);
	}
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
