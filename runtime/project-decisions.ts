// The user's decisions about project servers (approve, deny), recorded and applied at once: the
// servers decided start (or stop) in the background, like at start-up, so the command answers now.
// A decision covers exactly the launch shown: a server whose launch changed since is not decided.
import type { Decision, ProjectApprovals } from "../trust/project-approval.ts";
import type { McpConfig, ServerEntry } from "../types.ts";

/** What deciding needs: the approvals, the servers as configured now, and the lifecycle to apply it. */
export interface Deciding {
	readonly approvals: ProjectApprovals;
	readonly config: () => McpConfig;
	/** Each server's connect failure is recorded on it and shown by /mcp and the status line. */
	readonly gateChanged: (names: string[]) => Promise<unknown>;
}

/**
 * Records the user's decision for the launches they were shown (entries as they were when shown),
 * and applies it now. A server whose launch has changed since is left as it is (the decision is
 * kept for the launch shown, which no longer runs) and returned in `changed`, to be told.
 */
export async function decideShown(
	how: Deciding,
	shown: readonly ServerEntry[],
	decision: Decision,
): Promise<{ decided: ServerEntry[]; changed: ServerEntry[] }> {
	const entries = shown.filter((e) => how.approvals.needsApproval(e));
	if (entries.length === 0) return { decided: [], changed: [] };
	await how.approvals.decide(entries, decision);
	const servers = how.config().servers;
	const changed = entries.filter((e) => servers.get(e.name)?.launch.hash !== e.launch.hash);
	const decided = entries.filter((e) => !changed.includes(e));
	how.gateChanged(decided.map((e) => e.name)).catch(() => undefined);
	return { decided, changed };
}

/** Approves or denies project servers (all that need a decision when `names` is empty) and applies it now. */
export async function decideNamed(how: Deciding, names: readonly string[], decision: Decision): Promise<ServerEntry[]> {
	const servers = how.config().servers;
	const entries = (names.length > 0 ? names.map((n) => servers.get(n)) : [...servers.values()]).filter(
		(e): e is ServerEntry => e !== undefined && how.approvals.needsApproval(e),
	);
	if (entries.length === 0) return [];
	await how.approvals.decide(entries, decision);
	// Started in the background, like at startup: the command answers at once.
	how.gateChanged(entries.map((e) => e.name)).catch(() => undefined);
	return entries;
}
