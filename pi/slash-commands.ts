// The /mcp and /mcp-auth commands and the footer status line: what the user (not the model)
// sees of the servers. Commands answer through ctx.ui.notify (TUI, rpc) or stdout without a UI.

import { homedir } from "node:os";
import type { ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { formatProblem } from "../config.ts";
import type { ServerLifecycle } from "../lifecycle.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { authHelp, grantType, usesOAuth } from "../oauth-handler.ts";
import type { DirectPlan } from "../tool-registrar.ts";
import { describeError } from "../transport/errors.ts";
import type { Decision } from "../trust/project-approval.ts";
import { terminalSafe } from "../trust/safe-text.ts";
import type { ConfigSource } from "../types.ts";
import { promptCommandName, promptUsage } from "./prompt-commands.ts";
import { brokerReport, countLabel, stateText, turnedOffLine } from "./server-status.ts";

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
] as const;
const USAGE =
	"/mcp status | tools [server] | reconnect [server] | approve [server] | deny [server] | enable <server> | disable <server> | login <server> | logout <server>";

export interface CommandDeps {
	/** The current session's runtime; undefined between sessions. */
	readonly runtime: () => McpRuntime | undefined;
	/** What happened to direct tools at load, for /mcp status. */
	readonly direct: () => DirectPlan | undefined;
	/** Told after /mcp approve or deny changed which servers may run. */
	readonly decided?: (runtime: McpRuntime) => void;
	/** Applies the config files again (after /mcp enable or disable saved a change); the other servers keep running. */
	readonly reload?: (ctx: ExtensionCommandContext) => Promise<void>;
}

/** `MCP 2/5`: connected of configured; a failure or missing auth is flagged. */
export function statusLine(lifecycle: ServerLifecycle): string | undefined {
	// Servers the user denied for this project are not counted: they are not expected to run.
	const names = lifecycle.serverNames().filter((n) => lifecycle.state(n) !== "denied");
	if (names.length === 0) return undefined;
	const states = names.map((n) => lifecycle.state(n));
	const connected = states.filter((s) => s === "connected").length;
	const count = (state: string) => states.filter((s) => s === state).length;
	const flags = [
		[count("starting"), "starting"],
		[count("failed"), "failed"],
		[count("needs-auth"), "need sign-in"],
		[count("needs-config"), "need config"],
		[count("awaiting-approval"), "awaiting approval"],
	] as const;
	return `MCP ${connected}/${names.length}${flags.map(([n, what]) => (n > 0 ? ` ${n} ${what}` : "")).join("")}`;
}

export function statusReport(runtime: McpRuntime, direct: DirectPlan | undefined): string {
	const { lifecycle, config } = runtime;
	const names = lifecycle.serverNames();
	const lines: string[] = [];
	const off = [...(config.disabled ?? [])];
	if (names.length === 0 && off.length === 0)
		lines.push("No MCP servers configured (~/.pi/agent/mcp.json, .mcp.json, .pi/mcp.json).");
	else
		lines.push(
			`MCP servers (${names.filter((n) => lifecycle.state(n) === "connected").length}/${names.length} connected):`,
		);
	for (const name of names) {
		const entry = config.servers.get(name);
		const text = stateText(lifecycle, name);
		lines.push(
			`  ${name}: ${text}${entry && !text.endsWith(`(${entry.lifecycle})`) ? ` (${entry.lifecycle})` : ""}${entry ? ` from ${sourceLabel(entry.source)}` : ""}`,
		);
		const prompts = lifecycle.blocked(name) ? [] : lifecycle.prompts(name);
		if (prompts.length > 0) {
			lines.push(
				`    prompts: ${prompts.map((p) => `/${promptCommandName(name, p.name)}${p.arguments.length > 0 ? ` ${promptUsage(p)}` : ""}`).join(", ")}`,
			);
		}
	}
	// Pi 1.5 lists turned-off servers too: the user sees what is configured, not only what runs.
	for (const [name, file] of off) lines.push(`  ${turnedOffLine(name, file)}`);
	if (lifecycle.cacheTrouble) {
		lines.push(
			`Tool lists could not be saved (${lifecycle.cacheTrouble}): the next start will start servers again to list them.`,
		);
	}
	if (direct) {
		if (direct.tools.length > 0)
			lines.push(
				`Direct tools (${direct.tools.length}, ~${direct.tokens} tokens): ${direct.tools.map((t) => t.name).join(", ")}`,
			);
		if (direct.uncached.length > 0) {
			lines.push(
				`Direct tools skipped for ${direct.uncached.join(", ")}: no cached metadata yet (proxy only); they register at the next start.`,
			);
		}
		if (direct.unknown.length > 0) lines.push(`Direct tools not found: ${direct.unknown.join(", ")}`);
	}
	for (const problem of config.problems) lines.push(formatProblem(problem));
	return lines.join("\n");
}

