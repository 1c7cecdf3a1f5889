// `approve` as the user gives it: `/mcp approve` in Pi (any mode) and the shell's `approve`. A yes
// covers exactly the launches the user saw. With a dialog (TUI, rpc) the launches are shown and
// the answer is bound to them; without one (`pi -p`, json, the shell) they are printed with a code
// (trust/shown-launches.ts), and only `approve <code>` approves, exactly what was printed with it.
// When the config changed since it was shown, nothing is approved: the user is told what is new
// and shown the launches as they are now, with a new code.
import type { ServerEntry } from "../types.ts";
import type { Decided, Decision, ProjectApprovals } from "./project-approval.ts";
import { compareShown, isShownCode, type ShownComparison, ShownLaunches } from "./shown-launches.ts";

/** What approving needs of the session (McpRuntime has it). */
export interface ApprovalHost {
	readonly agentDir: string;
	readonly approvals: ProjectApprovals;
	readonly config: { readonly servers: ReadonlyMap<string, ServerEntry> };
	describeLaunch(entry: ServerEntry): string;
	decideShown(
		shown: readonly ServerEntry[],
		decision: Decision,
	): Promise<{ decided: ServerEntry[]; changed: ServerEntry[] }>;
}

export interface ApproveAnswer {
	readonly text: string;
	readonly level: "info" | "warning" | "error";
	/** Whether anything was approved (the shell's exit code). */
	readonly approved: boolean;
}

/** Asks the user about these launches in a dialog (trust/project-approval.ts askApproval). */
export type AskApproval = (entries: readonly ServerEntry[]) => Promise<Decided>;

/**
 * `approve [server] [code]`. `ask` is the dialog, when the session has one. Names that are not
 * servers must have been refused by the caller (it knows the wording of its own errors).
 */
export async function approveCommand(
	host: ApprovalHost,
	words: readonly string[],
	ask?: AskApproval,
): Promise<ApproveAnswer> {
	const code = words.find((w) => isShownCode(w) && !host.config.servers.has(w));
	const names = words.filter((w) => w !== code);
	const own = names.find((n) => {
		const entry = host.config.servers.get(n);
		return entry !== undefined && !host.approvals.needsApproval(entry);
	});
	if (own)
		return {
			text: `"${own}" comes from your own config, not the project's: it needs no approval.`,
			level: "info",
			approved: false,
		};
	if (code) return approveShown(host, code, names);
	const entries = awaiting(host, names);
	if (entries.length === 0) return { text: "No project server needs a decision.", level: "info", approved: false };
	if (ask) {
		const decided = await ask(entries);
		return decidedAnswer(host, decided);
	}
	const shown = await pendingNotice(host, entries);
	return {
		text: `Nothing approved yet: with no dialog to ask you in, a yes needs the code printed with what you read.\n${shown}`,
		level: "warning",
		approved: false,
	};
}

/** The project servers a bare `approve` (or `approve <names>`) is about: those not allowed now. */
function awaiting(host: ApprovalHost, names: readonly string[]): ServerEntry[] {
	const candidates =
		names.length > 0 ? names.map((n) => host.config.servers.get(n)) : [...host.config.servers.values()];
	return candidates.filter(
		(e): e is ServerEntry =>
			e !== undefined && host.approvals.needsApproval(e) && host.approvals.state(e) !== "allowed",
	);
}

async function approveShown(host: ApprovalHost, code: string, names: readonly string[]): Promise<ApproveAnswer> {
	const record = new ShownLaunches(host.agentDir, host.approvals.project).lookup(code);
	if (!record) {
		const pending = awaiting(host, names);
		const now = pending.length > 0 ? `\n${await pendingNotice(host, pending)}` : "";
		return {
			text: `Nothing approved: no list of servers was shown with the code ${code} in ${host.approvals.project} (mistyped, or shown in another folder).${now}`,
			level: "error",
			approved: false,
		};
	}
	const outOf = names.length > 0 ? names.filter((n) => !Object.hasOwn(record.servers, n)) : [];
	if (outOf.length > 0)
		return {
			text: `Nothing approved: ${outOf.map((n) => `"${n}"`).join(", ")} was not among the servers shown with ${code}.`,
			level: "error",
			approved: false,
		};
	const comparison = compareShown(
		record,
		(n) => host.config.servers.get(n),
		(e) => host.describeLaunch(e),
	);
	if (comparison.changed.length > 0 || comparison.gone.length > 0) return changedAnswer(host, code, comparison);
	const chosen = names.length > 0 ? comparison.same.filter((e) => names.includes(e.name)) : comparison.same;
	return decidedAnswer(host, { approved: chosen, denied: [] });
}

