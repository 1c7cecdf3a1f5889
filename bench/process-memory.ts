// Resident memory of processes as /proc reports it, for the benchmarks that compare process trees.
import { readFileSync } from "node:fs";
import { listDescendants } from "../bounds/process-tree.ts";

/** Summed RSS (MB) of these processes; one that exited between listing and reading counts nothing. */
export function rssMb(pids: Iterable<number>): number {
	let kb = 0;
	for (const pid of new Set(pids)) {
		try {
			kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
		} catch {
			// exited
		}
	}
	return kb / 1024;
}

/** RSS (MB) of a process and everything under it. */
export function treeRssMb(pid: number): number {
	return rssMb([pid, ...listDescendants(pid)]);
}
