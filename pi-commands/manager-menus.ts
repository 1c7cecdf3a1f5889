// The /mcp manager's menus (pi-commands/mcp-manager.ts asks them): the servers with their state and the
// reason one failed, one server's actions, its tools with their exposure, an exposure to choose.
// Built from the runtime as it is when asked, so a menu shown again shows what a change did.
import { homedir } from "node:os";
import { type EditableFiles, editableFiles } from "../config/edit.ts";
import { settingsFile } from "../config/server-settings.ts";
import { forPerson, noServersMessage } from "../errors.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { grantType, usesOAuth } from "../oauth-handler.ts";
import { stateText } from "../proxy/server-status.ts";
import { oneLine } from "../trust/safe-text.ts";
import { type Exposure, exposureOf, type ServerEntry } from "../types.ts";

export interface MenuItem {
	readonly value: string;
	readonly label: string;
}

export interface Menu {
	readonly title: string;
	readonly items: readonly MenuItem[];
}

/** Pi 1.5's words for each exposure (its /mcp shows the same). */
const EXPOSURES: Readonly<Record<Exposure, string>> = {
	codemode: "called from codemode scripts, which find them with searchTools()",
	deferred: "not declared until tool_search loads them, then called directly; no codemode needed",
	direct: "declared to the model like built-in tools",
	hidden: "registered but unreachable",
};

/**
 * What an exposure does in this Pi: `reach` names the Pi tools that reach MCP tools here (codemode,
 * tool_search; feature-tested, pi 0.73 has neither), and where the one an exposure names is
 * missing, its tools are reached through the `mcp` tool.
 */
export function exposureText(exposure: Exposure, reach: readonly string[]): string {
	if (exposure === "codemode" && !reach.includes("codemode"))
		return "found and called through the mcp tool (this Pi has no codemode scripts)";
	if (exposure === "deferred" && !reach.includes("tool_search"))
		return "found and called through the mcp tool (this Pi has no tool_search)";
	return EXPOSURES[exposure];
}

/** Servers that need the user first, as Pi 1.5 sorts them. */
const ATTENTION = ["failed", "needs-auth", "needs-config", "awaiting-approval"];
const ROW_STATE = 160;

export function files(runtime: McpRuntime): EditableFiles {
	return editableFiles(runtime.agentDir, runtime.cwd);
}

export function serverExposure(entry: ServerEntry | undefined): Exposure {
	return entry?.exposure?.server ?? "codemode";
}

/** The server list: each with its state (a failure's reason), exposure and where it is configured. */
export function serversMenu(runtime: McpRuntime): Menu {
	const { lifecycle, config } = runtime;
	const rank = (name: string) => (ATTENTION.includes(lifecycle.state(name)) ? 0 : 1);
	const names = lifecycle.serverNames().sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
	const connected = names.filter((n) => lifecycle.state(n) === "connected").length;
	const items: MenuItem[] = names.map((name) => {
		const entry = config.servers.get(name);
		const state = cut(stateText(lifecycle, name, "person"), ROW_STATE);
		const where = entry ? ` · ${serverExposure(entry)} · ${sourceLabel(entry.source.path)}` : "";
		return { value: name, label: `${name} — ${state}${where}` };
	});
	for (const [name, file] of config.disabled ?? [])
		items.push({ value: name, label: `${name} — turned off · ${sourceLabel(file)}` });
	const problems = config.problems.map((p) => `${p.severity}: ${sourceLabel(p.file)}: ${oneLine(p.message)}`);
	const title =
		items.length === 0
			? noServersMessage(sourceLabel(files(runtime).user))
			: `MCP servers (${connected}/${names.length} connected)`;
	return { title: [title, ...problems.slice(0, 5)].join("\n"), items: [...items, { value: "close", label: "Close" }] };
}

