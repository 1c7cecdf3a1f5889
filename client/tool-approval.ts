// 2.36's `approveTools`: a tool it names runs only after the user's yes, whatever route the call
// took (the `mcp` tool, a direct tool, Pi 1.5's tools and codemode, a resource read), since every
// route ends in proxy/calls.ts, which asks here first. The question is 2.36's, its safe answer
// first (Enter denies); "Allow for session" covers the same tool with the same arguments, "Allow
// server" every tool of that server as configured now, both until the session ends; "Always allow"
// the tool from now on, saved in the user's own file (trust/saved-tool-approvals.ts), which also
// holds without a UI. Without a UI
// (`pi -p`, json, the shell) the call is refused with the reason and how to allow it. Which tools
// ask: catalog/tool-patterns.ts `needsApproval`. Loaded at the first call that asks.
import { createHash } from "node:crypto";
import { stableStringify } from "../config/identity.ts";
import type { SavedToolApprovals } from "../trust/saved-tool-approvals.ts";
import type { ServerEntry, ToolMetadata } from "../types.ts";
import { askPaged } from "./paged-question.ts";
import { DialogQueue, type Dialogs, plain } from "./user-dialogs.ts";

/** Why a call did not run: 2.36's `details.error` values, and the text the model reads. */
export interface ApprovalRefusal {
	readonly error: "approval_required" | "approval_denied";
	readonly message: string;
}

const ONCE = "Allow once";
const SESSION = "Allow for session";
const SERVER = "Allow server for this session";
const ALWAYS = "Always allow this tool (saved)";
const DENY = "Deny";
/** As much of the arguments as the question shows (2.36 shows 500 characters). */
const ARGS_SHOWN = 500;

export interface ToolApprovalsOptions {
	/** The session's dialogs now (undefined without a UI). */
	readonly dialogs: () => Dialogs | undefined;
	/** Masks known secrets in the arguments shown. */
	readonly scrub?: (text: string) => string;
	/** The answers saved for good ("Always allow"); none: the choice is not offered. */
	readonly saved?: SavedToolApprovals;
}

/** The session's answers to `approveTools` questions. */
export class ToolApprovals {
	private readonly queue = new DialogQueue();
	/** "Allow for session": server, tool and a hash of the arguments. */
	private readonly calls = new Set<string>();
	/** "Allow server for this session": server name and its launch as configured when allowed. */
	private readonly servers = new Set<string>();

	constructor(private readonly options: ToolApprovalsOptions) {}

	/** Asks about a tool `approveTools` names, unless an answer of this session covers the call; a refusal when it may not run. */
	async ask(
		entry: ServerEntry,
		tool: ToolMetadata,
		args: Record<string, unknown>,
		signal?: AbortSignal,
	): Promise<ApprovalRefusal | undefined> {
		const serverKey = `${entry.name}\0${entry.launch.hash}`;
		const callKey = `${serverKey}\0${tool.name}\0${createHash("sha256").update(stableStringify(args)).digest("hex")}`;
		if (this.servers.has(serverKey) || this.calls.has(callKey)) return undefined;
		const { saved } = this.options;
		if (saved?.allows(entry, tool.name)) return undefined;
		const who = `MCP tool "${tool.name}" on server "${entry.name}"`;
		const dialogs = this.options.dialogs();
		if (!dialogs)
			return {
				error: "approval_required",
				message: `${who} is approval-gated and requires an interactive session: its config's "approveTools" (in ${entry.source.path}) asks the user before it runs, and Pi runs without a UI here (print or json mode). Run it in Pi's TUI (where "Always allow" saves the answer), or remove it from "approveTools".`,
			};
		// Short arguments on one line: the question then fits a 24-row screen on one page.
		const oneLine = JSON.stringify(args);
		const json = oneLine.length <= 72 ? oneLine : JSON.stringify(args, null, 2);
		const shown = this.options.scrub ? this.options.scrub(json) : json;
		const text = [
			`MCP: ${entry.name} wants to run ${tool.name}`,
			`Arguments:\n${plain(shown, ARGS_SHOWN)}`,
			"Allow server for this session permits all tools and arguments on this server until the session ends.",
		];
		const answer = await this.queue.run(() =>
			askPaged(
				dialogs,
				{ text, safe: DENY, choices: saved ? [ONCE, SESSION, SERVER, ALWAYS] : [ONCE, SESSION, SERVER] },
				{ signal },
			),
		);
		if (answer === SESSION) this.calls.add(callKey);
		if (answer === SERVER) this.servers.add(serverKey);
		// Saved for later sessions; a failure to save still lets this call run (the user said yes), and is told.
		if (answer === ALWAYS && saved)
			await saved.allow(entry, tool.name).catch((error: unknown) => {
				dialogs.notify(`Could not save the approval of ${tool.name} (${saved.path}): ${String(error)}`, "warning");
			});
		if (answer === ONCE || answer === SESSION || answer === SERVER || answer === ALWAYS) return undefined;
		return { error: "approval_denied", message: `The user declined approval to run ${who}.` };
	}
}
