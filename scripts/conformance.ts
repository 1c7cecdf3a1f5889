// `npm run conformance`: every client scenario of the official MCP conformance suite against the
// adapter (scripts/conformance-client.ts), with a N/total summary. The core and dated scenarios
// must pass (the exit code says so); draft and extension scenarios are reported, not required.
// The suite needs Node >= 22 (scripts/node22.ts); the adapter itself runs on the project's Node.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { mapLimit } from "../bounds/waits.ts";
import { ensureNode22 } from "./node22.ts";

const ROOT = join(import.meta.dirname, "..");
const NODE22 = ensureNode22();
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const client = `"${process.execPath}" "${join(ROOT, "node_modules/tsx/dist/cli.mjs")}" "${join(ROOT, "scripts/conformance-client.ts")}"`;

interface Scenario {
	readonly name: string;
	/** Draft and extension scenarios are a stretch goal: reported, not required. */
	readonly required: boolean;
}

function run(args: string[]): Promise<string> {
	return new Promise((resolve) => {
		const child = spawn(NODE22, [SUITE, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
		let output = "";
		child.stdout.on("data", (c) => (output += c));
		child.stderr.on("data", (c) => (output += c));
		const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve(`${output}\nEXIT ${code}`);
		});
	});
}

/** The client scenarios the installed suite lists, with their spec versions. */
async function scenarios(): Promise<Scenario[]> {
	const listing = await run(["list"]);
	const clientPart = listing.slice(listing.indexOf("Client scenarios"));
	return [...clientPart.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].map(([, name, versions]) => ({
		name,
		required: !/draft|extension/.test(versions),
	}));
}

const all = await scenarios();
// A few scenarios at a time: each starts its own servers on free ports.
const results = await mapLimit(all, 3, async (scenario) => {
	const output = await run(["client", "--command", client, "--scenario", scenario.name]);
	const passed = /EXIT 0$/.test(output) && output.includes("OVERALL: PASSED");
	const summary = /Passed: \d+\/\d+, \d+ failed, \d+ warnings/.exec(output)?.[0] ?? "no result";
	return { scenario, passed, summary, output };
});
for (const { scenario, passed, summary } of results)
	console.log(`${passed ? "PASS" : "FAIL"} ${scenario.name}${scenario.required ? "" : " (not required)"}: ${summary}`);
const failedRequired = results.filter((r) => !r.passed && r.scenario.required);
for (const r of failedRequired) console.log(`\n--- ${r.scenario.name} ---\n${r.output.slice(-4000)}`);
const required = results.filter((r) => r.scenario.required);
console.log(
	`\n${results.filter((r) => r.passed).length}/${results.length} scenarios pass; required ${required.filter((r) => r.passed).length}/${required.length}`,
);
process.exit(failedRequired.length > 0 ? 1 : 0);
