// What masking secrets costs on a large tool output: the Redactor of today (every form of every
// secret: raw, JSON-escaped, URL-encoded, three base64 offsets) beside the one before it (raw forms
// only, taken from git at BASELINE_COMMIT), on the same 10 MB of JSON lines with secrets in them,
// for a small and a large set of secrets (a shell's API keys, a config's tokens). Medians of runs
// taking turns. Without git history (a package install) only today's is measured.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redactor } from "../trust/redaction.ts";

/** The last commit whose Redactor masked secrets only as they are. */
const BASELINE_COMMIT = "926a0e5";
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const MB = 1024 * 1024;
const RUNS = 7;

interface Scrubber {
	add(...values: string[]): void;
	scrubSecrets(text: string): string;
}

async function loadBaseline(): Promise<(new () => Scrubber) | undefined> {
	const dir = join(ROOT, "bench", ".baseline");
	try {
		mkdirSync(dir, { recursive: true });
		const source = execFileSync("git", ["show", `${BASELINE_COMMIT}:trust/redaction.ts`], {
			cwd: ROOT,
			encoding: "utf8",
			stdio: ["ignore", "pipe", "ignore"],
		});
		writeFileSync(join(dir, "redaction.ts"), source);
	} catch {
		return undefined;
	}
	return ((await import(join(dir, "redaction.ts"))) as { Redactor: new () => Scrubber }).Redactor;
}

/** Secrets as a shell and a config hold them: mostly token-like, some with characters JSON and URLs escape. */
function secrets(count: number): string[] {
	return Array.from({ length: count }, (_, i) => {
		const token = randomBytes(24).toString(i % 3 === 0 ? "base64" : "hex");
		return i % 5 === 4 ? `pw"${token.slice(0, 12)}\\x/` : token;
	});
}

/** About `mb` MB of JSON lines (a listing, a query's rows), a secret in one line of every thousand. */
function output(mb: number, planted: readonly string[]): string {
	const lines: string[] = [];
	for (let size = 0, i = 0; size < mb * MB; i++) {
		const line =
			i % 1000 === 999
				? `{"id":${i},"env":${JSON.stringify(planted[i % planted.length])}}`
				: `{"id":${i},"name":"src/module-${i}.ts","size":${(i * 7919) % 65536},"sha":"${randomBytes(20).toString("hex")}"}`;
		lines.push(line);
		size += line.length + 1;
	}
	return lines.join("\n");
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

export async function main(): Promise<void> {
	const Baseline = await loadBaseline();
	console.log("Masking secrets in a 10 MB tool output (ms, median of 7; lower is better)");
	for (const count of [10, 40]) {
		const planted = secrets(count);
		const text = output(10, planted);
		const sides: [string, Scrubber][] = [["today", new Redactor()]];
		if (Baseline) sides.unshift([`before (${BASELINE_COMMIT})`, new Baseline()]);
		const times = new Map<string, number[]>(sides.map(([name]) => [name, []]));
		for (const [, scrubber] of sides) {
			scrubber.add(...planted);
			scrubber.scrubSecrets(text); // compiles the pattern and warms the engine
		}
		for (let run = 0; run < RUNS; run++) {
			for (const [name, scrubber] of sides) {
				const start = performance.now();
				const out = scrubber.scrubSecrets(text);
				times.get(name)?.push(performance.now() - start);
				if (out.includes(planted[0])) throw new Error(`${name} left a secret in the output`);
			}
		}
		const row = sides.map(([name]) => `${name} ${median(times.get(name) ?? []).toFixed(1)}`).join(", ");
		console.log(`  ${count} secrets: ${row}`);
	}
}

if (process.argv[1]?.endsWith("redaction.ts")) await main();
