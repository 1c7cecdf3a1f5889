// The /mcp and /mcp-auth commands: what the user (not the model) sees of the servers (the footer's
// line: pi-ui/status-line.ts). Commands answer through ctx.ui.notify (TUI, rpc) or stdout without a UI;
// what they do (pi-commands/command-actions.ts) loads with their first use.

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { once } from "../bounds/waits.ts";
import { type CommandDeps, say, USAGE } from "./command-io.ts";

const loadCommandActions = once(() => import("./command-actions.ts"));
const loadManager = once(() => import("./mcp-manager.ts"));

const SUBCOMMANDS = [
	{ value: "status", description: "servers, their state and tools" },
	{ value: "tools", description: "tool names, of one server or all" },
	{ value: "reconnect", description: "reconnect one server, or all that ran or failed" },
	{ value: "approve", description: "let this project's servers run (one, or all awaiting)" },
	{ value: "deny", description: "keep this project's servers from running (one, or all)" },
	{ value: "disable", description: "turn a server off (saved in ~/.pi/agent/mcp.json, as Pi 1.5's /mcp does)" },
	{ value: "enable", description: "turn a turned-off server back on" },
	{ value: "login", description: "sign in to a server (OAuth; as /mcp-auth <server>)" },
	{ value: "logout", description: "sign out of a server: its tokens are deleted" },
	{ value: "prompts", description: "the servers' prompts, as the commands that run them" },
	{ value: "setup", description: "add a server (a name, a command or a URL; as `pi-mcp-proxy add`)" },
	{ value: "edit", description: "the config file in Pi's editor, saved when it parses" },
] as const;

const AUTH_SUBCOMMANDS = ["login", "logout", "status"] as const;

export function registerCommands(pi: ExtensionAPI, deps: CommandDeps): void {
	const serverNames = () => deps.names().servers;
	const mcp: Parameters<ExtensionAPI["registerCommand"]>[1] = {
		description: `MCP servers: ${USAGE.replace("/mcp ", "")}`,
		getArgumentCompletions: (prefix) => {
			const [sub, ...rest] = prefix.split(/\s+/);
			if (rest.length === 0) {
				return SUBCOMMANDS.filter((s) => s.value.startsWith(sub)).map((s) => ({
					value: s.value,
					label: s.value,
					description: s.description,
				}));
			}
			if (
				!["tools", "prompts", "edit", "reconnect", "approve", "deny", "login", "logout", "enable", "disable"].includes(
					sub,
				)
			)
				return null;
			const turnedOff = deps.names().disabled;
			return (sub === "enable" ? turnedOff : serverNames())
				.filter((n) => n.startsWith(rest[0] ?? ""))
				.map((n) => ({ value: `${sub} ${n}`, label: n }));
		},
		handler: async (args, ctx) => {
			const runtime = await deps.runtime();
			if (!runtime) return say(ctx, runtime, "MCP is not running in this session.", "warning");
			// Bare /mcp where Pi has dialogs (TUI, rpc) is the manager; -p and subcommands answer in text.
			if (args.trim() === "" && ctx.hasUI) {
				const { openManager } = await loadManager();
				return openManager(ctx, deps);
			}
			// The command's work loads with its first use, not with the extension (start-up cost).
			const { mcpCommand } = await loadCommandActions();
			await mcpCommand(ctx, runtime, args, deps);
		},
	};
	pi.registerCommand("mcp", mcp);
	// pi-mcp-adapter 2.36's other name for it: a switcher's habit keeps working.
	pi.registerCommand("pi-mcp", { ...mcp, description: "MCP servers (as /mcp)" });
	pi.registerCommand("mcp-auth", {
		description: "Sign in to an MCP server (OAuth in the browser): <server> [login | logout | status]",
		getArgumentCompletions: (prefix) => {
			const [server, ...rest] = prefix.split(/\s+/);
			if (rest.length === 0)
				return serverNames()
					.filter((n) => n.startsWith(server))
					.map((n) => ({ value: n, label: n }));
			return AUTH_SUBCOMMANDS.filter((s) => s.startsWith(rest[0] ?? "")).map((s) => ({
				value: `${server} ${s}`,
				label: s,
			}));
		},
		handler: async (args, ctx) => {
			const runtime = await deps.runtime();
			if (!runtime) return say(ctx, runtime, "MCP is not running in this session.", "warning");
			const { mcpAuthCommand } = await loadCommandActions();
			await mcpAuthCommand(ctx, runtime, args);
		},
	});
}
