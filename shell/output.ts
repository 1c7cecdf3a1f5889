// What the shell command writes: answers on stdout, errors and progress on stderr, every byte
// cleaned of terminal sequences (servers and repositories wrote much of it), and the hints written
// for the model inside Pi (`mcp({search})`, "ask the user to run /mcp approve") in the shell's own
// commands. After Ctrl-C nothing more is written: the command was cancelled, whatever it says now.
import { forPerson } from "../errors.ts";
import { terminalSafe } from "../trust/safe-text.ts";

let muted = false;

/** An answer, on stdout. */
export function print(text: string): void {
	if (!muted) process.stdout.write(forShell(terminalSafe(text)));
}

/** An error or a note beside the answer, on stderr. */
export function printError(text: string): void {
	if (!muted) process.stderr.write(forShell(terminalSafe(text)));
}

/**
 * A line on stderr that the next one replaces (a terminal's progress line), or undefined to clear
 * it; cut to the terminal's width so it never wraps (a wrapped line cannot be rewritten in place).
 */
export function printInPlace(text: string | undefined): void {
	if (muted) return;
	const width = process.stderr.columns ?? 80;
	const safe = text === undefined ? "" : forShell(terminalSafe(text));
	process.stderr.write(`\r\x1b[K${safe.length >= width ? `${safe.slice(0, width - 2)}…` : safe}`);
}

/** From now on nothing is written (an interrupted command's late words would contradict "Cancelled"). */
export function mute(): void {
	muted = true;
}

/**
 * The answers are written for the model inside Pi; at a shell the same hints name the CLI's own
 * commands (`forPerson` has already turned "ask the user to run X" into "run X").
 */
const SHELL_WORDING: readonly [RegExp, string][] = [
	// A status row names its server: the reason follows without naming it again.
	[/^- ([^:\n]+): (failed: )?Server "\1" (failed to connect: )?/gm, "- $1: $2"],
	[/mcp\(\{search:"words"\}\)/g, "pi-mcp-proxy search <words>"],
	[/mcp\(\{server:"([^"]+)",instructions:true\}\)/g, "pi-mcp-proxy list $1 --instructions"],
	[/mcp\(\{server:"([^"]+)"\}\)/g, "pi-mcp-proxy list $1"],
	[/mcp\(\{describe:"([^"]+)"\}\)/g, "pi-mcp-proxy describe $1"],
	[/mcp\(\{\}\)/g, "pi-mcp-proxy status"],
	[/\/mcp approve/g, "pi-mcp-proxy approve"],
	[/run \/mcp-auth ([^\s)]+)/g, "run pi-mcp-proxy login $1"],
	[/\/mcp-auth ([^\s)]+) explains/g, "/mcp-auth $1 in Pi explains"],
];

export function forShell(text: string): string {
	return SHELL_WORDING.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), forPerson(text));
}
