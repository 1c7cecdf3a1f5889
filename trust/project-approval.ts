// A repository's files are untrusted input: servers from project files (.mcp.json, .pi/mcp.json,
// project-level imports like .cursor/mcp.json) are not started, connected to, resolved through npm
// or sent a header until the user says yes. Decisions are kept per canonical project path and per
// server launch identity in <agentDir>/mcp-approvals.json, so a changed command asks again.
// On Pi 1.5, a project the user trusted (ctx.isProjectTrusted()) approves its .pi/mcp.json.
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { askPaged, type PagedOptions } from "../client/paged-question.ts";
import type { Dialogs } from "../client/user-dialogs.ts";
import { isCommandValue } from "../config/command-values.ts";
import { stableStringify } from "../config/identity.ts";
import { readJsonFile, updateJsonFile } from "../storage/locked-json.ts";
import type { LaunchIdentity, ServerEntry } from "../types.ts";
import { visible } from "./safe-text.ts";

export const APPROVALS_FILE = "mcp-approvals.json";

export type Decision = "approved" | "denied";
export type GateState = "allowed" | "pending" | "denied";

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
	// Everything as written, whole: these are the repository's words, and the yes is for exactly them.
	const lines: string[] = [];
	if (command)
		lines.push(
			`runs: ${[command, ...(args ?? [])].map(quoteArg).join(" ")}${sendsVariables([command, ...(args ?? [])])}`,
		);
	if (cwd) lines.push(`in folder: ${quoteArg(cwd)}${sendsVariables([cwd])}`);
	for (const [name, value] of Object.entries(env ?? {})) lines.push(`env ${quoteArg(name)}: ${valueLine(value)}`);
	if (url) lines.push(`connects to: ${url}${type === "sse" ? " (SSE)" : ""}${sendsVariables([url])}`);
	for (const [name, value] of Object.entries(headers ?? {}))
		lines.push(`header ${quoteArg(name)}: ${valueLine(value)}`);
	if (bearerTokenEnv) lines.push(`sends your $${bearerTokenEnv} as a bearer token`);
	else if (bearerToken !== undefined) lines.push(`bearer token: ${valueLine(bearerToken)}`);
	if (auth) lines.push(`auth: ${auth}`);
	if (oauth !== undefined) lines.push(`oauth: ${JSON.stringify(oauth)}${sendsVariables(textsOf(oauth))}`);
	return { hash, summary: lines.map(visible).join("\n") };
}

/** How one env or header value reads: a `!command` is a shell command run at start; a `${VAR}` sends that variable. */
function valueLine(value: string): string {
	if (isCommandValue(value)) return `${JSON.stringify(value)} (runs this shell command at start and sends its output)`;
	return `${JSON.stringify(value)}${sendsVariables([value])}`;
}

/** Names the user's environment variables a text would expand to (and send). */
function sendsVariables(texts: readonly string[]): string {
	const names = [...new Set(texts.flatMap(variablesIn))];
	return names.length > 0 ? ` (sends your ${names.map((n) => `$${n}`).join(", ")})` : "";
}

/** The texts of an `oauth` object, where `${VAR}` expands too. */
function textsOf(value: unknown): string[] {
	return typeof value === "object" && value !== null
		? Object.values(value).filter((v): v is string => typeof v === "string")
		: [];
}

function quoteArg(arg: string): string {
	return /^[\w@%+=:,./${}~-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

function variablesIn(value: string): string[] {
	return [...value.matchAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)|\$env:([A-Za-z_][A-Za-z0-9_]*)/g)].map(
		(m) => m[1] ?? m[2],
	);
}

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
		return !(
			this.options.piTrusted &&
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
