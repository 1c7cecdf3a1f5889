// `npm run conformance`: the official MCP conformance suite's client scenarios against the adapter
// (scripts/conformance-client.ts), once per protocol revision, each with the requirement set the
// suite froze at that revision's release (`--requirements <revision>`). It prints both side by side.
// The exit code requires every scored scenario of both revisions, and the extension scenarios we
// implement (EXTENSIONS_REQUIRED_HERE: the sign-in extensions, and skills, which no requirement
// set holds: those are run one by one). Other extension and added-after-release
// scenarios are not scored (they are printed). The suite needs Node >= 22 (scripts/node22.ts); the adapter runs on the project's Node.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { ensurePackage } from "../tests/support/npm-package.ts";
import { ensureNode22 } from "./node22.ts";

const ROOT = join(import.meta.dirname, "..");
const NODE22 = ensureNode22();
/**
 * The suite, installed on first use under node_modules/.cache (it needs Node 22: as a
 * devDependency its engines warned at every `npm ci` on Node 20), from the lock beside this
 * script (made with `npm install --package-lock-only --omit=dev` on its package.json as
 * ensurePackage writes it).
 */
const SUITE_VERSION = "0.2.0-alpha.12";
const SUITE = join(
	ensurePackage(
		"@modelcontextprotocol/conformance",
		SUITE_VERSION,
		join(ROOT, "scripts", `conformance-${SUITE_VERSION}.package-lock.json`),
	),
	"dist",
	"index.js",
);
/**
 * The client, bundled once per run (its npm packages stay outside): the suite starts one client
 * per scenario, ~40 at once, and each through tsx cost 2.4 s of CPU against 0.8 s bundled. On a
 * 2-core machine that load delayed clients by seconds, long enough for a scenario server to drop
 * an idle keep-alive socket as the client reused it ("fetch failed", ECONNRESET) in one run of
 * three. Beside the script, so the paths modules of subfolders read (../data) hold; client-info.ts looks one folder up for package.json.
 */
const BUNDLE = join(ROOT, "scripts", ".conformance-client.mjs");
await build({
	entryPoints: [join(ROOT, "scripts", "conformance-client.ts")],
	outfile: BUNDLE,
	bundle: true,
	platform: "node",
	format: "esm",
	packages: "external",
	logLevel: "warning",
});
const client = `"${process.execPath}" "${BUNDLE}"`;
const REVISIONS = ["2025-11-25", "2026-07-28"] as const;
/** Extension scenarios the suite does not score but we require, in both revisions' runs: the sign-in extensions and skills (SEP-2640). */
const EXTENSIONS_REQUIRED_HERE = new Set([
	"auth/client-credentials-basic",
	"auth/client-credentials-jwt",
	"auth/dpop",
	"auth/dpop-nonce",
	"auth/enterprise-managed-authorization",
	"auth/wif-jwt-bearer",
	"sep-2640-client-no-prefetch",
	"sep-2640-client-verify-digest",
	"sep-2640-client-verify-size",
	"sep-2640-client-verify-frontmatter",
]);

interface Outcome {
	readonly name: string;
	readonly passed: boolean;
	readonly detail: string;
	readonly scored: boolean;
	/** Failed in the parallel run starved of CPU, then run alone (see `starved`). */
	readonly alone?: boolean;
}

/**
 * A client the parallel run starved (~40 clients and the suite's servers on 2 cores, shared with
 * whatever else runs): it lost its connection mid-run (a keep-alive socket the scenario's server
 * had closed, reused after seconds of waiting), or one of our own deadlines ran out (the 30 s
 * connect, the sign-in's) before it had a core; at a load of 35 the client took 20 s to its first
 * request. Such a scenario is run once more on its own, and that run decides; the table says so.
 */
const starved = (clientStderr: string) =>
	/ECONNRESET|other side closed|UND_ERR_SOCKET|did not finish connecting within|sign-in was not finished in time/.test(
		clientStderr,
	);

/**
 * One scenario of a revision, run alone: whether its checks all passed (as the suite's summary
 * scores it). `--force`: an extension scenario is on no revision's timeline, and is skipped without.
 */
async function alone(name: string, revision: string): Promise<{ passed: boolean; output: string }> {
	const output = await run(["client", "--command", client, "--scenario", name, "--spec-version", revision, "--force"]);
	const result = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
	return { passed: result !== null && Number(result[3]) === 0 && Number(result[1]) > 0, output };
}