/** The config changed since the code was shown: nothing approved, what is new named, the launches now shown. */
async function changedAnswer(host: ApprovalHost, code: string, comparison: ShownComparison): Promise<ApproveAnswer> {
	const lines = [`Nothing approved: this project's MCP config changed since the servers were shown with ${code}.`];
	for (const { entry, newLines } of comparison.changed) {
		lines.push(`  ${entry.name} changed; what it would run and send now that was not shown then:`);
		lines.push(
			...(newLines.length > 0 ? newLines : ["(the same lines, in another order)"]).map((l) => `    + ${l.trim()}`),
		);
	}
	for (const name of comparison.gone) lines.push(`  ${name} is no longer in the config.`);
	const pending = awaiting(host, []);
	if (pending.length > 0)
		lines.push(`Read what it is now before you approve it:\n${await pendingNotice(host, pending)}`);
	return { text: lines.join("\n"), level: "error", approved: false };
}

/** What approving or denying the launches shown did; a launch that changed meanwhile is named, not approved. */
export async function decidedAnswer(host: ApprovalHost, decided: Decided): Promise<ApproveAnswer> {
	const lines: string[] = [];
	const changed: ServerEntry[] = [];
	for (const [decision, entries] of [
		["approved", decided.approved],
		["denied", decided.denied],
	] as const) {
		if (entries.length === 0) continue;
		const done = await host.decideShown(entries, decision);
		changed.push(...done.changed);
		if (done.decided.length === 0) continue;
		const verb = decision === "approved" ? "Approved (starting as configured)" : "Denied";
		lines.push(`${verb} for ${host.approvals.project}:`, ...done.decided.map((e) => `  ${host.describeLaunch(e)}`));
	}
	if (changed.length > 0)
		lines.push(
			`Not decided: ${changed.map((e) => `"${e.name}"`).join(", ")} changed in the config after you were shown it; /mcp approve shows it as it is now.`,
		);
	if (lines.length === 0) lines.push("Nothing decided: the servers stay as they were.");
	const approved = decided.approved.some((e) => !changed.includes(e));
	return { text: lines.join("\n"), level: changed.length > 0 ? "warning" : "info", approved };
}

/** The lists printed by this process, by project and code: printed again, a list is named, not repeated. */
const printedHere = new Set<string>();

/**
 * The launches awaiting approval as printed where Pi cannot ask (the start of `pi -p`, a refused
 * `approve`): every line of each, and the code that approves exactly these. The same list (the
 * same code) printed again by this process (`pi -p "/mcp approve"` after its start's notes) is
 * named by its code instead of repeated.
 */
export async function pendingNotice(host: ApprovalHost, entries: readonly ServerEntry[]): Promise<string> {
	const shown = entries.map((entry) => ({ entry, text: host.describeLaunch(entry) }));
	const listed = [
		`${entries.length} server(s) from this project's config await approval and will not run:`,
		...shown.map(({ text }) => `  ${text}`),
	];
	try {
		const code = await new ShownLaunches(host.agentDir, host.approvals.project).record(shown);
		const key = `${host.approvals.project}\0${code}`;
		if (printedHere.has(key))
			return `${entries.map((e) => `"${e.name}"`).join(", ")}: listed above with what each runs; to allow exactly that: /mcp approve ${code}.`;
		printedHere.add(key);
		listed.push(
			`To allow exactly what is shown here: /mcp approve ${code} (it approves nothing that differs from this).`,
		);
	} catch (error) {
		// Without a kept record no code can vouch for this list; the dialog still can.
		const why = error instanceof Error ? error.message : String(error);
		listed.push(`(No code to approve these without a dialog: ${why}. Approve them in Pi's TUI: /mcp approve.)`);
	}
	return listed.join("\n");
}
