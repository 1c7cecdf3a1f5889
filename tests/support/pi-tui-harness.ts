// The real Pi TUI in a pseudo-terminal (node-pty), for what only the interactive mode shows:
// dialogs at startup, keys pressed by a user. What the terminal shows now is kept by a headless
// xterm.js fed the same bytes, so a test can tell what is on the screen, not only what was drawn.
import { stripVTControlCharacters } from "node:util";
import { spawn } from "@lydell/node-pty";
import xterm from "@xterm/headless";
import { onTestFailed } from "vitest";
import { type PiHome, piCommand, type RunOptions } from "./pi-cli-harness.ts";

export interface PiTui {
	/** Everything drawn so far, without terminal escape codes. */
	text(): string;
	/** The rows the terminal shows now (its viewport), each without trailing spaces. */
	screen(): Promise<string[]>;
	/** Everything written to the terminal so far, escape codes and all. */
	raw(): string;
	/** Waits until the text was drawn (by default as long as the test may run), failing at once if Pi exits. */
	waitForText(match: string | RegExp, timeoutMs?: number): Promise<void>;
	/** Waits until the screen (the rows shown now, joined by newlines) matches. */
	waitForScreen(match: string | RegExp | ((screen: string) => boolean), timeoutMs?: number): Promise<string>;
	/** Types keys (e.g. "\r" for enter, "\x1b[B" for the down arrow). */
	press(keys: string): void;
	close(): Promise<void>;
}

export interface TuiOptions extends RunOptions {
	/** The terminal's size (default 120 columns, 40 rows). */
	readonly cols?: number;
	readonly rows?: number;
}

export function startPiTui(home: PiHome, options: TuiOptions = {}): PiTui {
	if (options.steps) home.model.script(options.steps);
	const { node, args, env } = piCommand(home, [], options);
	const cols = options.cols ?? 120;
	const rows = options.rows ?? 40;
	const pty = spawn(node, args, { cwd: home.cwd, cols, rows, env });
	const terminal = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
	let output = "";
	let exited = false;
	const done = new Promise<void>((resolve) =>
		pty.onExit(() => {
			exited = true;
			resolve();
		}),
	);
	pty.onData((data) => {
		output += data;
		terminal.write(data);
	});
	const text = () => stripVTControlCharacters(output);
	// xterm.js parses what it was given asynchronously: an empty write's callback runs once all before it is parsed.
	const screen = () =>
		new Promise<string[]>((resolve) =>
			terminal.write("", () => {
				const buffer = terminal.buffer.active;
				const lines: string[] = [];
				for (let y = buffer.viewportY; y < buffer.viewportY + rows; y++)
					lines.push(buffer.getLine(y)?.translateToString(true) ?? "");
				resolve(lines);
			}),
		);
	// What the terminal showed when a test failed (a wait bounded only by the test's timeout says nothing itself).
	onTestFailed(async () => console.error(`the Pi TUI showed:\n${(await screen()).join("\n")}`));
	const waitUntil = async (found: () => Promise<boolean>, what: string, timeoutMs: number) => {
		const deadline = Date.now() + timeoutMs;
		while (!(await found())) {
			if (Date.now() > deadline || exited)
				throw new Error(`the TUI never showed ${what}; it shows:\n${(await screen()).join("\n")}`);
			await new Promise((r) => setTimeout(r, 50));
		}
	};
	return {
		text,
		screen,
		raw: () => output,
		async waitForText(match, timeoutMs = Number.POSITIVE_INFINITY) {
			const found = () => (typeof match === "string" ? text().includes(match) : match.test(text()));
			await waitUntil(async () => found(), String(match), timeoutMs);
		},
		async waitForScreen(match, timeoutMs = Number.POSITIVE_INFINITY) {
			let shown = "";
			const test =
				typeof match === "function"
					? match
					: (s: string) => (typeof match === "string" ? s.includes(match) : match.test(s));
			await waitUntil(
				async () => {
					shown = (await screen()).join("\n");
					return test(shown);
				},
				String(match),
				timeoutMs,
			);
			return shown;
		},
		press: (keys) => pty.write(keys),
		async close() {
			if (!exited) {
				pty.kill("SIGTERM");
				const timer = setTimeout(() => pty.kill("SIGKILL"), 5000);
				await done;
				clearTimeout(timer);
			}
			terminal.dispose();
		},
	};
}
