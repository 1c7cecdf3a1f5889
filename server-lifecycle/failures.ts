// Why each server is not available now, and for how long it fails fast: a failed connect is
// recorded here, every call in the backoff gets the same "not available (failed 12s ago)" answer
// instead of a respawn, and a refusal of credentials is told as a sign-in (or a token) to give.

import { authStatus, describeError, isAuthError } from "../errors.ts";
import { AuthRequiredError, signsInWithBrowser } from "../oauth-handler.ts";
import type { Challenge } from "../transport/open-connection.ts";
import type { ServerEntry } from "../types.ts";

export interface Failure {
	readonly message: string;
	readonly at: number;
	/** The server wants credentials (401/403, or a missing/expired token). */
	readonly needsAuth?: boolean;
	/**
	 * A start ahead of a call failed (start-up/streamed-call.ts) and no caller has been told yet: the call
	 * that follows gets this error as if its own connect had failed, not the back-off's note.
	 */
	readonly untold?: unknown;
}

export interface FailureLogOptions {
	readonly now: () => number;
	/** How long a failed connect fails fast before it is tried again (default 60 s). */
	readonly backoffMs?: number;
	/** Told after a failure is recorded (for the status line). */
	readonly onChange?: () => void;
}

/** The last failure of each server and the backoff that follows it. */
export class FailureLog {
	private readonly failures = new Map<string, Failure>();
	private readonly backoffMs: number;

	constructor(private readonly options: FailureLogOptions) {
		this.backoffMs = options.backoffMs ?? 60_000;
	}

	get(name: string): Failure | undefined {
		return this.failures.get(name);
	}

	/** Forgets a server's failure: it connected, or it is tried again at once (a reconnect, keep-alive). */
	clear(name: string): void {
		this.failures.delete(name);
	}

	/**
	 * Records why a server is not available now and returns the error to show. A refusal of
	 * credentials becomes "needs sign-in" (OAuth servers) or "needs authentication" (a static token),
	 * with the scope the server asked for (`challenge`) when it wants more access. `ahead`: a start
	 * before any call, whose error the next call is told.
	 */
	record(name: string, raw: unknown, where: { entry?: ServerEntry; challenge?: Challenge; ahead?: boolean }): unknown {
		const { entry, challenge, ahead } = where;
		const error =
			isAuthError(raw) && !(raw instanceof AuthRequiredError) && entry
				? new AuthRequiredError(name, authDetail(raw, challenge), signsInWithBrowser(entry) ? "sign-in" : "token")
				: raw;
		this.failures.set(name, {
			message: describeError(error),
			at: this.options.now(),
			needsAuth: error instanceof AuthRequiredError,
			...(ahead ? { untold: error } : {}),
		});
		this.options.onChange?.();
		return error;
	}

	/** Whether a failed connect of this server still fails fast (a start now would only say so). */
	backingOff(name: string): boolean {
		const failure = this.failures.get(name);
		return failure !== undefined && this.options.now() - failure.at < this.backoffMs;
	}

	/**
	 * Throws what a connect in the backoff answers: the failure of a start ahead not told yet (to a
	 * call, not to another start ahead), else `unavailable`'s words. Returns when it may be tried.
	 */
	failFast(name: string, ahead: boolean): void {
		const failure = this.failures.get(name);
		if (!failure || !this.backingOff(name)) return;
		if (failure.untold !== undefined && !ahead) {
			this.failures.set(name, { ...failure, untold: undefined });
			throw failure.untold;
		}
		throw new Error(this.unavailable(name));
	}

	/** A failed server, as every call to it answers: `Server "x" not available (failed 12s ago): <why>` (the README's words). */
	unavailable(name: string): string | undefined {
		const failure = this.failures.get(name);
		if (!failure) return undefined;
		const ago = Math.round((this.options.now() - failure.at) / 1000);
		return `Server "${name}" not available (failed ${ago}s ago): ${failure.message}`;
	}
}

/** "the server answered HTTP 401": the status only, never the response body (it may echo a token). */
function authDetail(error: unknown, challenge: Challenge | undefined): string {
	if (challenge?.status === 403 && challenge.error === "insufficient_scope") {
		return `it asks for more access${challenge.scope ? `: scope "${challenge.scope}"` : ""}`;
	}
	const code = authStatus(error);
	return code ? `the server answered HTTP ${code}` : "the server refused the credentials";
}
