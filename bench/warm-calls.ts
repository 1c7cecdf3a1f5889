// The warm call, measured closely: a difference of a millisecond or two needs more than the one
// warm call of each session bench run. Each `pi -p` session calls server-everything's get-sum once
// cold, then CALLS times warm; the stacks take turns session by session (so a busy moment of a
// shared machine falls on all of them), and the medians of every warm call compare.
// Measured on each Pi 1.x line. Each stack reaches the tool its own way: Pi 1.x's built-in and ours through the Pi tool that
// `exposure: "direct"` declares (as session.ts), the peer through its `mcp` proxy (it ignores
// `exposure`), and ours through `mcp` too, the same request as the peer's.
import { join } from "node:path";
import type { Step } from "../tests/support/mock-openai.ts";
import { ensurePeerAdapter, PEER_VERSION } from "../tests/support/peer-adapter.ts";
import { BENCH_RUN_MS, createPiHome, type PiHome, type RunOptions, runPi } from "../tests/support/pi-cli-harness.ts";
import { PI1_HOSTS, type PiHost } from "../tests/support/pi-hosts.ts";
import { mcpConfig, THINK_MS, toolCall } from "./session.ts";

const SESSIONS = Number(process.env.BENCH_RUNS ?? 6);
/** Warm calls per session. */
const CALLS = 12;

interface Stack {
	readonly name: string;
	readonly options: RunOptions;
	readonly direct: boolean;
}

/** Model answer with the call → Pi's next request (the result), for every warm call of one session. */
async function warmCalls(home: PiHome, stack: Stack): Promise<number[]> {
	const at: number[] = [];
	const call =
		(sum: number): Step =>
		(request) => {
			at.push(performance.now());
			return toolCall(request, "everything", "get-sum", { a: sum, b: 1 });
		};
	// The model thinks before its first call, as in session.ts (ours loads its MCP client meanwhile).
	const think: Step = async (request) => {
		await new Promise((resolve) => setTimeout(resolve, THINK_MS));
		return call(0)(request);
	};
	const steps: Step[] = [think, ...Array.from({ length: CALLS }, (_, i) => call(i + 1))];
	steps.push(() => {
		at.push(performance.now());
		return { text: "done" };
	});
	const run = await runPi(home, "add numbers", { ...stack.options, steps, timeoutMs: BENCH_RUN_MS });
	if (run.code !== 0) throw new Error(`${stack.name}: pi exited ${run.code}: ${run.stderr.slice(-2000)}`);
	// at[0] is the cold call's answer; each later interval is one warm call.
	return at.slice(2).map((t, i) => t - at[i + 1]);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function main(): Promise<void> {
	for (const host of PI1_HOSTS) await measureOn(host);
}

async function measureOn(host: PiHost): Promise<void> {
	const peer = ensurePeerAdapter();
	const line = host.name;
	const stacks: Stack[] = [
		{ name: `${line} built-in MCP`, options: { host, noExtension: true, builtins: ["mcp"] }, direct: true },
		{
			name: `pi-mcp-adapter ${PEER_VERSION} (its mcp tool)`,
			options: { host, noExtension: true, extraArgs: ["-e", peer] },
			direct: true,
		},
		{ name: `ours, ${line} (the direct Pi tool)`, options: { host }, direct: true },
		{ name: `ours, ${line} (through mcp)`, options: { host }, direct: false },
	];
	const homes = await Promise.all(stacks.map(() => createPiHome({})));
	try {
		/** Per stack, per round: that session's warm calls. */
		const rounds = stacks.map(() => [] as number[][]);
		stacks.forEach((stack, i) => {
			homes[i].writeAgentFile(
				"mcp.json",
				JSON.stringify(mcpConfig(homes[i], join(homes[i].root, "starts.log"), stack.direct)),
			);
		});
		// A first session per stack fills its caches; it is not counted.
		for (let i = 0; i < stacks.length; i++) await warmCalls(homes[i], stacks[i]);
		for (let round = 0; round < SESSIONS; round++)
			for (let i = 0; i < stacks.length; i++) rounds[i].push(await warmCalls(homes[i], stacks[i]));
		console.log(
			`== Warm calls on ${line}: ${CALLS} per session after a cold one, ${SESSIONS} sessions per stack taking turns ==`,
		);
		const width = Math.max(...stacks.map((s) => s.name.length));
		stacks.forEach((stack, i) => {
			const all = rounds[i].flat();
			console.log(`${stack.name.padEnd(width)}  ${median(all).toFixed(1)} ms  (median of ${all.length})`);
		});
		// A gap compared round by round: the machine's pace drifts between rounds (one stack's round
		// medians spread over 9-26 ms in one run here), less between two sessions run one after the other.
		const gap = (a: number, b: number) =>
			median(rounds[a].map((calls, round) => median(calls) - median(rounds[b][round]))).toFixed(1);
		console.log(
			`ours through mcp - the peer (the same request): ${gap(3, 1)} ms (target <= 2); ours direct - built-in (the same tools declared): ${gap(2, 0)} ms; medians of the rounds' gaps`,
		);
	} finally {
		await Promise.all(homes.map((home) => home.dispose()));
	}
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
