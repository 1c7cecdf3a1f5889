// The question about a project's servers awaiting approval, in pages that fit the screen: the
// launches as trust/project-approval.ts describes them; the answer is the entries as shown.

import { approvalQuestion, type CredentialNote, type Decided, describeLaunch } from "../trust/project-approval.ts";
import type { ServerEntry } from "../types.ts";
import { askPaged, type PagedOptions } from "./paged-question.ts";
import type { Dialogs } from "./user-dialogs.ts";

const APPROVE_ALL = "Approve all";
const CHOOSE = "Choose one by one";
const DENY_ALL = "Deny all";
const LATER = "Not now (ask again next time)";
const RUN_IT = "Run it";
const DENY_IT = "Deny it";
const SKIP_IT = "Not now";

/**
 * Asks the user about the pending servers, in pages that fit the screen (`client/paged-question.ts`):
 * every line of every launch is shown before any yes, and Enter, Esc or a closed dialog decide
 * nothing. Returns the entries as shown, for `McpRuntime.decideShown`.
 */
export async function askApproval(
	dialogs: Pick<Dialogs, "select">,
	pending: readonly ServerEntry[],
	credentials?: CredentialNote,
	options: PagedOptions = {},
): Promise<Decided> {
	const choice = await askPaged(
		dialogs,
		{ text: approvalQuestion(pending, credentials), safe: LATER, choices: [APPROVE_ALL, CHOOSE, DENY_ALL] },
		options,
	);
	if (choice === APPROVE_ALL) return { approved: [...pending], denied: [] };
	if (choice === DENY_ALL) return { approved: [], denied: [...pending] };
	const decided: Decided = { approved: [], denied: [] };
	if (choice !== CHOOSE) return decided;
	for (const [i, entry] of pending.entries()) {
		const text = `Run this MCP server from the project? (${i + 1} of ${pending.length})\n${describeLaunch(entry, credentials)}`;
		const one = await askPaged(dialogs, { text, safe: SKIP_IT, choices: [RUN_IT, DENY_IT] }, options);
		if (one === RUN_IT) decided.approved.push(entry);
		else if (one === DENY_IT) decided.denied.push(entry);
	}
	return decided;
}
