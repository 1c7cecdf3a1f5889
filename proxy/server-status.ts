// One server's state in words, the same for the model (`mcp({})`) and the user (`/mcp`).

import { loadBroker } from "../broker/client.lazy.ts";
import { forPerson } from "../errors.ts";
import type { ServerLifecycle, Servers } from "../lifecycle.ts";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * One server's state in words: for the model (`mcp({})`), or for a person (`/mcp`, its menus, the
 * shell): the same facts, without the model's instructions ("ask the user to run ...") and without
 * naming the server again where the line already does.
 */
export function stateText(lifecycle: ServerLifecycle, name: string, audience: "model" | "person" = "model"): string {
	const text = stateWords(lifecycle, name);
	if (audience === "model") return text;
	const named = `Server "${name}" `;
	const own = text.replace(`${named}failed to connect: `, "");
	return forPerson(own.startsWith(named) ? own.slice(named.length) : own);
}

function stateWords(lifecycle: ServerLifecycle, name: string): string {
	const state = lifecycle.state(name);
	const known = lifecycle.catalog.has(name);
	const count = known ? countLabel(lifecycle, name) : "";
	const lifecycleName = lifecycle.config.servers.get(name)?.lifecycle;
	switch (state) {
		case "needs-config":
			return (lifecycle.blocked(name) ?? "").replace(`Server "${name}" needs`, "needs");
		case "awaiting-approval":
			return `awaiting approval: ask the user to run /mcp approve ${name}`;
		case "denied":
			return `denied by the user for this project (/mcp approve ${name} allows it)`;
		case "connected":
			return `connected${lifecycle.isShared(name) ? " (shared)" : ""}, ${count}`;
		case "starting":
		case "installing":
			return known ? `${startingText(lifecycle, name)}, ${count} known` : startingText(lifecycle, name);
		case "idle":
			return `not running, ${count} known (${lifecycleName})`;
		case "failed":
		case "needs-auth":
			return `${state === "failed" ? "failed: " : ""}${failureSummary(lifecycle.failure(name)?.message ?? "")}`;
		default:
			return `not connected yet (${lifecycleName})`;
	}
}

/** What a server's connect is doing, and for how long: "installing @scope/pkg with npm, 12 s", "starting, 3 s". */
export function startingText(lifecycle: Pick<Servers, "starting">, name: string): string {
	const progress = lifecycle.starting(name);
	if (!progress) return "starting";
	const seconds = (since: number) => Math.max(0, Math.round((Date.now() - since) / 1000));
	return progress.install
		? `installing ${progress.install.spec} with npm, ${seconds(progress.install.since)} s`
		: `starting, ${seconds(progress.since)} s`;
}

/**
 * A failure in one line: its first line and, when the server said why on stderr, the last thing
 * it said there that means something ("Connection closed" alone tells the user nothing; "missing
 * API key" does).
 */
export function failureSummary(message: string): string {
	const [head, ...rest] = message.split("\n");
	const stderrAt = rest.findIndex((line) => line.startsWith("Server stderr:") || /Its stderr ended with:$/.test(line));
	const said = stderrAt < 0 ? undefined : meaningfulLine(rest.slice(stderrAt + 1));
	return said && !head.includes(said) ? `${head} (the server said: ${said})` : head;
}

/**
 * Lines that say nothing about why a server failed: blank, punctuation only (a caret under a
 * source line), npm's pointer to its log file, a stack frame, and the Node.js version Node prints
 * after a crash.
 */
const NOISE = [
	/^[^\p{L}\p{N}]*$/u,
	/A complete log of this run can be found in/i,
	/^npm (error|ERR!)\s*$/i,
	/^at\s/,
	/^Node\.js v\d/,
];

/**
 * The last line of a server's stderr that is not noise, trimmed. A JSON dump it ends with (the
 * details under an error line: `{`, `"path": "x"`, `}`) is passed over for the line before it.
 */
export function meaningfulLine(lines: readonly string[]): string | undefined {
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = lines[i].trim();
		if (/^[\]}]+,?$/.test(line)) i = openingLine(lines, i) ?? i;
		else if (!NOISE.some((noise) => noise.test(line))) return line;
	}
	return undefined;
}

/** Where the JSON block whose last line is `end` opens, if it does. */
function openingLine(lines: readonly string[], end: number): number | undefined {
	let depth = 0;
	for (let i = end; i >= 0; i--) {
		depth += (lines[i].match(/[\]}]/g)?.length ?? 0) - (lines[i].match(/[[{]/g)?.length ?? 0);
		if (depth <= 0) return i;
	}
	return undefined;
}

/** "17 tools, 7 resources, 2 resource templates": resource tools counted apart from the server's own tools. */
export function countLabel(lifecycle: ServerLifecycle, server: string): string {
	const all = lifecycle.catalog.forServer(server);
	const resources = all.filter((t) => t.resourceUri).length;
	const templates = all.filter((t) => t.resourceTemplate).length;
	const parts = [plural(all.length - resources - templates, "tool")];
	if (resources > 0) parts.push(plural(resources, "resource"));
	if (templates > 0) parts.push(plural(templates, "resource template"));
	return parts.join(", ");
}

/**
 * What the per-user broker runs, for `/mcp` and the CLI's status: which servers, since when, for
 * how many sessions. Empty when no broker runs (asking never starts one).
 */
export async function brokerReport(agentDir: string): Promise<string> {
	// Loaded here, not at start-up: the broker client (and its wire) serves only `/mcp` and a shared connect.
	const { brokerStatus } = await loadBroker();
	const status = await brokerStatus(agentDir);
	if (!status) return "";
	const time = (ms: number) => new Date(ms).toTimeString().slice(0, 5);
	const servers = status.servers.map(
		(s) => `  ${s.name}: ${plural(s.sessions, "session")}, up since ${time(s.since)}${s.pid ? `, pid ${s.pid}` : ""}`,
	);
	const head = `Shared MCP broker (pid ${status.pid}, since ${time(status.since)}): ${servers.length === 0 ? "no server running" : plural(servers.length, "server")}`;
	return [head, ...servers].join("\n");
}

/** A turned-off server as /mcp and the CLI's status list it: with the file that turned it off. */
export function turnedOffLine(name: string, file: string): string {
	return `${name}: turned off ("enabled": false in ${file})`;
}
