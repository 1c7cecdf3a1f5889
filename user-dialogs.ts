// What the adapter needs of Pi's dialogs (ctx.ui: select, confirm, input, notify), so the
// questions servers ask (elicitation, sampling consent) can be put to the user in the TUI and
// rpc alike, one at a time, and tested without Pi. Server text is shown as plain text.

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
	// Escape sequences first (colours, cursor moves), then any other control character but \t and \n.
	const clean = text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "").replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
	return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * Runs dialogs one after another: two servers asking at once get their questions in turn, never
 * interleaved field by field.
 */
export class DialogQueue {
	private tail: Promise<unknown> = Promise.resolve();

	run<T>(ask: () => Promise<T>): Promise<T> {
		const next = this.tail.then(ask, ask);
		this.tail = next.catch(() => undefined);
		return next;
	}
}
