// What the /mcp commands share between their registration (pi-commands/slash-commands.ts, loaded with
// the extension) and their work (pi-commands/command-actions.ts, loaded at first use): how they answer,
// their usage line, and what they need of the session.
import type { ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { forPerson } from "../errors.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import type { DirectSummary } from "../tool-registrar.ts";
import { terminalSafe } from "../trust/safe-text.ts";

export const USAGE =
	"/mcp status | tools [server] | prompts [server] | reconnect [server] | approve [server] | deny [server] | enable <server> | disable <server> | login <server> | logout <server> | setup | edit [server]";

export interface CommandDeps {
	/** The session's runtime, built first if it is not yet; undefined between sessions. */
	readonly runtime: () => Promise<McpRuntime | undefined>;
	/** The servers and the turned-off servers, for completions (from the runtime, or the start-up snapshot). */
	readonly names: () => { servers: readonly string[]; disabled: readonly string[] };
	/** What happened to direct tools at load, for /mcp status. */
	readonly direct: () => DirectSummary | undefined;
	/** A server's skills as Pi knows them (and those not offered), for /mcp status and the server's menu. */
	readonly skills?: (server: string) => string[];
	/** Whether the session started from the start-up snapshot (start-up/start-snapshot.ts), for /mcp status. */
	readonly fromSnapshot?: () => boolean;
	/** Told after /mcp approve or deny changed which servers may run. */
	readonly decided?: (runtime: McpRuntime) => void;
	/** The Pi tools that reach MCP tools in this Pi (codemode, tool_search), feature-tested; none on pi 0.73. */
	readonly discoveryTools?: () => readonly string[];
	/** Applies the config files again (after /mcp enable or disable saved a change); the other servers keep running. */
	readonly reload?: (ctx: ExtensionCommandContext) => Promise<void>;
}

/**
 * A command's answer: a notification with a UI, stdout without one; scrubbed (URLs masked unless
 * `keepUrls`), in a person's words (the model's "ask the user to run /mcp approve x" reads "run /mcp approve x").
 */
export function say(
	ctx: ExtensionCommandContext,
	runtime: McpRuntime | undefined,
	text: string,
	level: "info" | "warning" | "error" = "info",
	options: { keepUrls?: boolean } = {},
): void {
	// Server names, prompt names and errors come from repositories and servers: no terminal sequences.
	const worded = forPerson(text);
	const shown = terminalSafe(
		runtime ? (options.keepUrls ? runtime.redactor.scrubSecrets(worded) : runtime.redactor.scrub(worded)) : worded,
	);
	if (ctx.hasUI) ctx.ui.notify(shown, level);
	else process.stdout.write(`${shown}\n`);
}
