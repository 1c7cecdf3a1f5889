// Telling the model that a resource it read changed at its server (resource-subscriptions.ts hears
// it, once until the resource is read again), with known secrets masked. The note is appended
// where the conversation grows, never into what the provider has cached: while Pi is idle, as a
// message of its own in the session (the user sees it; the model reads it with the next prompt);
// during a run, with the next tool result the model gets, or, when the run ends first, with the
// next prompt. Never a message that starts a turn: a changing resource must not make the model run.
import type { ExtensionAPI, ExtensionContext, ToolResultEvent } from "@mariozechner/pi-coding-agent";
import type { McpRuntime } from "../mcp-runtime.ts";
import type { ResourceChange } from "../transport/resource-subscriptions.ts";
import type { Redactor } from "../trust/redaction.ts";
import { oneLine, terminalSafe } from "../trust/safe-text.ts";

/** The `customType` of the session message that tells of changed resources. */
export const RESOURCE_CHANGED_MESSAGE = "mcp-resource-changed";

/** What the model is told of one change: the URI as it was read (known secrets masked), and what to do. */
export function changeNote(change: ResourceChange, redactor: Redactor): string {
	const uri = oneLine(terminalSafe(redactor.scrubSecrets(change.uri)));
	const server = oneLine(terminalSafe(change.server));
	return `MCP: the resource ${uri} of server "${server}" changed since it was read; read it again for its current content.`;
}

/** Pi 1.5 adds these to a tool result; replacing `content` without `structuredContent` would drop it. */
type ResultEvent = ToolResultEvent & { parentToolCallId?: string; structuredContent?: unknown };

/** A session service (pi-session/session.ts): hooked to each runtime that becomes the session's. */
export class ResourceUpdates {
	/** Notes waiting for a place in the conversation (a run was under way when they came). */
	private pending: string[] = [];
	/** The session's context: whether Pi is idle now (no run under way). */
	private ctx?: ExtensionContext;

	constructor(
		private readonly pi: ExtensionAPI,
		/** Whether Pi is idle now (no run under way); by default the session's context says. */
		private readonly idle: () => boolean = () => this.ctx?.isIdle() !== false,
	) {
		pi.on("tool_result", (event) => this.intoResult(event as ResultEvent));
		pi.on("before_agent_start", () => {
			const text = this.take();
			return text ? { message: { customType: RESOURCE_CHANGED_MESSAGE, content: text, display: true } } : undefined;
		});
		// What a session did not get to read goes with it.
		pi.on("session_shutdown", () => {
			this.pending = [];
		});
	}

	/** A runtime became the session's: the changes of what it reads are told from now on. */
	attach(runtime: McpRuntime, ctx: ExtensionContext): void {
		this.ctx = ctx;
		runtime.onResourceChanged((change) => this.tell(changeNote(change, runtime.redactor)));
	}

	/** The session ended. */
	end(): void {
		this.ctx = undefined;
	}

	/** Tells the model of a change (the note from `changeNote`). */
	tell(note: string): void {
		if (!this.idle()) {
			this.pending.push(note);
			return;
		}
		// Stored in the session without a turn: the next prompt's request carries it after what was cached.
		this.pi.sendMessage({ customType: RESOURCE_CHANGED_MESSAGE, content: note, display: true }, { triggerTurn: false });
	}

	/** The pending notes, handed out once. */
	private take(): string | undefined {
		if (this.pending.length === 0) return undefined;
		const text = this.pending.join("\n");
		this.pending = [];
		return text;
	}

	/** A result the model reads (not one a codemode script gets) carries the pending notes after its own content. */
	private intoResult(event: ResultEvent) {
		if (event.parentToolCallId !== undefined) return undefined;
		const text = this.take();
		if (!text) return undefined;
		const content = [...event.content, { type: "text" as const, text: `\n(${text})` }];
		return event.structuredContent === undefined
			? { content }
			: { content, structuredContent: event.structuredContent };
	}
}
