// Error classification and wording shared by the manager, the proxy tool and the CLI.
// Deciding (pure predicates) is kept apart from throwing.

/** The message of any thrown value, without a stack. */
export function describeError(error: unknown): string {
	if (error instanceof Error) {
		const message = error.message || error.name;
		// The SDK's HTTP errors keep the status in `code` and often leave it out of the text ("slow down").
		const code = (error as { code?: unknown }).code;
		return typeof code === "number" && code >= 400 && code < 600 && !message.includes(String(code))
			? `${message} (HTTP ${code})`
			: message;
	}
	if (typeof error === "string") return error;
	try {
		return JSON.stringify(error);
	} catch {
		return String(error);
	}
}

/** 401 or 403 when the error, or an error it wraps, is an HTTP server refusing credentials. */
export function authStatus(error: unknown): 401 | 403 | undefined {
	for (
		let e = error as { code?: unknown; cause?: unknown } | null | undefined, depth = 0;
		e && depth < 5;
		e = e.cause as typeof e, depth++
	) {
		if (e.code === 401 || e.code === 403) return e.code;
		const match = /\b(?:HTTP (40[13])|(401) Unauthorized|(403) Forbidden)\b/i.exec(describeError(e));
		if (match) return Number(match[1] ?? match[2] ?? match[3]) as 401 | 403;
	}
	return undefined;
}

/** True for a 401/403 from an HTTP server, whichever transport raised it, or a missing/expired token. */
export function isAuthError(error: unknown): boolean {
	// By class name: importing the SDK's auth module for an instanceof check would cost Pi's startup.
	if (error instanceof Error && (error.constructor.name === "UnauthorizedError" || error.name === "AuthRequiredError"))
		return true;
	return authStatus(error) !== undefined;
}

/**
 * A streamable HTTP server that no longer knows our session: 404 (what the spec says), or a 400
 * that names the session (what server-everything and the SDK's own server send after a restart).
 */
export function isSessionLost(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	const message = describeError(error);
	if (code === 404) return true;
	return code === 400 && /session/i.test(message);
}

/** A value from the model, quoted for a message and cut short: an answer never echoes a megabyte back. */
export function quote(text: string, max = 100): string {
	return (
		JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text) +
		(text.length > max ? ` (${text.length.toLocaleString("en-US")} characters)` : "")
	);
}
