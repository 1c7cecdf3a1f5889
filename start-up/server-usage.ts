// What this project's recent sessions called, so that the next session can start those servers
// while the model thinks over the first prompt (start-up/warm-up.ts). Kept in
// <agentDir>/mcp-server-usage.json per project folder: for each server, when a call last reached
// it, in how many sessions, where it came among the servers its last session called (they start in
// that order), and how many sessions in a row started it ahead and never called it. Server names,
// times and counts only: never a tool, an argument or a result.
import { join } from "node:path";
import { within } from "../bounds/waits.ts";
import { readJsonFile, updateJsonFile } from "../storage/locked-json.ts";

export const USAGE_FILE = "mcp-server-usage.json";

/**
 * A server called within this long counts as used lately: a working week, so Monday's session
 * starts what Friday's called; older habits may have changed (the tool-list cache keeps 7 days too).
 */
export const USED_WITHIN_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * Sessions in a row that started a server ahead and never called it: at this many it is started
 * only by a call again (one such session may be about something else; three say the habit changed).
 */
export const MAX_MISSES = 3;
/** Servers started ahead at most: the cost of a wrong guess stays a few processes. */
export const MAX_WARMED = 4;
/** Projects and servers per project kept: the file stays a few KB. */
const MAX_PROJECTS = 50;
const MAX_SERVERS = 20;
/** How long a session's end waits for its writes (they are usually done long before, at the calls). */
const FLUSH_MS = 2000;

/** One server's use in one project. */
export interface ServerUse {
	/** When a call last reached it (ms since the epoch). */
	readonly at: number;
	/** Sessions in which a call reached it. */
	readonly sessions: number;
	/** Sessions in a row since then that started it ahead and never called it. */
	readonly misses: number;
	/** Its place among the servers its last session called, 0 for the first (absent in files of earlier versions). */
	readonly order?: number;
}

/** Per project folder (its real path), per server name. */
export type Usage = ReadonlyMap<string, ReadonlyMap<string, ServerUse>>;

/** The file as read: anything it holds that is not a well-formed record is left out (a damaged file reads as empty). */
export function parseUsage(raw: unknown): Usage {
	const file = raw as { version?: unknown; projects?: unknown } | null;
	const usage = new Map<string, Map<string, ServerUse>>();
	if (!isRecord(file) || file.version !== 1 || !isRecord(file.projects)) return usage;
	for (const [project, servers] of Object.entries(file.projects)) {
		if (!isRecord(servers)) continue;
		const kept = new Map<string, ServerUse>();
		for (const [name, use] of Object.entries(servers)) if (isUse(use)) kept.set(name, use);
		if (kept.size > 0) usage.set(project, kept);
	}
	return usage;
}

/**
 * The servers to start ahead in this project: called within USED_WITHIN_MS and not passed over
 * MAX_MISSES sessions in a row since, the most recently called, at most MAX_WARMED; in the order
 * the last session called them (the first call's server starts first).
 */
export function learnedServers(usage: Usage, project: string, now: number): string[] {
	const servers = usage.get(project) ?? new Map<string, ServerUse>();
	const place = (use: ServerUse) => use.order ?? Number.POSITIVE_INFINITY;
	return [...servers]
		.filter(([, use]) => now - use.at <= USED_WITHIN_MS && use.misses < MAX_MISSES)
		.sort(([, a], [, b]) => b.at - a.at || b.sessions - a.sessions)
		.slice(0, MAX_WARMED)
		.sort(([, a], [, b]) => place(a) - place(b))
		.map(([name]) => name);
}

/**
 * A call reached these servers in a new session (the first of them the session's `order`-th server
 * called): used now, one session more, no miss.
 */
export function withUse(usage: Usage, project: string, servers: readonly string[], now: number, order = 0): Usage {
	let next = order;
	return changed(
		usage,
		project,
		servers,
		(use) => ({ at: now, sessions: (use?.sessions ?? 0) + 1, misses: 0, order: next++ }),
		now,
	);
}

/** These servers were started ahead in a new session: a miss each, until a call reaches them. */
export function withMisses(usage: Usage, project: string, servers: readonly string[], now: number): Usage {
	return changed(usage, project, servers, (use) => (use ? { ...use, misses: use.misses + 1 } : undefined), now);
}

