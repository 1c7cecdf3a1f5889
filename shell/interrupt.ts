// Ctrl-C (or a kill) from a shell: the command is cancelled, said so in one line, every server it
// started ended (killed after a grace), and the exit code is the one a shell expects (130, 143):
// during the command and while its servers close after it (a server that ignores SIGTERM takes
// seconds then; Node's default would kill this process and leave that server). A second signal
// does not wait for the first's shutdown.
import { within } from "../bounds/waits.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { mute, printError, printInPlace } from "./output.ts";

/** How long Ctrl-C waits for servers to end on their own before they are killed. */
export const CLI_SHUTDOWN_MS = 3000;

/** The running command's end by a signal: its abort, and the exit code it leaves (130 Ctrl-C, 143 a kill). */
export interface Interrupt {
	readonly signal: AbortSignal;
	readonly code: () => number | undefined;
}

/**
 * Handles SIGINT and SIGTERM for the rest of the process; the returned signal aborts the running
 * command (a call is cancelled at its server, a wait ends) before the servers are ended, and the
 * command, however it ends then, exits with the signal's code.
 */
export function cancelOnSignals(runtime: McpRuntime): Interrupt {
	const command = new AbortController();
	let stopping = false;
	let exitCode: number | undefined;
	const onSignal = (signal: NodeJS.Signals) => {
		const code = signal === "SIGINT" ? 130 : 143;
		exitCode ??= code;
		const exit = () => {
			// A server that ignores SIGTERM and stdin's end is killed whatever the shutdown got to.
			runtime.killAllSync();
			process.exit(code);
		};
		if (stopping) return exit();
		stopping = true;
		// Said before the command's own answer to its abort (a server ended under a call reads as a crash).
		const said = signal === "SIGINT" ? "Cancelled." : `Stopped (${signal}).`;
		// On a terminal it replaces a progress line in place.
		if (process.stderr.isTTY) printInPlace(said);
		printError(process.stderr.isTTY ? "\n" : `${said}\n`);
		mute();
		command.abort(new Error(signal === "SIGINT" ? "cancelled (Ctrl-C)" : `stopped (${signal})`));
		void within(runtime.shutdown(), CLI_SHUTDOWN_MS).finally(exit);
	};
	// The handlers stay until the process exits: a signal after the command's shutdown still exits 130/143.
	process.on("SIGINT", onSignal);
	process.on("SIGTERM", onSignal);
	return { signal: command.signal, code: () => exitCode };
}