/** The last `lines` of a run's output, indented: what a failure says (a lone run's is kept nowhere else). */
function tailOf(output: string, lines = 15): string {
	return output
		.trim()
		.split("\n")
		.slice(-lines)
		.map((line) => `    | ${line}`)
		.join("\n");
}

/**
 * How long the suite lets one client run (its default is 30 s). Longer than our own deadlines
 * after a slow start: killed at 30 s, a starved client (20-40 s to its first request at a load
 * of 50) had printed nothing, so nothing told it was starved and it was not run again alone.
 */
const CLIENT_MS = 90_000;

function run(args: string[]): Promise<string> {
	return new Promise((resolve) => {
		const child = spawn(NODE22, [SUITE, ...args, "--timeout", String(CLIENT_MS)], {
			cwd: ROOT,
			stdio: ["ignore", "pipe", "pipe"],
		});
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

/** What a failed scenario's checks said, and the end of its client's stderr (the suite keeps them in `-o`). */
function failureOf(out: string, scenario: string): string {
	const prefix = `${scenario.split("/").pop()}-`;
	const folder = join(out, ...scenario.split("/").slice(0, -1));
	const run = readdirSync(folder).find((name) => name.startsWith(prefix));
	if (!run) return "(no results kept)";
	const read = (file: string) =>
		existsSync(join(folder, run, file)) ? readFileSync(join(folder, run, file), "utf8") : "";
	const checks = JSON.parse(read("checks.json") || "[]") as { name: string; status: string; errorMessage?: string }[];
	const failed = checks.filter((c) => c.status === "FAILURE").map((c) => `    ${c.name}: ${c.errorMessage ?? ""}`);
	return [...failed, tailOf(read("stderr.txt"), 8)].join("\n");
}

const results = new Map<string, Outcome[]>();
const clientOutput = new Map<string, string>();
for (const revision of REVISIONS) {
	const out = mkdtempSync(join(tmpdir(), "pi-mcp-conformance-"));
	try {
		const output = await run(["client", "--command", client, "--requirements", revision, "-o", out]);
		const found = outcomes(output);
		if (found.length === 0) console.log(`--- ${revision}: no summary ---\n${output.slice(-4000)}`);
		// Extension scenarios no requirement set holds (skills): each run on its own (`--force`).
		for (const name of EXTENSIONS_REQUIRED_HERE) {
			if (found.some((o) => o.name === name)) continue;
			const { passed, output: said } = await alone(name, revision);
			found.push({ name, passed, detail: `run on its own: ${passed ? "passed" : "failed"}`, scored: false });
			if (!passed) clientOutput.set(`${revision} ${name}`, tailOf(said));
		}
		results.set(revision, found);
		for (const o of found.filter((o) => required(o) && !o.passed)) {
			// A scenario run on its own above kept its output already; the parallel run's results hold the others'.
			const failure = clientOutput.get(`${revision} ${o.name}`) ?? failureOf(out, o.name);
			clientOutput.set(`${revision} ${o.name}`, failure);
			if (!starved(failure)) continue;
			const { passed } = await alone(o.name, revision);
			found[found.indexOf(o)] = { ...o, passed, alone: true };
		}
	} finally {
		rmSync(out, { recursive: true, force: true });
	}
}

function required(o: Outcome): boolean {
	return o.scored || EXTENSIONS_REQUIRED_HERE.has(o.name);
}

const names = [...new Set([...results.values()].flatMap((r) => r.map((o) => o.name)))];
const cell = (o: Outcome | undefined) =>
	!o
		? "-"
		: `${o.passed ? "PASS" : "FAIL"}${o.scored ? "" : required(o) ? " (required here)" : " (not scored)"}${o.alone ? " (run alone)" : ""}`;
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
	const extensions = (results.get(revision) ?? []).filter((o) => !o.scored && required(o));
	const extensionsPassing = extensions.filter((o) => o.passed).length;
	console.log(`${revision}: ${extensionsPassing}/${EXTENSIONS_REQUIRED_HERE.size} required extension scenarios pass`);
	if (scored.length === 0 || passing < scored.length) failed = true;
	if (extensionsPassing < EXTENSIONS_REQUIRED_HERE.size) failed = true;
	for (const o of [...scored, ...extensions].filter((o) => !o.passed || o.alone))
		console.log(
			`  ${revision} ${o.name}: ${o.alone ? `in the parallel run ${o.detail}; run alone it ${o.passed ? "passed" : "failed too"}` : o.detail}\n${clientOutput.get(`${revision} ${o.name}`) ?? ""}`,
		);
}
rmSync(BUNDLE, { force: true });
process.exit(failed ? 1 : 0);
