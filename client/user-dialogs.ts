// What the adapter needs of Pi's dialogs (ctx.ui: select, confirm, input, notify), so the
// questions servers ask (elicitation, sampling consent) can be put to the user in the TUI and
// rpc alike, one at a time, and tested without Pi. Server text is shown as plain text.
import { oneLine, terminalSafe } from "../trust/safe-text.ts";

export interface DialogOptions {
	/** Dismisses the dialog (the server withdrew its request, the call was cancelled). */
	readonly signal?: AbortSignal;
}

export interface Dialogs {
	select(title: string, options: string[], opts?: DialogOptions): Promise<string | undefined>;
	confirm(title: string, message: string, opts?: DialogOptions): Promise<boolean>;
	input(title: string, placeholder?: string, opts?: DialogOptions): Promise<string | undefined>;
	notify(message: string, type?: "info" | "warning" | "error"): void;
}

/** Text from a server as it may be shown: no terminal control sequences, at most `max` characters. */
export function plain(text: string, max = 2000): string {
	const clean = terminalSafe(text);
	return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** The same dialogs, every text they show cleaned of terminal sequences (a server or repository wrote it). */
export function safeDialogs(ui: Dialogs): Dialogs {
	return {
		select: (title, options, opts) =>
			ui
				.select(terminalSafe(title), options.map(oneLine), opts)
				.then((picked) =>
					picked === undefined ? undefined : (options[options.map(oneLine).indexOf(picked)] ?? picked),
				),
		confirm: (title, message, opts) => ui.confirm(terminalSafe(title), terminalSafe(message), opts),
		input: (title, placeholder, opts) =>
			ui.input(terminalSafe(title), placeholder === undefined ? undefined : oneLine(placeholder), opts),
		notify: (message, type) => ui.notify(terminalSafe(message), type),
	};
}

/**
 * Runs dialogs one after another: two servers asking at once get their questions in turn, never
 * interleaved field by field.
 */
export class DialogQueue {
	private tail: Promise<unknown> = Promise.resolve();

	run<T>(ask: () => Promise<T>): Promise<T> {
		const next = this.tail.then(ask, ask);
		// The asker hears its own failure through `next`; the queue only needs to go on.
		this.tail = next.catch(() => undefined);
		return next;
	}
}
