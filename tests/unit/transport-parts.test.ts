// The parts of opening a connection, each alone and without a process: the client's declared
// capabilities, the broker's route, a stdio open cancelled before its spawn, the choice between the
// HTTP transports, HTTP authorization without OAuth, and a failed request in words.
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { Opened, OpenOptions, ServerConnection, SharedServers } from "../../transport/connection-types.ts";
import { authorization } from "../../transport/http-authorization.ts";
import { openWithFallback } from "../../transport/http-fallback.ts";
import { declaredCapabilities, definedOnly, newClient } from "../../transport/mcp-client.ts";
import { loadSdk } from "../../transport/mcp-sdk.lazy.ts";
import type { HttpKind } from "../../transport/open-http.ts";
import { openShared } from "../../transport/open-shared.ts";
import { openStdio } from "../../transport/open-stdio.ts";
import { explainRequestError, withStderr } from "../../transport/request-errors.ts";
import { Redactor } from "../../trust/redaction.ts";
import type { HttpServerEntry, StdioServerEntry } from "../../types.ts";
import { configOf, entryOf } from "../support/helpers.ts";

const config = configOf({
	local: { command: "node", args: ["server.js"] },
	remote: { url: "http://127.0.0.1:9/mcp" },
	legacy: { url: "http://127.0.0.1:9/sse", type: "sse" },
});
const local = entryOf(config, "local") as StdioServerEntry;
const remote = entryOf(config, "remote") as HttpServerEntry;
const legacy = entryOf(config, "legacy") as HttpServerEntry;

function openOptions(extra: Partial<OpenOptions> = {}): OpenOptions {
	return {
		env: {},
		auth: { agentDir: "/nonexistent-agent-dir", env: {} },
		connectTimeoutMs: 5000,
		maxMessageBytes: 1024 * 1024,
		redactor: new Redactor({}),
		...extra,
	};
}

describe("the client a connection speaks through", () => {
	it("declares elicitation for an elicit handler, roots only to a server offered them, and skills always", async () => {
		const sdk = await loadSdk();
		const elicit = async () => ({ action: "decline" as const });
		const offered = newClient(sdk, local, { elicit, roots: () => [{ uri: "file:///work" }] });
		expect(declaredCapabilities(offered)).toMatchObject({ elicitation: {}, roots: { listChanged: true } });
		expect(Object.keys(declaredCapabilities(offered).extensions ?? {})).toContain("io.modelcontextprotocol/skills");
		const none = newClient(sdk, local, { roots: () => undefined });
		expect(declaredCapabilities(none)).not.toHaveProperty("roots");
		expect(declaredCapabilities(none)).not.toHaveProperty("elicitation");
	});

	it("gives a process only the variables that are set", () => {
		expect(definedOnly({ A: "1", B: undefined })).toEqual({ A: "1" });
	});
});

describe("a server the broker shares", () => {
	it("is reached over the broker's transport, and the server sees what the client declared", async () => {
		const server = new McpServer({ name: "shared", version: "1.0.0" });
		const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
		await server.connect(serverSide);
		let destroyed = false;
		const broker: SharedServers = {
			shares: () => true,
			open: async () => Object.assign(clientSide, { destroy: () => (destroyed = true) }),
		};
		const launch = { command: "node", args: ["server.js"], env: {} };
		const sample = async () => ({
			role: "assistant" as const,
			content: { type: "text" as const, text: "" },
			model: "m",
		});
		const opened = await openShared(
			await loadSdk(),
			local,
			launch,
			{ ...openOptions({ requests: { sample } }), broker },
			new AbortController().signal,
		);
		expect(opened?.shared).toBe(true);
		expect(server.server.getClientCapabilities()).toHaveProperty("sampling");
		opened?.killSync();
		expect(destroyed).toBe(true);
		await opened?.close();
		await server.close();
	});

	it("is opened here instead when the broker cannot serve it", async () => {
		const broker: SharedServers = { shares: () => true, open: async () => undefined };
		const launch = { command: "node", args: [], env: {} };
		const opened = await openShared(
			await loadSdk(),
			local,
			launch,
			{ ...openOptions(), broker },
			new AbortController().signal,
		);
		expect(opened).toBeUndefined();
	});
});

