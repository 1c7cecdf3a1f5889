// The footer's status line (\`MCP 2/5\`, Pi's \`ctx.ui.setStatus\`): what the user sees of the servers
// at a glance, set at every change of a session's servers (pi-ui/status-event.ts).
import type { ServerLifecycle } from "../lifecycle.ts";
import { startingText } from "../proxy/server-status.ts";

const FLAGS = [
	["starting", "starting"],
	["failed", "failed"],
	["needs-auth", "need sign-in"],
	["needs-config", "need config"],
	["awaiting-approval", "awaiting approval"],
] as const;

/** `MCP 2/5`: connected of configured; installs, failures and what needs the user are flagged. */
export function statusLine(lifecycle: ServerLifecycle): string | undefined {
	// Servers the user denied for this project are not counted: they are not expected to run.
	const names = lifecycle.serverNames().filter((n) => lifecycle.state(n) !== "denied");
	if (names.length === 0) return undefined;
	const states = names.map((n) => lifecycle.state(n));
	const connected = states.filter((s) => s === "connected").length;
	const installs = names.filter((_, i) => states[i] === "installing");
	const flags = installs.length > 0 ? [installsText(lifecycle, installs)] : [];
	for (const [state, what] of FLAGS) {
		const n = states.filter((s) => s === state).length;
		if (n > 0) flags.push(`${n} ${what}`);
	}
	return `MCP ${connected}/${names.length}${flags.map((flag) => ` ${flag}`).join("")}`;
}

/** Installs take minutes: one is named with its time, several counted with the longest one's. */
function installsText(lifecycle: ServerLifecycle, installs: readonly string[]): string {
	if (installs.length === 1) return startingText(lifecycle, installs[0]);
	const since = Math.min(...installs.map((n) => lifecycle.starting(n)?.install?.since ?? Date.now()));
	return `${installs.length} installing, ${Math.round((Date.now() - since) / 1000)} s`;
}
