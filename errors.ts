// Error classification and wording shared by the manager, the proxy tool and the CLI, and the one
// decision of what follows a failure (`afterError`). Deciding (pure functions) is kept apart from
// throwing and retrying. Loaded with Pi: the SDK's codes are named here by type only.
import type { ProtocolErrorCode } from "@modelcontextprotocol/client";

/**
 * The JSON-RPC error code a reply we make up for a request whose connection went carries (what
 * SDK v1's ErrorCode.ConnectionClosed was; v2's SdkErrorCode is a local string, not a wire code).
 */
export const CONNECTION_CLOSED_CODE = -32000;

/** The SDK's `ProtocolErrorCode.UrlElicitationRequired`: the server needs the user to visit a page first. */
export const URL_ELICITATION_REQUIRED: ProtocolErrorCode.UrlElicitationRequired = -32042;

/** SEP-2243's HEADER_MISMATCH: a call's `Mcp-Param-*` headers and its body disagree (the SDK has no name for it). */
export const HEADER_MISMATCH = -32020;

/** The message of any thrown value, without a stack. */
export function describeError(error: unknown): string {
	if (error instanceof Error) {
		const message = error.message || error.name;
		// The SDK's HTTP errors often leave the status out of the text ("slow down").
		const status = httpStatus(error);
		return status !== undefined && !message.includes(String(status)) ? `${message} (HTTP ${status})` : message;
	}
	if (typeof error === "string") return error;
	try {
		return JSON.stringify(error);
	} catch {
		return String(error);
	}
}

/**
 * The HTTP status an SDK error carries: SDK v2's SdkHttpError keeps it in `status` (its `code` is a
 * string such as "CLIENT_HTTP_NOT_IMPLEMENTED"); v1-style errors and the OAuth module's keep it in `code`.
 */
export function httpStatus(error: unknown): number | undefined {
	const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown };
	for (const value of [status, code]) if (typeof value === "number" && value >= 400 && value < 600) return value;
	return undefined;
}

/** An error and the errors it wraps (`cause`), at most five deep. */
export function* causeChain(error: unknown): Generator<unknown> {
	for (let e = error, depth = 0; e !== null && e !== undefined && depth < 5; depth++) {
		yield e;
		e = (e as { cause?: unknown }).cause;
	}
}

/** 401 or 403 when the error, or an error it wraps, is an HTTP server refusing credentials. */
export function authStatus(error: unknown): 401 | 403 | undefined {
	for (const e of causeChain(error)) {
		const status = httpStatus(e);
		if (status === 401 || status === 403) return status;
		const match = /\b(?:HTTP (40[13])|(401) Unauthorized|(403) Forbidden)\b/i.exec(describeError(e));
		if (match) return Number(match[1] ?? match[2] ?? match[3]) as 401 | 403;
	}
	return undefined;
}

const AUTH_ERROR_CLASSES = new Set(["UnauthorizedError", "InsufficientScopeError"]);

/** True for a 401/403 from an HTTP server, whichever transport raised it, or a missing/expired token. */
export function isAuthError(error: unknown): boolean {
	// By class name: importing the SDK's auth module for an instanceof check would cost Pi's startup.
	// SDK v2 raises a 403 insufficient_scope as InsufficientScopeError (no status): a sign-in with the wider scope.
	for (const e of causeChain(error))
		if (e instanceof Error && (AUTH_ERROR_CLASSES.has(e.constructor.name) || e.name === "AuthRequiredError"))
			return true;
	return authStatus(error) !== undefined;
}

/**
 * A streamable HTTP server that no longer knows our session: 404 (what the spec says), or a 400
 * that names the session (what server-everything and the SDK's own server send after a restart).
 */
export function isSessionLost(error: unknown): boolean {
	const status = httpStatus(error);
	if (status === 404) return true;
	return status === 400 && /session/i.test(describeError(error));
}

/** A value from the model, quoted for a message and cut short: an answer never echoes a megabyte back. */
export function quote(text: string, max = 100): string {
	return (
		JSON.stringify(text.length > max ? `${text.slice(0, max)}...` : text) +
		(text.length > max ? ` (${text.length.toLocaleString("en-US")} characters)` : "")
	);
}

/** The one wording of "no servers": where to add them (the user's file as the reader knows it). */
export function noServersMessage(userFile = "~/.pi/agent/mcp.json"): string {
	return `No MCP servers configured. Add them to ${userFile} or .pi/mcp.json under "mcpServers".`;
}

/** The one wording of a name that matches no configured server, with the names that do, when known. */
export function unknownServerMessage(name: string, known?: readonly string[]): string {
	const head = `Unknown server ${quote(name)}.`;
	if (known === undefined) return head;
	return known.length === 0 ? `${head} ${noServersMessage()}` : `${head} Configured servers: ${known.join(", ")}`;
}

/**
 * Words written for the model ("ask the user to run /mcp approve x", "(tell the user)") as a person
 * reads them: the command to run, without the instruction to relay it. Every text shown to the
 * user (/mcp's answers and menus, the shell command) passes here; the model keeps its wording.
 */
export function forPerson(text: string): string {
	return text
		.replace(/\bask the user to run /g, "run ")
		.replace(/ \(tell the user\)/g, "")
		.replace(/; tell the user\b/g, "");
}

/** Raised when a server needs credentials it does not have: a sign-in, a token, or more scope. */
export class AuthRequiredError extends Error {
	constructor(
		readonly server: string,
		detail: string,
		readonly kind: "sign-in" | "token" = "sign-in",
		options?: ErrorOptions,
	) {
		super(
			kind === "sign-in"
				? `Server "${server}" needs sign-in: ask the user to run /mcp-auth ${server} (${detail})`
				: `Server "${server}" needs authentication: /mcp-auth ${server} explains (${detail})`,
			options,
		);
		this.name = "AuthRequiredError";
	}
}

/** A write to a server whose input is closed (EPIPE, a destroyed stream): it exited, or will not read again. */
export function isInputClosed(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return code === "EPIPE" || code === "ERR_STREAM_DESTROYED";
}

/**
 * What follows a failure: list the server's tools again (their header declarations changed), have the
 * user visit the pages the server names, connect again (a streamable HTTP server forgot our session),
 * renew the credentials (a refresh or a sign-in), drop the connection (the server closed its input:
 * as good as crashed, the next call starts it again), or give up. Each retry is tried once: a retried
 * attempt gives up. A connect is only ever followed by new credentials.
 */
export type FollowUp = "list-again" | "visit-pages" | "reconnect" | "sign-in" | "drop-connection" | "give-up";

export interface Failure {
	readonly error: unknown;
	/** A request on an open connection, or the connect itself. */
	readonly during: "request" | "connect";
	readonly transport?: "stdio" | "streamable-http" | "sse";
	readonly retried?: boolean;
}

export function afterError({ error, during, transport, retried }: Failure): FollowUp {
	// Not a retry: whatever was tried before, a server that stopped reading is dropped.
	if (during === "request" && isInputClosed(error)) return "drop-connection";
	if (retried) return "give-up";
	if (during === "request") {
		const code = (error as { code?: unknown } | null | undefined)?.code;
		if (code === HEADER_MISMATCH) return "list-again";
		if (code === URL_ELICITATION_REQUIRED) return "visit-pages";
		if (transport === "streamable-http" && isSessionLost(error)) return "reconnect";
	}
	return isAuthError(error) ? "sign-in" : "give-up";
}
