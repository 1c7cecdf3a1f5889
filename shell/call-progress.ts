// What a long call shows while it runs, on stderr (stdout stays the answer alone, for pipes and
// scripts): the server's own progress notifications, and when it sends none, how long the call has
// waited once it passes a few seconds. On a terminal one line is rewritten in place and cleared at
// the end; elsewhere (a log, a CI job) each message is its own line, and the wait is told rarely.
import { progressText } from "../proxy/proxy-tool.ts";
import { oneLine } from "../trust/safe-text.ts";
import type { Progress } from "../types.ts";
import { printError, printInPlace } from "./output.ts";

/** A call silent this long says it is still waiting. */
export const QUIET_MS = 3000;
/** Without a terminal, a silent call says so again after this long (a log gets a line, not a clock). */
const REPEAT_MS = 10_000;

export interface CallProgressOptions {
	/** Whether stderr is a terminal (a line rewritten in place) or not (a line per message). */
	readonly tty?: boolean;
	readonly now?: () => number;
}

export class CallProgress {
	private readonly tty: boolean;
	private readonly now: () => number;
	private readonly started: number;
	private lastHeard: number;
	private lastShown = "";
	private toldWaitAt = 0;
	private onScreen = false;
	private readonly tick: NodeJS.Timeout;

	constructor(
		private readonly what: string,
		options: CallProgressOptions = {},
	) {
		this.tty = options.tty ?? process.stderr.isTTY === true;
		this.now = options.now ?? Date.now;
		this.started = this.now();
		this.lastHeard = this.started;
		// unref'd: the call, not this clock, keeps the command alive; cleared by `end`.
		this.tick = setInterval(() => this.quiet(), 1000).unref();
	}

	/** A progress notification of the server's. */
	progress(progress: Progress): void {
		this.lastHeard = this.now();
		this.show(`${this.what}: ${progressText(progress)}`);
	}

	/** Why the call waits before it goes out (a server installing or starting). */
	waiting(text: string): void {
		this.lastHeard = this.now();
		this.show(`${this.what}: ${text}`);
	}

	/** The call ended: the line in place is cleared, the clock stopped. */
	end(): void {
		clearInterval(this.tick);
		if (this.onScreen) printInPlace(undefined);
		this.onScreen = false;
	}

	/** Called each second: a call silent for QUIET_MS says how long it has waited. */
	quiet(): void {
		const now = this.now();
		if (now - this.lastHeard < QUIET_MS) return;
		if (!this.tty && this.toldWaitAt > 0 && now - this.toldWaitAt < REPEAT_MS) return;
		this.toldWaitAt = now;
		this.show(`${this.what}: waiting for the answer, ${Math.round((now - this.started) / 1000)} s (Ctrl-C cancels)`);
	}

	private show(line: string): void {
		const text = oneLine(line);
		if (text === this.lastShown) return;
		this.lastShown = text;
		if (this.tty) {
			printInPlace(text);
			this.onScreen = true;
		} else printError(`${text}\n`);
	}
}