describe("a stdio open cancelled before its spawn", () => {
	it("starts nothing: no process registered, not told it launched, the cancellation's reason thrown", async () => {
		const live = new Set<() => void>();
		let launched = false;
		const controller = new AbortController();
		const reason = new Error("closing");
		controller.abort(reason);
		const options = openOptions({ live, onLaunched: () => (launched = true) });
		await expect(openStdio(loadSdk, local, local, options, controller.signal)).rejects.toBe(reason);
		expect(live.size).toBe(0);
		expect(launched).toBe(false);
	});
});

describe("which HTTP transport is tried", () => {
	const opened = (kind: HttpKind) => ({ kind }) as unknown as Opened;
	const words = (a: unknown, b: unknown) => new Error(`both failed: ${String(a)} / ${String(b)}`);

	it('tries SSE only for `type: "sse"`', async () => {
		const tried: HttpKind[] = [];
		const attempt = async (kind: HttpKind) => {
			tried.push(kind);
			return opened(kind);
		};
		await openWithFallback(legacy, attempt, new AbortController().signal, words);
		expect(tried).toEqual(["sse"]);
	});

	it("falls back to SSE when streamable HTTP fails, and words both failures together", async () => {
		const tried: HttpKind[] = [];
		const fallsBack = async (kind: HttpKind) => {
			tried.push(kind);
			if (kind === "streamable-http") throw new Error("404");
			return opened(kind);
		};
		expect((await openWithFallback(remote, fallsBack, new AbortController().signal, words)).kind).toBe("sse");
		const neither = async (kind: HttpKind): Promise<Opened> => {
			throw new Error(kind);
		};
		await expect(openWithFallback(remote, neither, new AbortController().signal, words)).rejects.toThrow(
			"both failed: Error: streamable-http / Error: sse",
		);
		expect(tried).toEqual(["streamable-http", "sse"]);
	});

	it("does not try SSE after a cancellation", async () => {
		const controller = new AbortController();
		const tried: HttpKind[] = [];
		const cancelled = async (kind: HttpKind): Promise<Opened> => {
			tried.push(kind);
			controller.abort();
			throw new Error("aborted");
		};
		await expect(openWithFallback(remote, cancelled, controller.signal, words)).rejects.toThrow("aborted");
		expect(tried).toEqual(["streamable-http"]);
	});
});

describe("HTTP authorization beyond headers", () => {
	it("adds nothing for a server without OAuth or a DPoP key", async () => {
		expect(await authorization(remote, { headers: {} }, openOptions())).toEqual({});
	});
});

describe("a failed request in words", () => {
	function connection(extra: Partial<ServerConnection>): ServerConnection {
		return {
			name: "local",
			transportKind: "stdio",
			status: "closed",
			stderrTail: () => "Traceback: boom\n",
			transportFailure: () => undefined,
			exitStatus: () => "exit code 3",
			...extra,
		} as ServerConnection;
	}

	it("a stdio server that went away: crashed, how it ended, that it starts again, and its stderr", () => {
		const error = withStderr(new Error("Connection closed"), connection({})) as Error;
		expect(error.message).toBe(
			'Server "local" crashed during the call (exit code 3); it starts again at the next call.\nIts stderr ended with:\nTraceback: boom',
		);
	});

	it("the transport's own reason when it ended the connection", () => {
		const error = withStderr(new Error("Connection closed"), connection({ transportFailure: () => "over 1 MB" }));
		expect((error as Error).message).toBe("Connection closed: over 1 MB");
	});

	it("a timeout names the setting that raises it", async () => {
		const sdk = await loadSdk();
		const timeout = Object.assign(new Error("Request timed out"), { code: sdk.SdkErrorCode.RequestTimeout });
		const error = explainRequestError(sdk, timeout, connection({ status: "connected" }), 30_000) as Error;
		expect(error.message).toContain('No answer from "local" within 30 s. Raise its "timeout"');
	});
});
