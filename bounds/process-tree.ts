// Finds and ends every process a server left behind. Stdio servers are started as the leader of
// their own process group, so the group holds the server, its wrapper (npx, sh -c) and whatever
// they started; `ps` also finds descendants that left the group (setsid). Ending them is
// SIGTERM, a grace period, then SIGKILL, and the waits keep Node alive: a shutdown that Node cut
// short would leave processes running and lose Pi's exit code.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { delay } from "./waits.ts";

interface PsRow {
	readonly pid: number;
	readonly ppid: number;
	readonly pgid: number;
}

function psTable(): PsRow[] {
	if (process.platform === "win32") return [];
	let table: string;
	try {
		table = execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid="], {
			encoding: "utf8",
			stdio: ["ignore", "pipe", "ignore"],
		});
	} catch {
		return [];
	}
	const rows: PsRow[] = [];
	for (const line of table.split("\n")) {
		const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number);
		if (pid && !Number.isNaN(ppid)) rows.push({ pid, ppid, pgid });
	}
	return rows;
}

/** Every descendant pid of `root` (children first-level first), or [] where `ps` is unavailable. */
export function listDescendants(root: number): number[] {
	return descendantsIn(psTable(), root);
}

function descendantsIn(rows: readonly PsRow[], root: number): number[] {
	const children = new Map<number, number[]>();
	for (const { pid, ppid } of rows) {
		const list = children.get(ppid) ?? [];
		list.push(pid);
		children.set(ppid, list);
	}
	const out: number[] = [];
	const queue = [root];
	while (queue.length > 0) {
		const next = children.get(queue.shift() as number) ?? [];
		out.push(...next);
		queue.push(...next);
	}
	return out;
}

/**
 * A server's whole tree: its descendants, and the members of the process group it leads (which
 * outlive it after it exits: a `sleep 300 &` started by a wrapper, re-parented to init).
 */
export function listTree(root: number): number[] {
	const rows = psTable();
	const tree = new Set(descendantsIn(rows, root));
	for (const row of rows) if (row.pgid === root && row.pid !== root) tree.add(row.pid);
	return [...tree];
}

/**
 * Every process (other than this one) whose environment carries `name=value`: a server's helpers
 * inherit the tag it was started with, so this finds those that left its group and its tree
 * (`setsid`, a double fork). Linux only (/proc); elsewhere the group and the tree are all there is.
 */
export function tagged(name: string, value: string): number[] {
	if (process.platform !== "linux") return [];
	const needle = `\0${name}=${value}\0`;
	let entries: string[];
	try {
		entries = readdirSync("/proc");
	} catch {
		return [];
	}
	const found: number[] = [];
	for (const entry of entries) {
		const pid = Number(entry);
		if (!Number.isInteger(pid) || pid === process.pid) continue;
		try {
			if (`\0${readFileSync(`/proc/${pid}/environ`, "latin1")}`.includes(needle)) found.push(pid);
		} catch {
			// gone, or another user's: not ours to end
		}
	}
	return found;
}

/** True while the process runs; a zombie (exited, not yet reaped by its parent) counts as gone. */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
	try {
		// /proc/<pid>/stat: "pid (comm) state ..."; comm may contain spaces, so read after the last ")".
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
	} catch {
		return true; // no /proc (macOS): the signal check above is all there is
	}
}

/** SIGTERM each pid still alive, then SIGKILL whatever survives `graceMs`; resolves when all are gone (or after a last short wait). */
export async function terminateAll(pids: readonly number[], graceMs = 1500): Promise<void> {
	const alive = pids.filter(isAlive);
	if (alive.length === 0) return;
	for (const pid of alive) signal(pid, "SIGTERM");
	await waitGone(alive, graceMs);
	const stubborn = alive.filter(isAlive);
	for (const pid of stubborn) signal(pid, "SIGKILL");
	await waitGone(stubborn, 500);
}

/** Synchronous last resort for process exit, when no await is possible. */
export function killAllSync(pids: readonly number[]): void {
	for (const pid of pids) signal(pid, "SIGKILL");
}

/** Sends a signal to a process group (negative pid) or a process; gone already is fine. */
export function signal(pid: number, sig: NodeJS.Signals): void {
	try {
		process.kill(pid, sig);
	} catch {
		// already gone
	}
}

/** Polls until none of `pids` is alive or `ms` passed. The timer is not unref'd on purpose. */
async function waitGone(pids: readonly number[], ms: number): Promise<void> {
	const deadline = Date.now() + ms;
	while (Date.now() < deadline && pids.some(isAlive)) await delay(10);
}
