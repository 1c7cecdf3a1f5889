// What a session start from the config tells the user (config problems, the direct tools' cost,
// project servers awaiting approval where no one can be asked), and its question about project
// servers where someone can (TUI, rpc), asked in the background: Pi starts at once and the servers
// wait for the answer. What the notes and the question need loads when a start has them to show.
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { once } from "../bounds/waits.ts";
import { safeDialogs } from "../client/user-dialogs.ts";
import { describeError } from "../errors.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { DIRECT_TOOLS_TOKEN_WARNING, type DirectSummary } from "../tool-registrar.ts";
import { terminalSafe } from "../trust/safe-text.ts";
import type { ServerEntry } from "../types.ts";
import type { StartState } from "./start-snapshot.ts";

const loadApproveFlow = once(() => import("../trust/approve-flow.ts"));
const loadApprovalQuestion = once(() => import("../client/approval-question.ts"));
const loadOauthHandler = once(() => import("../oauth-handler.ts"));

/** What a start prints, and how loud. */
export type Notes = StartState["notes"];

/** Config problems, the direct tools' cost, and, without a UI, project servers awaiting approval. */
export async function startNotes(
	active: McpRuntime,
	direct: DirectSummary | undefined,
	hasUI: boolean,
): Promise<Notes> {
	const lines = active.problemLines();
	if (direct && direct.tokens > DIRECT_TOOLS_TOKEN_WARNING) {
		lines.push(
			`warning: the ${direct.names.length} direct MCP tools cost about ${direct.tokens} tokens of context; consider fewer (directTools: ["tool", ...]).`,
		);
	}
	const pending = active.pendingApproval();
	if (pending.length > 0 && !hasUI) {
		// Everything each would run and send, with the code that approves exactly that later.
		const { pendingNotice } = await loadApproveFlow();
		lines.push(await pendingNotice(active, pending));
	}
	if (lines.length === 0) return undefined;
	const level = active.config.problems.some((p) => p.severity === "error") ? "error" : "warning";
	return { text: terminalSafe(`MCP:\n${lines.join("\n")}`), level };
}

/** Shown where the user looks: a notification with a UI, stderr without one. */
export function showNotes(notes: Notes, ctx: ExtensionContext): void {
	if (!notes) return;
	if (ctx.hasUI) ctx.ui.notify(notes.text, notes.level);
	else console.error(notes.text);
}

/**
 * Asks about the project's servers awaiting approval, without waiting for the answer. The answer
 * covers the launches shown (one changed meanwhile is not decided, and the user is told); `decided`
 * hears it while `active` is still the session's runtime. A decision that could not be saved is told.
 */
export async function askAboutProjectServers(
	ctx: ExtensionContext,
	active: McpRuntime,
	pending: readonly ServerEntry[],
	session: {
		readonly current: () => McpRuntime | undefined;
		readonly decided: (active: McpRuntime) => void;
		/** Hears an answer being saved, which the session's end waits for (no write outlives it). */
		readonly keepUntilEnd: (work: Promise<unknown>) => void;
	},
): Promise<void> {
	const [{ askApproval }, { decidedAnswer }, { storedSignInNote }] = await Promise.all([
		loadApprovalQuestion(),
		loadApproveFlow(),
		loadOauthHandler(),
	]);
	const save = async (decided: Awaited<ReturnType<typeof askApproval>>) => {
		const answer = await decidedAnswer(active, decided);
		if (answer.level !== "info") ctx.ui.notify(terminalSafe(answer.text), answer.level);
		session.decided(active);
	};
	askApproval(safeDialogs(ctx.ui), pending, storedSignInNote(active.agentDir))
		.then((decided) => {
			if (active !== session.current()) return;
			const work = save(decided);
			session.keepUntilEnd(work.catch(() => undefined)); // its failure is told below
			return work;
		})
		// The decision could not be saved (the approvals file is locked or unwritable): the user must know.
		.catch((error: unknown) =>
			ctx.ui.notify(
				terminalSafe(`MCP: your decision could not be saved: ${describeError(error)}. Use /mcp approve or /mcp deny.`),
				"error",
			),
		);
}
