// A repository's files are untrusted input: servers from project files (.mcp.json, .pi/mcp.json,
// project-level imports like .cursor/mcp.json) are not started, connected to, resolved through npm
// or sent a header until the user says yes. Decisions are kept per canonical project path and per
// server launch identity in <agentDir>/mcp-approvals.json, so a changed command asks again.
// On Pi 1.5, a project the user trusted (ctx.isProjectTrusted()) approves its .pi/mcp.json.
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { readJsonFile, updateJsonFile } from "./locked-json.ts";
import { stableStringify } from "./metadata-cache.ts";
import { maskUrl } from "./redaction.ts";
import type { ServerEntry } from "./types.ts";

export const APPROVALS_FILE = "mcp-approvals.json";

export type Decision = "approved" | "denied";
export type GateState = "allowed" | "pending" | "denied";

/** What the user approves: a hash of what runs or is contacted, and how it reads. */
export interface LaunchIdentity {
	readonly hash: string;
	/** The command line or URL as written in the file (variables unexpanded), for the prompt. */
	readonly summary: string;
}

/** The fields of a raw entry that decide what runs or where credentials go, as written. */
export interface RawLaunch {
	readonly command?: string;
	readonly args?: readonly string[];
	readonly env?: Readonly<Record<string, string>>;
	readonly cwd?: string;
	readonly url?: string;
	readonly type?: string;
	readonly headers?: Readonly<Record<string, string>>;
	readonly bearerToken?: string;
	readonly bearerTokenEnv?: string;
	readonly auth?: string;
	readonly oauth?: unknown;
}

export function launchIdentity(raw: RawLaunch): LaunchIdentity {
	const { command, args, env, cwd, url, type, headers, bearerToken, bearerTokenEnv, auth, oauth } = raw;
	const hash = createHash("sha256")
		.update(stableStringify({ command, args, env, cwd, url, type, headers, bearerToken, bearerTokenEnv, auth, oauth }))
		.digest("hex")
		.slice(0, 32);
	const parts: string[] = [];
	if (command) parts.push([command, ...(args ?? [])].map(quoteArg).join(" "));
	if (url) parts.push(maskUrl(url));
	// Names only: values may be literal secrets; a `${VAR}` shows which variable would be sent.
	const sent = Object.entries(headers ?? {}).map(([k, v]) => `${k}${/\$\{|\$env:/.test(v) ? ` from ${variablesIn(v)}` : ""}`);
	if (bearerTokenEnv) sent.push(`bearer token from $${bearerTokenEnv}`);
	else if (bearerToken) sent.push(`bearer token${/\$\{/.test(bearerToken) ? ` from ${variablesIn(bearerToken)}` : ""}`);
	if (sent.length > 0) parts.push(`sends ${sent.join(", ")}`);
	const envNames = Object.entries(env ?? {}).map(([k, v]) => (/\$\{|\$env:/.test(v) ? `${k} from ${variablesIn(v)}` : k));
	if (envNames.length > 0) parts.push(`env ${envNames.join(", ")}`);
	if (cwd) parts.push(`in ${cwd}`);
	return { hash, summary: parts.join("; ") };
}

function quoteArg(arg: string): string {
	return /^[\w@%+=:,./${}-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

function variablesIn(value: string): string {
	const names = [...value.matchAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)|\$env:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => `$${m[1] ?? m[2]}`);
	return [...new Set(names)].join(" ");
}

interface StoredDecision {
	readonly hash: string;
	readonly decision: Decision;
	readonly at: number;
}
type ApprovalsFile = { version: 1; projects: Record<string, Record<string, StoredDecision>> };

function parseApprovals(raw: unknown): ApprovalsFile {
	const file = raw as Partial<ApprovalsFile> | null;
	if (!file || typeof file !== "object" || file.version !== 1 || typeof file.projects !== "object" || !file.projects) return { version: 1, projects: {} };
	return { version: 1, projects: file.projects };
}

export interface ProjectApprovalsOptions {
	readonly agentDir: string;
	readonly cwd: string;
	/** The user's own setting: every project server is trusted (settings.trustProjectServers). */
	readonly trustAll?: boolean;
	/** Pi 1.5's project trust for this session; undefined on hosts without it. */
	readonly piTrusted?: boolean;
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
		this.project = canonical(options.cwd);
		this.decisions = parseApprovals(readJsonFile(this.path)).projects[this.project] ?? {};
	}

	/** Whether this entry comes from the project and so needs the user's yes. */
	needsApproval(entry: ServerEntry): boolean {
		if (entry.source.scope !== "project" || this.options.trustAll) return false;
		// Pi 1.5 reads .pi/mcp.json only in a trusted project: that trust is the user's yes for it.
		return !(this.options.piTrusted && entry.source.kind === "pi-project" && entry.source.path.endsWith(join(".pi", "mcp.json")));
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

/** The folder as the approvals know it: symlinks resolved, so one project has one record. */
function canonical(path: string): string {
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

/** The question shown once per project when servers from its files wait for a decision. */
export function approvalQuestion(entries: readonly ServerEntry[]): string {
	const files = [...new Set(entries.map((e) => e.source.path))];
	const lines = entries.map((e) => `  ${e.name}: ${e.launch.summary}`);
	return [`This project's MCP config (${files.join(", ")}) wants to run:`, ...lines, "Run them?"].join("\n");
}

/** The dialogs the approval question needs (Pi's ctx.ui has them in the TUI and rpc). */
export interface ApprovalUi {
	select(title: string, options: string[]): Promise<string | undefined>;
	confirm(title: string, message: string): Promise<boolean>;
}

const APPROVE_ALL = "Approve all";
const CHOOSE = "Choose one by one";
const DENY_ALL = "Deny all";
const LATER = "Not now (ask again next time)";

/** Asks the user once about the pending servers; returns what they decided (nothing for "not now"). */
export async function askApproval(ui: ApprovalUi, pending: readonly ServerEntry[]): Promise<{ approved: string[]; denied: string[] }> {
	const names = pending.map((e) => e.name);
	const choice = await ui.select(approvalQuestion(pending), [APPROVE_ALL, CHOOSE, DENY_ALL, LATER]);
	if (choice === APPROVE_ALL) return { approved: names, denied: [] };
	if (choice === DENY_ALL) return { approved: [], denied: names };
	if (choice !== CHOOSE) return { approved: [], denied: [] };
	const approved: string[] = [];
	const denied: string[] = [];
	for (const entry of pending) {
		(await ui.confirm(`Run MCP server "${entry.name}" from ${entry.source.path}?`, entry.launch.summary) ? approved : denied).push(entry.name);
	}
	return { approved, denied };
}
