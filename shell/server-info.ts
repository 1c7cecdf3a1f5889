// `get <name>` and bare `list` from a shell: what the config says of its servers, read as a session
// reads it, without starting any. `get` shows one server's entry (what it runs or connects to, as
// written, secrets masked), where it is defined and what else defines that name, its state, its
// approval and its sign-in; `list` one line per server.
import { homedir } from "node:os";
import { resolve } from "node:path";
import { definitions } from "../config/definitions.ts";
import { piConfigPaths } from "../config.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { signsInWithBrowser } from "../oauth-handler.ts";
import { stateText } from "../proxy/server-status.ts";
import type { ServerEntry } from "../types.ts";
import { print, printError } from "./output.ts";
import { signInState } from "./sign-in-state.ts";

/** `get <name>`: 0 when the config names it (in any state), 1 when it does not, 2 without a name. */
export function getServer(runtime: McpRuntime, name: string | undefined): number {
	if (!name) {
		printError("get needs a server name. pi-mcp-proxy list shows them.\n");
		return 2;
	}
	const { config, lifecycle } = runtime;
	const entry = config.servers.get(name);
	const others = definitions(configFiles(runtime), { cwd: runtime.cwd, env: runtime.env }).filter(
		(d) => d.name === name,
	);
	const lines: string[] = [name];
	if (entry) {
		lines.push(`  defined in: ${entry.source.path} (${whose(entry)})`);
		lines.push(...entry.launch.summary.split("\n").map((line) => `  ${line}`));
		lines.push(`  ${settingsLine(entry)}`);
		if (entry.description) lines.push(`  description: ${entry.description}`);
		lines.push(`  state: ${stateText(lifecycle, name, "person")}`);
		if (runtime.approvals.needsApproval(entry)) lines.push(`  approval: ${approvalLine(runtime, entry)}`);
		if (signsInWithBrowser(entry)) lines.push(`  sign-in: ${signInState(runtime, entry).text.slice(name.length + 2)}`);
	} else if (config.disabled?.has(name)) lines.push(`  turned off ("enabled": false in ${config.disabled.get(name)})`);
	else if (lifecycle.knows(name)) lines.push(`  ${stateText(lifecycle, name, "person")}`);
	else {
		printError(`${lifecycle.unknownServer(name)}\n`);
		return 1;
	}
	const own = entry?.source.path ?? config.unconfigured.get(name)?.source.path ?? config.disabled?.get(name);
	const shadowed = others.filter((d) => d.path !== own);
	for (const d of shadowed)
		lines.push(
			`  also in: ${d.path}${d.kind === "import" ? ` (imported from ${d.host}; not used)` : d.kind === "override" ? " (adjusts it)" : " (not used: the entry above replaces it)"}`,
		);
	print(`${runtime.redactor.scrub(lines.join("\n"))}\n`);
	return 0;
}

/** Bare `list`: every configured server, one line each; 1 when the config has errors. */
export function listServers(runtime: McpRuntime): number {
	const { config, lifecycle } = runtime;
	const names = lifecycle.serverNames();
	if (names.length === 0 && (config.disabled?.size ?? 0) === 0)
		print("No MCP servers configured. Add one: pi-mcp-proxy add <name> -- <command> [args...], or add <name> <url>\n");
	for (const name of names) {
		const entry = config.servers.get(name);
		const what = entry ? `${launchLine(entry)}  [${entry.source.path}]` : stateText(lifecycle, name, "person");
		print(`${runtime.redactor.scrub(`${name}: ${what}`)}\n`);
	}
	for (const [name, file] of config.disabled ?? []) print(`${name}: turned off [${file}]\n`);
	return config.problems.some((p) => p.severity === "error") ? 1 : 0;
}

/** The files the config was read from, as config.ts reads them (or the one --config names), lowest precedence first. */
export function configFiles(runtime: McpRuntime): { path: string; scope: "user" | "project" }[] {
	if (runtime.configPath) return [{ path: resolve(runtime.cwd, runtime.configPath), scope: "user" }];
	return piConfigPaths(runtime.cwd, runtime.agentDir, runtime.readsProjectFile, homedir());
}

function whose(entry: ServerEntry): string {
	if (entry.source.kind === "import") return `imported from ${entry.source.host}`;
	return entry.source.scope === "project" ? "the project's" : "yours";
}

function launchLine(entry: ServerEntry): string {
	return entry.transport === "stdio" ? [entry.command, ...entry.args].join(" ") : entry.url;
}

function settingsLine(entry: ServerEntry): string {
	const parts = [`exposure: ${entry.exposure?.server ?? "codemode"}`, `lifecycle: ${entry.lifecycle}`];
	if (entry.timeout !== undefined) parts.push(`timeout: ${entry.timeout} s`);
	if (entry.transport === "stdio" && entry.share !== undefined) parts.push(`shared: ${entry.share}`);
	return parts.join(", ");
}

function approvalLine(runtime: McpRuntime, entry: ServerEntry): string {
	const state = runtime.approvals.state(entry);
	if (state === "allowed") return "approved for this project";
	if (state === "denied") return `denied for this project (pi-mcp-proxy approve ${entry.name} allows it)`;
	return `awaiting your approval (pi-mcp-proxy approve ${entry.name})`;
}