/** One server's actions, as Pi 1.5 offers them and ours besides (approval, sharing, per-tool exposure). */
export function serverMenu(
	runtime: McpRuntime,
	name: string,
	projectFileRead: boolean,
	skills?: (server: string) => string[],
): Menu {
	const { lifecycle, config } = runtime;
	const entry = config.servers.get(name);
	const back = { value: "back", label: "Back" };
	const offIn = config.disabled?.get(name);
	if (!entry) {
		if (offIn) {
			const title = `MCP server ${name}\nturned off ("enabled": false in ${sourceLabel(offIn)})`;
			return { title, items: [{ value: "enable", label: `Enable (saved to ${sourceLabel(offIn)})` }, back] };
		}
		const reason = lifecycle.knows(name)
			? stateText(lifecycle, name, "person")
			: "This server is no longer configured.";
		return { title: `MCP server ${name}\n${reason}`, items: [back] };
	}
	const state = lifecycle.state(name);
	const where = settingsFile(entry, files(runtime));
	const savedTo = typeof where === "string" ? "" : ` (saved to ${sourceLabel(where.file)})`;
	const items: MenuItem[] = [];
	if (lifecycle.catalog.has(name)) items.push({ value: "tools", label: `Tools (${toolsOf(runtime, name).length})` });
	const gate = runtime.approvals.needsApproval(entry) ? runtime.approvals.state(entry) : undefined;
	if (gate === "pending" || gate === "denied") items.push({ value: "approve", label: "Approve for this project" });
	if (gate === "pending" || gate === "allowed")
		items.push({ value: "deny", label: gate === "allowed" ? "Revoke approval (deny)" : "Deny for this project" });
	if (!["needs-config", "awaiting-approval", "denied"].includes(state))
		items.push({ value: "reconnect", label: state === "connected" ? "Reconnect" : "Connect now" });
	if (usesOAuth(entry) && grantType(entry) === "authorization_code") {
		items.push({ value: "login", label: state === "needs-auth" ? "Sign in (opens the browser)" : "Sign in again" });
		items.push({ value: "logout", label: "Sign out (deletes the stored tokens)" });
	}
	items.push({ value: "exposure", label: `Exposure: ${serverExposure(entry)}${savedTo}` });
	if (entry.transport === "stdio" && typeof where !== "string" && !where.override)
		items.push({ value: "share", label: `Sharing (broker): ${shared(runtime, entry) ? "on" : "off"}${savedTo}` });
	if (entry.source.scope === "user") {
		// Pi 1.5: a server the project overrides is turned off in the override; any other in the user's file.
		const override = typeof where !== "string" && where.override;
		const offFile = override ? files(runtime).project : files(runtime).user;
		items.push({ value: "disable", label: `Disable (saved to ${sourceLabel(offFile)})` });
		if (projectFileRead && !override) {
			const label = `Disable in this project (saved to ${sourceLabel(files(runtime).project)})`;
			items.push({ value: "disable-project", label });
		}
	}
	const details = [
		`MCP server ${name}`,
		entry.transport === "stdio"
			? `stdio: ${[entry.command, ...entry.args].join(" ")}`
			: `${entry.transport}: ${entry.url}`,
		`config: ${sourceLabel(entry.source.path)}`,
		`State: ${stateText(lifecycle, name, "person")}`,
	];
	const failure = lifecycle.failure(name)?.message;
	if (failure && state !== "connected") details.push(forPerson(failure));
	details.push(...(skills?.(name) ?? []).map((line) => oneLine(line)));
	return { title: details.join("\n"), items: [...items, back] };
}

/** Whether a stdio server runs in the broker: its `share`, else `settings.shareServers`. */
export function shared(runtime: McpRuntime, entry: ServerEntry): boolean {
	return entry.share ?? runtime.config.settings.shareServers;
}

/** A server's tools (not its resources), by the server's own names. */
export function toolsOf(runtime: McpRuntime, name: string): string[] {
	return runtime.lifecycle.catalog
		.forServer(name)
		.filter((t) => !t.resourceUri && !t.resourceTemplate)
		.map((t) => t.name);
}

/** The tools with their exposure (marked where `toolExposure` sets it apart from the server's). */
export function toolsMenu(runtime: McpRuntime, name: string, reach: readonly string[]): Menu {
	const entry = runtime.config.servers.get(name);
	const exposure = serverExposure(entry);
	const items = toolsOf(runtime, name).map((tool) => {
		const own = exposureOf(entry?.exposure, tool) ?? "codemode";
		return { value: tool, label: `${tool} [${own}]${own === exposure ? "" : " (toolExposure)"}` };
	});
	const title = `Tools of ${name}\nExposure ${exposure}: ${exposureText(exposure, reach)}\nChoose a tool to change its exposure (saved as "toolExposure").`;
	return { title, items: [...items, { value: "back", label: "Back" }] };
}

/** The exposures to choose from, the current one marked; for a tool, also "as its server". */
export function exposureMenu(
	title: string,
	current: Exposure,
	reach: readonly string[],
	serverDefault?: Exposure,
): Menu {
	const items: MenuItem[] = (Object.keys(EXPOSURES) as Exposure[]).map((e) => ({
		value: e,
		label: `${e === current ? "✓" : " "} ${e}: ${exposureText(e, reach)}`,
	}));
	if (serverDefault)
		items.push({ value: "server", label: `  as the server (${serverDefault}): no toolExposure entry` });
	return { title, items: [...items, { value: "back", label: "Back" }] };
}

/** A file as Pi 1.5's /mcp names it: the home folder as ~. */
function sourceLabel(path: string): string {
	const home = homedir();
	return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

function cut(text: string, max: number): string {
	const line = oneLine(text);
	return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