/** Where a server is configured, as Pi 1.5's /mcp shows it: a file (home as ~), an import, an extension. */
function sourceLabel(source: ConfigSource): string {
	const home = homedir();
	const path = source.path.startsWith(`${home}/`) ? `~${source.path.slice(home.length)}` : source.path;
	if (source.kind === "import") return `${source.host} (${path})`;
	if (source.kind === "extension") return `extension ${path}`;
	return path;
}

async function decide(runtime: McpRuntime, server: string | undefined, decision: Decision): Promise<string> {
	const decided = await runtime.decide(server ? [server] : [], decision);
	if (decided.length === 0) {
		return server
			? `"${server}" comes from your own config, not the project's: it needs no approval.`
			: "No project server needs a decision.";
	}
	const verb = decision === "approved" ? "Approved (starting as configured)" : "Denied";
	return `${verb} for ${runtime.approvals.project}:\n${decided.map((e) => `  ${runtime.describeLaunch(e)}`).join("\n")}`;
}

function toolsReport(lifecycle: ServerLifecycle, server?: string): string {
	const names = server ? [server] : lifecycle.serverNames();
	return names
		.map((name) => {
			if (!lifecycle.catalog.has(name)) return `${name}: tools not known yet (/mcp reconnect ${name})`;
			const tools = lifecycle.catalog.forServer(name).map((t) => t.qualifiedName);
			return `${name} (${countLabel(lifecycle, name)}):\n  ${tools.join("\n  ")}`;
		})
		.join("\n");
}

async function reconnect(lifecycle: ServerLifecycle, server?: string): Promise<string> {
	const targets = server
		? [server]
		: lifecycle.serverNames().filter((n) => ["connected", "failed", "needs-auth"].includes(lifecycle.state(n)));
	if (targets.length === 0) return "No server is running or failed; nothing to reconnect.";
	const results = await Promise.all(
		targets.map(async (name) => {
			try {
				await lifecycle.reconnect(name);
				return `${name}: reconnected, ${countLabel(lifecycle, name)}`;
			} catch (error) {
				return `${name}: ${describeError(error).split("\n")[0]}`;
			}
		}),
	);
	return results.join("\n");
}

const AUTH_SUBCOMMANDS = ["login", "logout", "status"] as const;

/**
 * How a sign-in talks to the user: the URL is always shown (a browser on another machine works),
 * and with a UI the redirected address can be pasted back; without one the callback is awaited.
 */
function signInIo(ctx: ExtensionCommandContext, runtime: McpRuntime, name: string) {
	return {
		// Its query (client id, PKCE challenge, state) is what the page needs: not masked like other URLs.
		// The short link first: the whole address wraps over several lines here, and a copy keeps the breaks.
		show: (url: string, shortUrl: string) =>
			say(
				ctx,
				runtime,
				`Sign in to "${name}": open ${shortUrl} (a browser was opened if this machine has one). Pi waits for the sign-in to finish (5 minutes at most).\nFrom a browser on another machine, open the whole address instead:\n${url}`,
				"info",
				{
					keepUrls: true,
				},
			),
		askPaste: ctx.hasUI
			? (signal: AbortSignal) =>
					ctx.ui.input(
						`If the browser runs on another machine, paste the address it ended on (for "${name}")`,
						"http://127.0.0.1:.../callback?code=...",
						{ signal },
					)
			: undefined,
	};
}

/** A command's answer: a notification with a UI, stdout without one; scrubbed (URLs masked unless `keepUrls`). */
export function say(
	ctx: ExtensionCommandContext,
	runtime: McpRuntime | undefined,
	text: string,
	level: "info" | "warning" | "error" = "info",
	options: { keepUrls?: boolean } = {},
): void {
	// Server names, prompt names and errors come from repositories and servers: no terminal sequences.
	const shown = terminalSafe(
		runtime ? (options.keepUrls ? runtime.redactor.scrubSecrets(text) : runtime.redactor.scrub(text)) : text,
	);
	if (ctx.hasUI) ctx.ui.notify(shown, level);
	else process.stdout.write(`${shown}\n`);
}

