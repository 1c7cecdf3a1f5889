// Which HTTP transport a server is reached over: `type: "sse"` only the legacy SSE transport;
// otherwise streamable HTTP first and SSE as the fallback, unless the server refused our
// credentials (new credentials follow a refusal, not another transport) or the connect was cancelled.
import { afterError } from "../errors.ts";
import type { HttpServerEntry } from "../types.ts";
import type { Opened } from "./connection-types.ts";
import type { HttpKind } from "./open-http.ts";

/** Opens over the kinds the entry allows, in order; `failed` words the error when both were tried and failed. */
export async function openWithFallback(
	entry: HttpServerEntry,
	attempt: (kind: HttpKind) => Promise<Opened>,
	signal: AbortSignal,
	failed: (streamableError: unknown, sseError: unknown) => Error,
): Promise<Opened> {
	if (entry.transport === "sse") return attempt("sse");
	try {
		return await attempt("streamable-http");
	} catch (streamableError) {
		if (afterError({ error: streamableError, during: "connect" }) === "sign-in" || signal.aborted)
			throw streamableError;
		try {
			return await attempt("sse");
		} catch (sseError) {
			if (afterError({ error: sseError, during: "connect" }) === "sign-in" || signal.aborted) throw sseError;
			throw failed(streamableError, sseError);
		}
	}
}
