// A failed connection in words: the network's reason first (as Node's fetch and the SDK's two
// transports raise it, wrapped in their own words), the fix after, the transports' words kept
// only as the cause; the same HTTP status from both transports said once; a stdio start's end.
import { describe, expect, it } from "vitest";
import { httpFailure, networkCode, startFailure } from "../../transport/failure-words.ts";

/** What Node's fetch raises for a network failure: "fetch failed", the system error as its cause. */
function fetchFailed(code: string, message: string): TypeError {
	return new TypeError("fetch failed", { cause: Object.assign(new Error(message), { code }) });
}

const url = new URL("https://mcp.example.com/mcp");
const file = "/home/u/.pi/agent/mcp.json";

describe("why a remote server did not connect", () => {
	it("a name DNS does not know: the URL, the name, the file to fix, and nothing of the transports' layers", () => {
		const streamable = new Error("Version negotiation probe failed: fetch failed", {
			cause: fetchFailed("ENOTFOUND", "getaddrinfo ENOTFOUND mcp.example.com"),
		});
		// The SSE transport's error keeps no cause: only its text names the code.
		const sse = new Error("SSE error: TypeError: fetch failed: getaddrinfo ENOTFOUND mcp.example.com");
		const error = httpFailure(url, file, streamable, sse);
		expect(error.message).toBe(
			`Cannot reach https://mcp.example.com/mcp: the name mcp.example.com was not found (DNS). Check the URL in ${file}.`,
		);
		expect(error.cause).toBe(streamable);
		expect(networkCode(sse)).toBe("ENOTFOUND");
	});

	it("refused, timed out, and a certificate not trusted: each in its words (a certificate's fix is not the URL)", () => {
		const local = new URL("http://127.0.0.1:4123/mcp");
		const refused = fetchFailed("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:4123");
		expect(httpFailure(local, file, refused, refused).message).toBe(
			`Cannot reach http://127.0.0.1:4123/mcp: nothing accepts connections at 127.0.0.1:4123 (connection refused). Check the URL in ${file}.`,
		);
		const slow = fetchFailed("UND_ERR_CONNECT_TIMEOUT", "Connect Timeout Error");
		expect(httpFailure(url, file, slow, slow).message).toContain("mcp.example.com did not answer (timed out)");
		const selfSigned = fetchFailed("DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed certificate");
		expect(httpFailure(url, file, selfSigned, selfSigned).message).toBe(
			"Cannot reach https://mcp.example.com/mcp: its TLS certificate is self-signed (NODE_EXTRA_CA_CERTS can name it as trusted).",
		);
	});

	it("a credential in the URL is masked; the same HTTP status from both transports is said once, with the fix", () => {
		const withToken = new URL("https://mcp.example.com/mcp?token=s3cret-value");
		const notFound = httpFailure(
			withToken,
			file,
			Object.assign(new Error("Error POSTing to endpoint"), { status: 404 }),
			new Error("SSE error: Non-200 status code (404)"),
		);
		expect(notFound.message).not.toContain("s3cret-value");
		expect(notFound.message).toMatch(
			/^https:\/\/mcp\.example\.com\/mcp\?token=\S+ answered HTTP 404 over streamable HTTP and over SSE\. Is it the server's MCP address\? Check the URL in /,
		);
	});

	it("anything else: both transports' own words, after the reason that neither connected", () => {
		const message = httpFailure(url, file, new Error("bad handshake"), new Error("stream ended")).message;
		expect(message).toBe(
			"https://mcp.example.com/mcp connected over neither streamable HTTP (bad handshake) nor SSE (stream ended).",
		);
	});
});

describe("why a stdio server did not start", () => {
	it("its exit code when it exited; that it stopped reading (not `write EPIPE`) when it had not yet", () => {
		const epipe = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
		expect(startFailure(epipe, "exit code 3")).toBe("the server exited (exit code 3) before it was ready");
		expect(startFailure(epipe, undefined)).toBe("the server stopped reading its input before it was ready");
		expect(startFailure(new Error("cannot start the server: command not found: x"), undefined)).toBe(
			"cannot start the server: command not found: x",
		);
	});
});
