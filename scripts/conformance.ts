// `npm run conformance`: the official MCP conformance client scenarios against the adapter's own
// server manager (scripts/conformance-client.ts). The suite needs Node >= 22 (scripts/node22.ts);
// the adapter itself runs on the project's Node.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ensureNode22 } from "./node22.ts";

const ROOT = join(import.meta.dirname, "..");
const NODE22 = ensureNode22();
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const SCENARIOS = ["initialize", "tools_call", "sse-retry"];
const client = `"${process.execPath}" "${join(ROOT, "node_modules/tsx/dist/cli.mjs")}" "${join(ROOT, "scripts/conformance-client.ts")}"`;

let failed = 0;
for (const scenario of SCENARIOS) {
	const run = spawnSync(NODE22, [SUITE, "client", "--command", client, "--scenario", scenario], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
	const output = `${run.stdout}${run.stderr}`;
	const passed = run.status === 0 && output.includes("OVERALL: PASSED");
	const summary = /Passed: \d+\/\d+, \d+ failed, \d+ warnings/.exec(output)?.[0] ?? "no result";
	console.log(`${passed ? "PASS" : "FAIL"} ${scenario}: ${summary}`);
	if (!passed) {
		failed++;
		console.log(output);
	}
}
console.log(`${SCENARIOS.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
