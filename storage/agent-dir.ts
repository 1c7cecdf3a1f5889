// Where Pi keeps its files, and so where every file of this adapter lives (config, cache,
// approvals, sign-ins, the broker): it follows PI_CODING_AGENT_DIR, so tests never touch a home.
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** `PI_CODING_AGENT_DIR` (a leading ~/ is the home), else ~/.pi/agent. */
export function resolveAgentDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
	const fromEnv = env.PI_CODING_AGENT_DIR;
	if (fromEnv) return fromEnv.startsWith("~/") ? join(homedir(), fromEnv.slice(2)) : resolve(fromEnv);
	return join(homedir(), ".pi", "agent");
}
