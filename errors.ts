// Error classification and wording shared by the manager, the proxy tool and the CLI.
// Deciding (pure predicates) is kept apart from throwing.

/** The message of any thrown value, without a stack. */
export function describeError(error: unknown): string {
	if (error instanceof Error) return error.message || error.name;
	if (typeof error === "string") return error;
	try {
		return JSON.stringify(error);
	} catch {
		return String(error);
	}
}

function statusCode(error: unknown): number | undefined {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "number" ? code : undefined;
}

/** True for a 401/403 from an HTTP server, whichever transport raised it. */
export function isAuthError(error: unknown): boolean {
	// By name: importing the SDK's auth module for an instanceof check would cost Pi's startup.
	if (error instanceof Error && (error.constructor.name === "UnauthorizedError" || error.name === "AuthRequiredError")) return true;
	const code = statusCode(error);
	if (code === 401 || code === 403) return true;
	return /\b(HTTP 40[13]|401 Unauthorized|403 Forbidden)\b/i.test(describeError(error));
}

/** What the model and the user read when a server wants credentials it did not get. */
export function authNeededMessage(server: string, error?: unknown): string {
	// A missing or expired token was caught before connecting and says which; keep that detail.
	if (error instanceof Error && error.name === "AuthRequiredError") return error.message;
	return `Server "${server}" needs authentication: /mcp-auth ${server}`;
}

/** Removes every occurrence of each secret from a text that may reach a log or the model. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
	let out = text;
	for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join("***");
	return out;
}
