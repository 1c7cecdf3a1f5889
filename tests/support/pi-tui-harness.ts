// The real Pi TUI in a pseudo-terminal (node-pty), for what only the interactive mode shows:
// dialogs at startup, keys pressed by a user.
import { stripVTControlCharacters } from "node:util";
import { spawn } from "@lydell/node-pty";
import { type PiHome, piCommand, type RunOptions } from "./pi-cli-harness.ts";

export interface PiTui {
	/** Everything drawn so far, without terminal escape codes. */
	text(): string;
	waitForText(match: string | RegExp, timeoutMs?: number): Promise<void>;
	/** Types keys (e.g. "\r" for enter, "\x1b[B" for the down arrow). */
	press(keys: string): void;
	close(): Promise<void>;
}

export function startPiTui(home: PiHome, options: RunOptions = {}): PiTui {
	if (options.steps) home.model.script(options.steps);
	const { node, args, env } = piCommand(home, [], options);
	const pty = spawn(node, args, { cwd: home.cwd, cols: 120, rows: 40, env });
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
	});
	const text = () => stripVTControlCharacters(output);
	return {
		text,
		async waitForText(match, timeoutMs = 20_000) {
			const deadline = Date.now() + timeoutMs;
			const found = () => (typeof match === "string" ? text().includes(match) : match.test(text()));
			while (!found()) {
				if (Date.now() > deadline || exited)
					throw new Error(`the TUI never showed ${String(match)}; it shows:\n${text().slice(-3000)}`);
				await new Promise((r) => setTimeout(r, 50));
			}
		},
		press: (keys) => pty.write(keys),
		async close() {
			if (!exited) {
				pty.kill("SIGTERM");
				const timer = setTimeout(() => pty.kill("SIGKILL"), 5000);
				await done;
				clearTimeout(timer);
			}
		},
	};
}
