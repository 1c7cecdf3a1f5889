// A repository's files are untrusted input: servers from project files (.mcp.json, .pi/mcp.json,
// project-level imports like .cursor/mcp.json) are not started, connected to, resolved through npm
// or sent a header until the user says yes. Decisions are kept per canonical project path and per
// server launch identity in <agentDir>/mcp-approvals.json, so a changed command asks again.
// On Pi 1.5, a project the user trusted (ctx.isProjectTrusted()) approves its .pi/mcp.json.
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { readJsonFile, updateJsonFile } from "../storage/locked-json.ts";
import type { ServerEntry } from "../types.ts";
import { visible } from "./safe-text.ts";

export const APPROVALS_FILE = "mcp-approvals.json";

export type Decision = "approved" | "denied";
export type GateState = "allowed" | "pending" | "denied";

interface StoredDecision {
	readonly hash: string;
	readonly decision: Decision;
	readonly at: number;
}
/** A file of records per canonical project folder and name (the approvals, what was shown). */
export type ProjectsFile<T> = { version: 1; projects: Record<string, Record<string, T>> };

/** Reads a `ProjectsFile` leniently: anything else is an empty one. */
export function parseProjectsFile<T>(raw: unknown): ProjectsFile<T> {
	const file = raw as Partial<ProjectsFile<T>> | null;
	if (!file || typeof file !== "object" || file.version !== 1 || typeof file.projects !== "object" || !file.projects)
		return { version: 1, projects: {} };
	return { version: 1, projects: file.projects };
}

type ApprovalsFile = ProjectsFile<StoredDecision>;
const parseApprovals = (raw: unknown): ApprovalsFile => parseProjectsFile<StoredDecision>(raw);

export interface ProjectApprovalsOptions {
	readonly agentDir: string;
	readonly cwd: string;
	/** The user's own setting: every project server is trusted (settings.trustProjectServers). */
	readonly trustAll?: boolean;
	/** Pi 1.5's project trust for this session (asked each time: the session may set it later); undefined on hosts without it. */
	readonly piTrusted?: () => boolean | undefined;
	readonly now?: () => number;
}

/** The approval state of one project's servers, read once and updated by the user's decisions. */
export class ProjectApprovals {
	readonly path: string;
	readonly project: string;
	private decisions: Record<string, StoredDecision>;
	private readonly options: ProjectApprovalsOptions;

	constructor(options: ProjectApprovalsOptions) {
		this.options = options;
		this.path = join(options.agentDir, APPROVALS_FILE);
		this.project = projectFolder(options.cwd);
		this.decisions = parseApprovals(readJsonFile(this.path)).projects[this.project] ?? {};
	}

	/** Whether this entry comes from the project and so needs the user's yes. */
	needsApproval(entry: ServerEntry): boolean {
		if (entry.source.scope !== "project" || this.options.trustAll) return false;
		// Pi 1.5 reads .pi/mcp.json only in a trusted project: that trust is the user's yes for it.
		return !(
			this.options.piTrusted?.() === true &&
			entry.source.kind === "pi-project" &&
			entry.source.path.endsWith(join(".pi", "mcp.json"))
		);
	}

	state(entry: ServerEntry): GateState {
		if (!this.needsApproval(entry)) return "allowed";
		const stored = this.decisions[entry.name];
		if (!stored || stored.hash !== entry.launch.hash) return "pending";
		return stored.decision === "approved" ? "allowed" : "denied";
	}

	/** Records the user's decision for these entries (for this project, at their current launch). */
	async decide(entries: readonly ServerEntry[], decision: Decision): Promise<void> {
		const now = this.options.now?.() ?? Date.now();
		const written = await updateJsonFile(this.path, parseApprovals, (file) => {
			const project = { ...(file.projects[this.project] ?? {}) };
			for (const entry of entries) project[entry.name] = { hash: entry.launch.hash, decision, at: now };
			return { version: 1 as const, projects: { ...file.projects, [this.project]: project } };
		});
		this.decisions = written.projects[this.project] ?? {};
	}
}

/** The folder as the approvals (and other per-project records) know it: symlinks resolved, so one project has one record. */
export function projectFolder(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** What the model (and /mcp) are told about a server that is not approved. */
export function approvalMessage(server: string, state: Exclude<GateState, "allowed">): string {
	return state === "pending"
		? `Server "${server}" is awaiting approval: ask the user to run /mcp approve ${server}`
		: `Server "${server}" was denied by the user for this project; /mcp approve ${server} allows it`;
}

/** What else a yes would send a server beyond its config: a sign-in stored for its name and URL. */
export type CredentialNote = (entry: ServerEntry) => string | undefined;

/** One server as the question shows it: its name (hidden characters shown), its file, and every line of its launch. */
export function describeLaunch(entry: ServerEntry, credentials?: CredentialNote): string {
	const note = credentials?.(entry);
	const lines = [...entry.launch.summary.split("\n"), ...(note ? [note] : [])];
	return [`${visible(entry.name)} (from ${visible(entry.source.path)}):`, ...lines.map((l) => `    ${l}`)].join("\n");
}

/** The question shown once per project when servers from its files wait for a decision: a block per server. */
export function approvalQuestion(entries: readonly ServerEntry[], credentials?: CredentialNote): string[] {
	return [
		`This project's MCP config wants to run ${entries.length === 1 ? "this server" : `these ${entries.length} servers`}, as you (local commands get your environment):`,
		...entries.map((e) => `  ${describeLaunch(e, credentials)}`),
		"Run them?",
	];
}

/** What the user decided about the servers they were shown: the entries as shown, so the yes binds their launch. */
export interface Decided {
	readonly approved: ServerEntry[];
	readonly denied: ServerEntry[];
}
