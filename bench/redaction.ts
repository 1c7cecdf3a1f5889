// What masking secrets costs on a large tool output: the matcher of today (trust/secret-matcher.ts:
// an automaton for short secrets, block fingerprints for long ones, every form of every secret)
// beside the one regular expression it replaced (bench/regex-redactor.ts), on the same 10 MB of
// JSON lines with secrets planted in them, for 1, 100 and 10,000 secrets of up to 100 KB each (a
// shell's API keys, a config's tokens, an authorization server's oversized JWT), and for as many
// short ones (up to 64 characters: where the old pattern still builds). MB per CPU second (the
// process's own time: the machine may be shared), medians of runs; the old pattern is timed once,
// on the first quarter megabyte (with 10,000 secrets it takes seconds a megabyte).
import { randomBytes } from "node:crypto";
import { Redactor } from "../trust/redaction.ts";
import { RegexMasker } from "./regex-redactor.ts";

const MB = 1024 * 1024;
const RUNS = 5;
/** Planted secrets stop at this many characters of the output, so every row masks the same 10 MB. */
const PLANTED_BUDGET = MB;

/** `count` secrets, lengths log-uniform from 16 to `max` characters, token-like; some with characters JSON and URLs escape. */
function secrets(count: number, max: number): string[] {
	return Array.from({ length: count }, (_, i) => {
		const length = Math.round(16 * (max / 16) ** Math.random());
		const token = randomBytes(Math.ceil(length * 0.75)).toString(i % 3 === 0 ? "base64" : "base64url");
		return i % 5 === 4 ? `pw"${token.slice(0, length - 6)}\\x/` : token.slice(0, length);
	});
}

/** About `mb` MB of JSON lines (a listing, a query's rows), a secret in one line of every thousand until the budget is spent. */
function output(mb: number, planted: readonly string[]): { text: string; used: string[] } {
	const lines: string[] = [];
	const used: string[] = [];
	let budget = PLANTED_BUDGET;
	for (let size = 0, i = 0; size < mb * MB; i++) {
		const secret = planted[((i / 1000) % planted.length) | 0];
		const plant = i % 1000 === 999 && secret.length <= budget;
		if (plant) {
			budget -= secret.length;
			used.push(secret);
		}
		const line = plant
			? `{"id":${i},"env":${JSON.stringify(secret)}}`
			: `{"id":${i},"name":"src/module-${i}.ts","size":${(i * 7919) % 65536},"sha":"${randomBytes(20).toString("hex")}"}`;
		lines.push(line);
		size += line.length + 1;
	}
	return { text: lines.join("\n"), used };
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

/** MB/s of a masking function on `text`, checking no planted secret is left. */
function throughput(mask: (text: string) => string, text: string, planted: readonly string[], runs: number): number {
	const times: number[] = [];
	for (let run = 0; run < runs; run++) {
		// CPU time of this process, not the clock: on a shared machine the clock counts others' work too.
		const start = process.cpuUsage();
		const out = mask(text);
		const cpu = process.cpuUsage(start);
		times.push((cpu.user + cpu.system) / 1000);
		const left = planted.filter((s) => text.includes(s)).find((s) => out.includes(s));
		if (left !== undefined) throw new Error(`a planted secret of ${left.length} characters was left in the output`);
	}
	return text.length / MB / (median(times) / 1000);
}

/** Past this many characters of secrets the old pattern (several times as long) is not tried: building it would take the memory. */
const OLD_PATTERN_LIMIT = 4 * MB;

function oldRegex(planted: string[], text: string, used: readonly string[]): string {
	const total = planted.reduce((sum, s) => sum + s.length, 0);
	if (total > OLD_PATTERN_LIMIT) return `not tried (a pattern from ${(total / MB).toFixed(0)} MB of secrets)`;
	let masker: RegexMasker;
	try {
		masker = new RegexMasker(planted);
		masker.scrubSecrets("x"); // V8 compiles a pattern at its first use: a refusal comes here
	} catch (error) {
		return `does not build (${(error as Error).name})`; // its message is the pattern: never printed
	}
	const slice = text.slice(0, MB / 4);
	return `${throughput((t) => masker.scrubSecrets(t), slice, used, 1).toFixed(2)} MB/CPU-s`;
}

export async function main(): Promise<void> {
	console.log(
		"Masking secrets in a 10 MB tool output (MB per CPU second, higher is better; setup: adding the secrets)",
	);
	for (const [max, label] of [
		[100 * 1024, "up to 100 KB"],
		[64, "up to 64 chars"],
	] as const) {
		for (const count of [1, 100, 10_000]) {
			const planted = secrets(count, max);
			const { text, used } = output(10, planted);
			const setupStart = performance.now();
			const redactor = new Redactor();
			redactor.add(...planted);
			redactor.scrubSecrets("warm"); // builds the automaton
			const setup = performance.now() - setupStart;
			const total = planted.reduce((sum, s) => sum + s.length, 0);
			// The row with 100 MB of secrets is timed once: its setup alone takes minutes.
			const today = throughput((t) => redactor.scrubSecrets(t), text, used, total > 16 * MB ? 1 : RUNS);
			console.log(
				`  ${String(count).padStart(6)} secrets ${label} (${(total / MB).toFixed(1)} MB): today ${today.toFixed(1)} MB/CPU-s (setup ${setup.toFixed(0)} ms), old regex ${oldRegex(planted, text, used)}`,
			);
		}
	}
}

if (process.argv[1]?.endsWith("redaction.ts")) await main();
