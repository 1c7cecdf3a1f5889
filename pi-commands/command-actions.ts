// What /mcp and /mcp-auth do (pi-commands/slash-commands.ts registers them): status, tools, reconnect,
// approve and deny, enable and disable, sign-in and sign-out. Loaded with a command's first use.
import { homedir } from "node:os";
import type { ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { askApproval } from "../client/approval-question.ts";
import { safeDialogs } from "../client/user-dialogs.ts";
import { editableFiles, turnOff, turnOn } from "../config/edit.ts";
import { formatProblem } from "../config.ts";
import { describeError, noServersMessage } from "../errors.ts";
import type { ServerLifecycle } from "../lifecycle.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { authHelp, signsInWithBrowser, storedSignInNote } from "../oauth-handler.ts";
import { brokerReport, countLabel, stateText, turnedOffLine } from "../proxy/server-status.ts";
import type { DirectSummary } from "../tool-registrar.ts";
import { type ApproveAnswer, approveCommand } from "../trust/approve-flow.ts";
import { isShownCode } from "../trust/shown-launches.ts";
import type { ConfigSource, ServerEntry } from "../types.ts";
import { type CommandDeps, say, USAGE } from "./command-io.ts";
import { editCommand, setupCommand } from "./config-dialogs.ts";
import { promptCommandName, promptUsage } from "./prompt-commands.ts";

/** /mcp [sub] [server]. */
export async function mcpCommand(
	ctx: ExtensionCommandContext,
	runtime: McpRuntime,
	args: string,
	deps: CommandDeps,
): Promise<void> {
	const serverNames = () => runtime.lifecycle.serverNames();
	const [sub = "status", server, ...more] = args.trim().split(/\s+/).filter(Boolean);
	if (sub === "enable" || sub === "disable") return turnOnOff(ctx, runtime, sub, server, deps);
	// pi-mcp-adapter 2.36's /mcp setup and /mcp edit: the add flow, the config in Pi's editor.
	if (sub === "setup") return setupCommand(ctx, runtime, deps);
	if (sub === "edit") return editCommand(ctx, runtime, server, deps);
	if (sub === "approve") {
		const words = [server, ...more].filter((w) => w !== undefined);
		const unknown = words.find((w) => !isShownCode(w) && !runtime.lifecycle.knows(w));
		if (unknown) return say(ctx, runtime, runtime.lifecycle.unknownServer(unknown), "error");
		const answer = await approve(ctx, runtime, words);
		say(ctx, runtime, answer.text, answer.level);
		return deps.decided?.(runtime);
	}
	if (server && !runtime.lifecycle.knows(server))
		return say(ctx, runtime, runtime.lifecycle.unknownServer(server), "error");
	if (sub === "status")
		return say(
			ctx,
			runtime,
			[
				statusReport(runtime, deps.direct(), deps.skills),
				deps.fromSnapshot?.()
					? "This session started from the start-up snapshot: the config and the cache had not changed since the last start."
					: "",
				await brokerReport(runtime.agentDir),
			]
				.filter(Boolean)
				.join("\n"),
		);
	if (sub === "tools") return say(ctx, runtime, toolsReport(runtime.lifecycle, server));
	if (sub === "prompts") return say(ctx, runtime, promptsReport(runtime.lifecycle, server));
	if (sub === "reconnect") return say(ctx, runtime, await reconnect(runtime.lifecycle, server));
	if (sub === "deny") {
		say(ctx, runtime, await deny(runtime, server));
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
}

/** /mcp-auth <server> [login | logout | status]. */
export async function mcpAuthCommand(ctx: ExtensionCommandContext, runtime: McpRuntime, args: string): Promise<void> {
	const [name, sub = "login"] = args.trim().split(/\s+/).filter(Boolean);
	if (!name)
		return say(
			ctx,
			runtime,
			`Usage: /mcp-auth <server> [login | logout | status]. Servers: ${runtime.lifecycle.serverNames().join(", ") || "none"}`,
			"warning",
		);
	await authCommand(ctx, runtime, name, sub);
}

/** `/mcp prompts [server]`: the servers' prompts as the commands that run them, with what each does. */
export function promptsReport(lifecycle: ServerLifecycle, server?: string): string {
	const lines: string[] = [];
	for (const name of server ? [server] : lifecycle.serverNames()) {
		const prompts = lifecycle.blocked(name) ? [] : lifecycle.prompts(name);
		if (prompts.length === 0) continue;
		lines.push(`${name}:`);
		for (const p of prompts) {
			const usage = promptUsage(p);
			lines.push(
				`  /${promptCommandName(name, p.name)}${usage ? ` ${usage}` : ""}${p.description ? `: ${p.description}` : ""}`,
			);
		}
	}
	return lines.length > 0
		? ["MCP prompts (run one as a command; arguments by name=value or in order):", ...lines].join("\n")
		: "No MCP prompts known: a server lists its prompts when it connects (/mcp reconnect <server> connects one).";
}

export function statusReport(
	runtime: McpRuntime,
	direct: DirectSummary | undefined,
	skills?: (server: string) => string[],
): string {
	const { lifecycle, config } = runtime;
	const names = lifecycle.serverNames();
	const lines: string[] = [];
	const off = [...(config.disabled ?? [])];
	if (names.length === 0 && off.length === 0) lines.push(noServersMessage());
	else
		lines.push(
			`MCP servers (${names.filter((n) => lifecycle.state(n) === "connected").length}/${names.length} connected):`,
		);
	for (const name of names) {
		const entry = config.servers.get(name);
		const text = stateText(lifecycle, name, "person");
		lines.push(
			`  ${name}: ${text}${entry && !text.endsWith(`(${entry.lifecycle})`) ? ` (${entry.lifecycle})` : ""}${entry ? ` from ${sourceLabel(entry.source)}` : ""}`,
		);
		const prompts = lifecycle.blocked(name) ? [] : lifecycle.prompts(name);
		if (prompts.length > 0) {
			lines.push(
				`    prompts: ${prompts.map((p) => `/${promptCommandName(name, p.name)}${p.arguments.length > 0 ? ` ${promptUsage(p)}` : ""}`).join(", ")}`,
			);
		}
		for (const line of skills?.(name) ?? []) lines.push(`    ${line}`);
		for (const refused of lifecycle.manager.get(name)?.skillProblems ?? [])
			lines.push(`    skill entry refused: ${refused}`);
	}
	// Pi 1.5 lists turned-off servers too: the user sees what is configured, not only what runs.
	for (const [name, file] of off) lines.push(`  ${turnedOffLine(name, file)}`);
	if (lifecycle.cacheTrouble) {
		lines.push(
			`Tool lists could not be saved (${lifecycle.cacheTrouble}): the next start will start servers again to list them.`,
		);
	}
	if (lifecycle.cacheNotice) lines.push(lifecycle.cacheNotice);
	if (direct) {
		if (direct.names.length > 0)
			lines.push(`Direct tools (${direct.names.length}, ~${direct.tokens} tokens): ${direct.names.join(", ")}`);
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

/**
 * /mcp approve [server] [code]: with a dialog the launches are shown in it and the answer binds
 * them; without one (pi -p, json) only the code printed with what the user read approves.
 */
export async function approve(
	ctx: ExtensionCommandContext,
	runtime: McpRuntime,
	words: string[],
): Promise<ApproveAnswer> {
	const ask = ctx.hasUI
		? (entries: readonly ServerEntry[]) =>
				askApproval(safeDialogs(ctx.ui), entries, storedSignInNote(runtime.agentDir), { signal: ctx.signal })
		: undefined;
	return approveCommand(runtime, words, ask);
}

export async function deny(runtime: McpRuntime, server: string | undefined): Promise<string> {
	const decided = await runtime.decide(server ? [server] : [], "denied");
	if (decided.length === 0) {
		return server
			? `"${server}" comes from your own config, not the project's: it needs no approval.`
			: "No project server needs a decision.";
	}
	return `Denied for ${runtime.approvals.project}:\n${decided.map((e) => `  ${runtime.describeLaunch(e)}`).join("\n")}`;
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

export async function reconnect(lifecycle: ServerLifecycle, server?: string): Promise<string> {
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

/** /mcp enable|disable <server>: saved to the config file, then the session's MCP starts again from it. */
export async function turnOnOff(
	ctx: ExtensionCommandContext,
	runtime: McpRuntime,
	sub: "enable" | "disable",
	server: string | undefined,
	deps: CommandDeps,
): Promise<void> {
	if (!server) return say(ctx, runtime, `Usage: /mcp ${sub} <server>`, "warning");
	let done: string;
	try {
		const files = editableFiles(runtime.agentDir, runtime.cwd);
		done = await (sub === "enable" ? turnOn(runtime.config, server, files) : turnOff(runtime.config, server, files));
	} catch (error) {
		return say(ctx, runtime, describeError(error), "warning");
	}
	await deps.reload?.(ctx);
	say(ctx, runtime, `${done} MCP reloaded its config.`);
}

/** Sign in, sign out, or say how a server authenticates: /mcp-auth <server> [sub] and /mcp login|logout <server>. */
export async function authCommand(
	ctx: ExtensionCommandContext,
	runtime: McpRuntime,
	name: string,
	sub: string,
): Promise<void> {
	if (runtime.lifecycle.state(name) === "needs-config")
		return say(ctx, runtime, runtime.lifecycle.blocked(name) ?? "", "warning");
	const entry = runtime.config.servers.get(name);
	if (!entry) return say(ctx, runtime, runtime.lifecycle.unknownServer(name), "error");
	const help = () => authHelp(entry, name, { agentDir: runtime.agentDir, env: runtime.env });
	if (sub === "status" || !signsInWithBrowser(entry)) return say(ctx, runtime, help());
	if (sub === "logout") {
		const had = await runtime.signOut(name);
		return say(ctx, runtime, had ? `Signed out of "${name}": its tokens are deleted.` : `"${name}" was not signed in.`);
	}
	if (sub !== "login")
		return say(ctx, runtime, `Unknown subcommand "${sub}". Use: /mcp-auth ${name} [login | logout | status]`, "error");
	try {
		await runtime.signIn(name, signInIo(ctx, runtime, name));
		say(ctx, runtime, `Signed in to "${name}": ${stateText(runtime.lifecycle, name, "person")}.`);
	} catch (error) {
		say(ctx, runtime, describeError(error), "error");
	}
}