export function registerCommands(pi: ExtensionAPI, deps: CommandDeps): void {
	const serverNames = () => deps.runtime()?.lifecycle.serverNames() ?? [];
	pi.registerCommand("mcp", {
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
			if (!["tools", "reconnect", "approve", "deny", "login", "logout", "enable", "disable"].includes(sub)) return null;
			const turnedOff = [...(deps.runtime()?.config.disabled?.keys() ?? [])];
			return (sub === "enable" ? turnedOff : serverNames())
				.filter((n) => n.startsWith(rest[0] ?? ""))
				.map((n) => ({ value: `${sub} ${n}`, label: n }));
		},
		handler: async (args, ctx) => {
			const runtime = deps.runtime();
			if (!runtime) return say(ctx, runtime, "MCP is not running in this session.", "warning");
			const [sub = "status", server] = args.trim().split(/\s+/).filter(Boolean);
			if (sub === "enable" || sub === "disable") return turnOnOff(ctx, runtime, sub, server, deps);
			if (server && !runtime.lifecycle.knows(server))
				return say(ctx, runtime, runtime.lifecycle.unknownServer(server), "error");
			if (sub === "status")
				return say(
					ctx,
					runtime,
					[statusReport(runtime, deps.direct()), await brokerReport(runtime.agentDir)].filter(Boolean).join("\n"),
				);
			if (sub === "tools") return say(ctx, runtime, toolsReport(runtime.lifecycle, server));
			if (sub === "reconnect") return say(ctx, runtime, await reconnect(runtime.lifecycle, server));
			if (sub === "approve" || sub === "deny") {
				say(ctx, runtime, await decide(runtime, server, sub === "approve" ? "approved" : "denied"));
				return deps.decided?.(runtime);
			}
			// Pi 1.5's own /mcp signs in and out this way; its users keep the habit.
			if (sub === "login" || sub === "logout") {
				if (!server)
					return say(
						ctx,
						runtime,
						`Usage: /mcp ${sub} <server>. Servers: ${serverNames().join(", ") || "none"}`,
						"warning",
					);
				return authCommand(ctx, runtime, server, sub);
			}
			say(ctx, runtime, `Unknown subcommand "${sub}". Use: ${USAGE}`, "error");
		},
	});
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
			const runtime = deps.runtime();
			const [name, sub = "login"] = args.trim().split(/\s+/).filter(Boolean);
			if (!runtime) return say(ctx, runtime, "MCP is not running in this session.", "warning");
			if (!name)
				return say(
					ctx,
					runtime,
					`Usage: /mcp-auth <server> [login | logout | status]. Servers: ${serverNames().join(", ") || "none"}`,
					"warning",
				);
			await authCommand(ctx, runtime, name, sub);
		},
	});
}

/** /mcp enable|disable <server>: saved to the config file, then the session's MCP starts again from it. */
async function turnOnOff(
	ctx: ExtensionCommandContext,
	runtime: McpRuntime,
	sub: "enable" | "disable",
	server: string | undefined,
	deps: CommandDeps,
): Promise<void> {
	if (!server) return say(ctx, runtime, `Usage: /mcp ${sub} <server>`, "warning");
	let done: string;
	try {
		// Loaded here: config editing is needed only by this command, not at start-up.
		const { editableFiles, turnOff, turnOn } = await import("../config/edit.ts");
		const files = editableFiles(runtime.agentDir, runtime.cwd);
		done = await (sub === "enable" ? turnOn(runtime.config, server, files) : turnOff(runtime.config, server, files));
	} catch (error) {
		return say(ctx, runtime, describeError(error), "warning");
	}
	await deps.reload?.(ctx);
	say(ctx, runtime, `${done} MCP reloaded its config.`);
}

/** Sign in, sign out, or say how a server authenticates: /mcp-auth <server> [sub] and /mcp login|logout <server>. */
async function authCommand(
	ctx: ExtensionCommandContext,
	runtime: McpRuntime,
	name: string,
	sub: string,
): Promise<void> {
	if (runtime.lifecycle.state(name) === "needs-config")
		return say(ctx, runtime, runtime.lifecycle.blocked(name) ?? "", "warning");
	const entry = runtime.config.servers.get(name);
	const help = () => authHelp(entry, name, { agentDir: runtime.agentDir, env: runtime.env });
	if (sub === "status" || !entry || !usesOAuth(entry) || grantType(entry) === "client_credentials")
		return say(ctx, runtime, help());
	if (sub === "logout") {
		const had = await runtime.signOut(name);
		return say(ctx, runtime, had ? `Signed out of "${name}": its tokens are deleted.` : `"${name}" was not signed in.`);
	}
	if (sub !== "login")
		return say(ctx, runtime, `Unknown subcommand "${sub}". Use: /mcp-auth ${name} [login | logout | status]`, "error");
	try {
		await runtime.signIn(name, signInIo(ctx, runtime, name));
		say(ctx, runtime, `Signed in to "${name}": ${stateText(runtime.lifecycle, name)}.`);
	} catch (error) {
		say(ctx, runtime, describeError(error), "error");
	}
}
