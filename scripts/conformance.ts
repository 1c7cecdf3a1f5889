// `npm run conformance`: the official MCP conformance suite's client scenarios against the adapter
// (scripts/conformance-client.ts), once per protocol revision, each with the requirement set the
// suite froze at that revision's release (`--requirements <revision>`). It prints both side by side.
// The exit code requires every scored scenario of both revisions. Extension and
// added-after-release scenarios are never scored (they are printed). The suite needs Node >= 22 (scripts/node22.ts); the adapter runs on the project's Node.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureNode22 } from "./node22.ts";

const ROOT = join(import.meta.dirname, "..");
const NODE22 = ensureNode22();
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const client = `"${process.execPath}" "${join(ROOT, "node_modules/tsx/dist/cli.mjs")}" "${join(ROOT, "scripts/conformance-client.ts")}"`;
const REVISIONS = ["2025-11-25", "2026-07-28"] as const;

interface Outcome {
	readonly name: string;
	readonly passed: boolean;
	readonly detail: string;
	readonly scored: boolean;
}

function run(args: string[]): Promise<string> {
	return new Promise((resolve) => {
		const child = spawn(NODE22, [SUITE, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
		let output = "";
		child.stdout.on("data", (c) => (output += c));
		child.stderr.on("data", (c) => (output += c));
		child.on("close", () => resolve(output));
	});
}

/** The suite's summary: one line per scenario run, and the scenarios it says are not scored. */
function outcomes(output: string): Outcome[] {
	const summary = output.slice(output.lastIndexOf("=== SUITE SUMMARY ==="));
	const notScored = summary.slice(summary.indexOf("Not scored"));
	const unscored = new Set([...notScored.matchAll(/^\s+[✓✗] (\S+) \(/gm)].map((m) => m[1]));
	return [...summary.matchAll(/^([✓✗]) (\S+): (.*)$/gm)].map(([, mark, name, detail]) => ({
		name,
		passed: mark === "✓",
		detail,
		scored: !unscored.has(name),
	}));
}

const results = new Map<string, Outcome[]>();
for (const revision of REVISIONS) {
	const out = mkdtempSync(join(tmpdir(), "pi-mcp-conformance-"));
	try {
		const output = await run(["client", "--command", client, "--requirements", revision, "-o", out]);
		const found = outcomes(output);
		if (found.length === 0) console.log(`--- ${revision}: no summary ---\n${output.slice(-4000)}`);
		results.set(revision, found);
	} finally {
		rmSync(out, { recursive: true, force: true });
	}
}

const names = [...new Set([...results.values()].flatMap((r) => r.map((o) => o.name)))];
const cell = (o: Outcome | undefined) => (!o ? "-" : `${o.passed ? "PASS" : "FAIL"}${o.scored ? "" : " (not scored)"}`);
console.log(`scenario${" ".repeat(40)}${REVISIONS.map((r) => r.padEnd(24)).join("")}`);
for (const name of names)
	console.log(
		`${name.padEnd(48)}${REVISIONS.map((r) => cell(results.get(r)?.find((o) => o.name === name)).padEnd(24)).join("")}`,
	);
let failed = false;
for (const revision of REVISIONS) {
	const scored = (results.get(revision) ?? []).filter((o) => o.scored);
	const passing = scored.filter((o) => o.passed).length;
	console.log(`${revision}: ${passing}/${scored.length} required scenarios pass`);
	if (scored.length === 0 || passing < scored.length) failed = true;
	for (const o of scored.filter((o) => !o.passed)) console.log(`  ${revision} ${o.name}: ${o.detail}`);
}
process.exit(failed ? 1 : 0);
