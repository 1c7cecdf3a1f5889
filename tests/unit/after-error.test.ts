// errors.ts afterError: the one decision of what follows a failed request or connect.
import { describe, expect, it } from "vitest";
import { afterError, HEADER_MISMATCH, URL_ELICITATION_REQUIRED } from "../../errors.ts";

/** An error as the SDK raises them: a JSON-RPC code, or an HTTP status. */
const withCode = (code: number) => Object.assign(new Error("refused"), { code });
const withStatus = (status: number, message = "failed") => Object.assign(new Error(message), { status });
class UnauthorizedError extends Error {}

describe("afterError", () => {
	it("lists the tools again after a header mismatch, on a request", () => {
		expect(afterError({ error: withCode(HEADER_MISMATCH), during: "request" })).toBe("list-again");
	});

	it("has the user visit the pages a URL elicitation names", () => {
		expect(URL_ELICITATION_REQUIRED).toBe(-32042);
		expect(afterError({ error: withCode(URL_ELICITATION_REQUIRED), during: "request" })).toBe("visit-pages");
	});

	it("connects again when a streamable HTTP server lost the session, only there", () => {
		const lost = withStatus(404);
		expect(afterError({ error: lost, during: "request", transport: "streamable-http" })).toBe("reconnect");
		expect(
			afterError({
				error: withStatus(400, "Bad Request: no valid session"),
				during: "request",
				transport: "streamable-http",
			}),
		).toBe("reconnect");
		expect(afterError({ error: lost, during: "request", transport: "sse" })).toBe("give-up");
		expect(afterError({ error: lost, during: "connect", transport: "streamable-http" })).toBe("give-up");
	});

	it("renews the credentials after a refusal, on a request or a connect, the cause included", () => {
		expect(afterError({ error: withStatus(401), during: "connect" })).toBe("sign-in");
		expect(afterError({ error: new UnauthorizedError("no token"), during: "request" })).toBe("sign-in");
		const wrapped = new Error("connect failed", { cause: withStatus(403) });
		expect(afterError({ error: wrapped, during: "request", transport: "stdio" })).toBe("sign-in");
	});

	it("drops the connection of a server that closed its input, on a request, retried or not", () => {
		const closed = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
		expect(afterError({ error: closed, during: "request", transport: "stdio" })).toBe("drop-connection");
		expect(afterError({ error: closed, during: "request", transport: "stdio", retried: true })).toBe("drop-connection");
		const destroyed = Object.assign(new Error("stream destroyed"), { code: "ERR_STREAM_DESTROYED" });
		expect(afterError({ error: destroyed, during: "request" })).toBe("drop-connection");
		expect(afterError({ error: closed, during: "connect" })).toBe("give-up");
	});

	it("gives up on anything else, and on any failure already retried", () => {
		expect(afterError({ error: new Error("boom"), during: "request" })).toBe("give-up");
		expect(afterError({ error: undefined, during: "connect" })).toBe("give-up");
		expect(afterError({ error: withStatus(401), during: "connect", retried: true })).toBe("give-up");
		expect(afterError({ error: withCode(HEADER_MISMATCH), during: "request", retried: true })).toBe("give-up");
		// A connect is followed by new credentials or nothing: a code of a request means nothing there.
		expect(afterError({ error: withCode(HEADER_MISMATCH), during: "connect" })).toBe("give-up");
	});
});
