// Finds and ends the descendants of a server process. Wrappers such as `npx` or `sh -c` start the
// real server as a grandchild; the SDK's stdio close only signals the direct child, which can
// leave the grandchild running after Pi exits.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Every descendant pid of `root` (children first-level first), or [] where `ps` is unavailable. */
export function listDescendants(root: number): number[] {
	if (process.platform === "win32") return [];
	let table: string;
	try {
		table = execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
	} catch {
		return [];
	}
	const children = new Map<number, number[]>();
	for (const line of table.split("\n")) {
		const [pid, ppid] = line.trim().split(/\s+/).map(Number);
		if (!pid || Number.isNaN(ppid)) continue;
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

/** SIGTERM each pid still alive, then SIGKILL whatever survives `graceMs`. */
export async function terminateAll(pids: readonly number[], graceMs = 1500): Promise<void> {
	const alive = pids.filter(isAlive);
	if (alive.length === 0) return;
	for (const pid of alive) signal(pid, "SIGTERM");
	const deadline = Date.now() + graceMs;
	while (Date.now() < deadline && alive.some(isAlive)) await sleep(50);
	for (const pid of alive) if (isAlive(pid)) signal(pid, "SIGKILL");
}

/** Synchronous last resort for process exit, when no await is possible. */
export function killAllSync(pids: readonly number[]): void {
	for (const pid of pids) signal(pid, "SIGKILL");
}

function signal(pid: number, sig: NodeJS.Signals): void {
	try {
		process.kill(pid, sig);
	} catch {
		// already gone
	}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
