// `pi-mcp-proxy doctor`: the whole setup checked before a session needs it. Every config file read
// (a parse error by file, line and column; unknown fields; wrong types), every name's other
// definitions (a project's entry replacing your own, a name written twice, an import hidden),
// every server that may run started and listed (each within its own connect deadline; all ended
// after), the sign-in of OAuth servers. A short report, problems first in each part; exit 0 only
// when nothing is wrong. Nothing a project names is started before it is approved.
import { existsSync } from "node:fs";
import { mapLimit } from "../bounds/waits.ts";
import { type Definition, definitions, shadowings } from "../config/definitions.ts";
import { formatProblem } from "../config.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { signsInWithBrowser } from "../oauth-handler.ts";
import { countLabel, stateText } from "../proxy/server-status.ts";
import type { ConfigProblem } from "../types.ts";
import { print } from "./output.ts";
import { configFiles } from "./server-info.ts";
import { type Finding, signInState } from "./sign-in-state.ts";

const MARK: Readonly<Record<Finding["level"], string>> = { ok: "ok", problem: "FAIL", warning: "warn", note: "note" };

/** Servers started at once (as `status --check` does). */
const PARALLELISM = 10;

export async function doctor(runtime: McpRuntime, signal: AbortSignal): Promise<number> {
	const files = configFiles(runtime);
	const defs = definitions(files, { cwd: runtime.cwd, env: runtime.env });
	const sections: [string, Finding[]][] = [
		["Config files", fileFindings(runtime, files, defs)],
		["Definitions", shadowings(defs).map((s) => ({ level: s.level, text: s.text }))],
		["Servers", await serverFindings(runtime, signal)],
		["Sign-in", signInFindings(runtime)],
	];
	for (const [title, findings] of sections) {
		if (findings.length === 0) continue;
		print(`${title}\n`);
		const order: Finding["level"][] = ["problem", "warning", "ok", "note"];
		const sorted = [...findings].sort((a, b) => order.indexOf(a.level) - order.indexOf(b.level));
		for (const f of sorted) print(`  ${MARK[f.level].padEnd(4)}  ${runtime.redactor.scrub(f.text)}\n`);
	}
	const all = sections.flatMap(([, findings]) => findings);
	const problems = all.filter((f) => f.level === "problem").length;
	const warnings = all.filter((f) => f.level === "warning").length;
	const servers = runtime.lifecycle.serverNames().length;
	const read = files.filter((f) => existsSync(f.path)).length;
	const counted = [problems ? plural(problems, "problem") : "", warnings ? plural(warnings, "warning") : ""];
	print(
		problems + warnings === 0
			? `All well: ${plural(read, "config file")}, ${plural(servers, "server")}.\n`
			: `${counted.filter(Boolean).join(", ")}: fix ${problems + warnings === 1 ? "it" : "them"} and run pi-mcp-proxy doctor again.\n`,
	);
	return problems + warnings === 0 ? 0 : 1;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Each file there: its problems (an error, a warning), or that it reads well and how many servers it defines. */
function fileFindings(runtime: McpRuntime, files: readonly { path: string }[], defs: readonly Definition[]): Finding[] {
	const findings: Finding[] = [];
	const paths = [
		...new Set([...files.map((f) => f.path), ...defs.filter((d) => d.kind === "import").map((d) => d.path)]),
	];
	const problems = runtime.config.problems;
	for (const path of paths) {
		const own = problems.filter((p) => p.file === path);
		const defined = defs.filter((d) => d.path === path).length;
		findings.push(...own.map(problemFinding));
		if (own.length === 0 && existsSync(path))
			findings.push({ level: "ok", text: `${path}: ${plural(defined, "server")}` });
	}
	// Problems of no file read above (an unknown import).
	findings.push(...problems.filter((p) => !paths.includes(p.file)).map(problemFinding));
	return findings;
}

function problemFinding(problem: ConfigProblem): Finding {
	const text = formatProblem(problem).replace(/^(error|warning): /, "");
	return { level: problem.severity === "error" ? "problem" : "warning", text };
}

/** Every server: started and listed if it may run, else why not. */
async function serverFindings(runtime: McpRuntime, signal: AbortSignal): Promise<Finding[]> {
	const { lifecycle, config } = runtime;
	const names = lifecycle.serverNames();
	const runnable = names.filter((name) => !lifecycle.blocked(name));
	// Each start is bounded by its own connect deadline (and an install's budget); a failure is recorded for its server.
	await mapLimit(runnable, PARALLELISM, (name) => lifecycle.ensureConnected(name, signal).catch(() => undefined));
	const findings = names.map((name): Finding => {
		const state = lifecycle.state(name);
		const text = `${name}: ${state === "connected" ? `connected, ${countLabel(lifecycle, name)}` : stateText(lifecycle, name, "person")}`;
		if (state === "connected") return { level: "ok", text };
		if (state === "denied") return { level: "note", text: `${name}: denied for this project, not started` };
		const unconfigured = config.unconfigured.get(name);
		// Its entry's problem is told once, under its file above.
		if (unconfigured && config.problems.some((p) => p.file === unconfigured.source.path && (p.server ?? name) === name))
			return { level: "note", text: `${name}: not started: its config has the problem above` };
		if (state === "awaiting-approval")
			return { level: "warning", text: `${name}: not started: it awaits your approval (pi-mcp-proxy approve ${name})` };
		return { level: "problem", text };
	});
	for (const [name, file] of config.disabled ?? [])
		findings.push({ level: "note", text: `${name}: turned off in ${file}` });
	return findings;
}

/** OAuth servers that sign in with a browser: whether tokens are stored and usable. */
function signInFindings(runtime: McpRuntime): Finding[] {
	const findings: Finding[] = [];
	for (const entry of runtime.config.servers.values()) {
		if (!signsInWithBrowser(entry)) continue;
		findings.push(signInState(runtime, entry));
	}
	return findings;
}
