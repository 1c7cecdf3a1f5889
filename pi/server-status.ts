// One server's state in words, the same for the model (`mcp({})`) and the user (`/mcp`).
import type { ServerLifecycle } from "../lifecycle.ts";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** One server's state in words, the same for the model (`mcp({})`) and the user (`/mcp`). */
export function stateText(lifecycle: ServerLifecycle, name: string): string {
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
export function startingText(lifecycle: ServerLifecycle, name: string): string {
	const progress = lifecycle.starting(name);
	if (!progress) return "starting";
	const seconds = (since: number) => Math.max(0, Math.round((Date.now() - since) / 1000));
	return progress.install
		? `installing ${progress.install.spec} with npm, ${seconds(progress.install.since)} s`
		: `starting, ${seconds(progress.since)} s`;
}

/**
 * A failure in one line: its first line and, when the server said why on stderr, the last thing
 * it said there ("Connection closed" alone tells the user nothing; "missing API key" does).
 */
export function failureSummary(message: string): string {
	const [head, ...rest] = message.split("\n");
	const stderrAt = rest.findIndex((line) => line.startsWith("Server stderr:"));
	const said =
		stderrAt < 0
			? undefined
			: rest
					.slice(stderrAt + 1)
					.filter((line) => line.trim())
					.at(-1)
					?.trim();
	return said && !head.includes(said) ? `${head} (the server said: ${said})` : head;
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
	const { brokerStatus } = await import("../broker/client.ts");
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
