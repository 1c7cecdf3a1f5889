// A failed request in words a user can act on: a timeout with the setting that raises it, a stdio
// server that crashed during the call with the end of its stderr.
import { describeError, isInputClosed } from "../errors.ts";
import type { ServerConnection } from "./connection-types.ts";
import type { McpSdk } from "./mcp-sdk.lazy.ts";

/** Timeouts and cancellations in words a user can act on. */
export function explainRequestError(
	sdk: McpSdk,
	error: unknown,
	connection: ServerConnection,
	timeoutMs: number,
): unknown {
	const code = (error as { code?: unknown } | null)?.code;
	if (code === sdk.SdkErrorCode.RequestTimeout && /timed out/i.test(describeError(error))) {
		return new Error(
			`No answer from "${connection.name}" within ${Math.round(timeoutMs / 1000)} s. Raise its "timeout" (seconds) or settings.requestTimeoutMs if it needs longer.`,
			{ cause: error },
		);
	}
	return error;
}

/**
 * Adds why the connection ended: the transport's own reason, or, for a stdio server that went
 * away during the call, that it crashed, that the next call starts it again, and the end of its
 * stderr. The transport's error ("Connection closed", "write EPIPE") is kept only as the cause.
 */
export function withStderr(error: unknown, connection: ServerConnection): unknown {
	if (connection.status === "connected" && !isInputClosed(error)) return error;
	const failure = connection.transportFailure();
	if (failure) return new Error(`${describeError(error)}: ${failure}`, { cause: error });
	if (connection.transportKind !== "stdio") return error;
	const exit = connection.exitStatus?.();
	const head = `Server "${connection.name}" crashed during the call (${exit ?? describeError(error)}); it starts again at the next call.`;
	const tail = connection.stderrTail().trim();
	return new Error(tail ? `${head}\nIts stderr ended with:\n${tail}` : head, { cause: error });
}
