// Preloaded into a benchmarked `pi` (NODE_OPTIONS=--import): at exit, appends the process's own
// CPU time (user + system, microseconds) to $BENCH_CPU_FILE. On a shared machine wall time moves by
// ±10% between runs; the CPU a start costs barely moves, so the start-up bench prints both.
import { appendFileSync } from "node:fs";

const file = process.env.BENCH_CPU_FILE;
if (file) {
	process.on("exit", () => {
		const { user, system } = process.cpuUsage();
		appendFileSync(file, `${JSON.stringify({ pid: process.pid, ppid: process.ppid, cpuUs: user + system })}\n`);
	});
}