function changed(
	usage: Usage,
	project: string,
	servers: readonly string[],
	next: (use: ServerUse | undefined) => ServerUse | undefined,
	now: number,
): Usage {
	const mine = new Map(usage.get(project));
	for (const name of servers) {
		const use = next(mine.get(name));
		if (use) mine.set(name, use);
	}
	return bounded(new Map(usage).set(project, mine), now);
}

/** Records older than the window go (they start nothing); then the most recent servers and projects are kept. */
function bounded(usage: Usage, now: number): Usage {
	const projects = [...usage].flatMap(([project, servers]) => {
		const recent = [...servers].filter(([, use]) => now - use.at <= USED_WITHIN_MS).sort(([, a], [, b]) => b.at - a.at);
		return recent.length > 0 ? [[project, new Map(recent.slice(0, MAX_SERVERS))] as const] : [];
	});
	const last = (servers: ReadonlyMap<string, ServerUse>) => Math.max(...[...servers.values()].map((u) => u.at));
	return new Map(projects.sort(([, a], [, b]) => last(b) - last(a)).slice(0, MAX_PROJECTS));
}

function toFile(usage: Usage): object {
	const projects = Object.fromEntries([...usage].map(([project, servers]) => [project, Object.fromEntries(servers)]));
	return { version: 1, projects };
}

/**
 * One Pi process's record of what its sessions called: read when a session warms up, written in the
 * background (under the file's lock, merged with other sessions' writes) when a session first calls
 * a server and when it starts servers ahead. A failed write loses only a guess for a later session.
 */
export class ServerUsage {
	readonly path: string;
	/** Servers already counted this session, per project. */
	private counted = new Set<string>();
	private writes: Promise<void> = Promise.resolve();

	constructor(
		agentDir: string,
		private readonly now: () => number = Date.now,
	) {
		this.path = join(agentDir, USAGE_FILE);
	}

	/** A new session: its first call to each server counts again. */
	newSession(): void {
		this.counted = new Set();
	}

	/** The servers this project called lately (see `learnedServers`). */
	learned(project: string): string[] {
		return learnedServers(parseUsage(readJsonFile(this.path)), project, this.now());
	}

	/** A call reached this server: counted once per session, with its place among the session's servers. */
	used(project: string, server: string): void {
		const key = `${project}\0${server}`;
		if (this.counted.has(key)) return;
		const order = [...this.counted].filter((counted) => counted.startsWith(`${project}\0`)).length;
		this.counted.add(key);
		this.write((usage) => withUse(usage, project, [server], this.now(), order));
	}

	/** These servers were started ahead this session: each counts as a miss until a call reaches it. */
	warmed(project: string, servers: readonly string[]): void {
		// A server this session called already was not missed.
		const missed = servers.filter((s) => !this.counted.has(`${project}\0${s}`));
		if (missed.length > 0) this.write((usage) => withMisses(usage, project, missed, this.now()));
	}

	/**
	 * Waits for the writes queued so far (at the session's end), at most FLUSH_MS: another process
	 * holding the file's lock never holds up Pi's exit for a guess.
	 */
	flush(): Promise<void> {
		return within(this.writes, FLUSH_MS);
	}

	private write(change: (usage: Usage) => Usage): void {
		const { path } = this;
		this.writes = this.writes.then(() =>
			// A damaged file is replaced, no copy kept: it held guesses only.
			updateJsonFile<unknown>(
				path,
				(raw) => raw,
				(raw) => toFile(change(parseUsage(raw))),
				{ keepDamaged: false },
			).then(
				() => undefined,
				// A guess for a later session is all that is lost (an unwritable agent dir, a lock held too long).
				() => undefined,
			),
		);
	}
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isUse(value: unknown): value is ServerUse {
	if (!isRecord(value)) return false;
	const { at, sessions, misses, order } = value;
	const count = (n: unknown) => typeof n === "number" && Number.isFinite(n) && n >= 0;
	return [at, sessions, misses].every(count) && (order === undefined || count(order));
}
