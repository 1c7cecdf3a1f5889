// The pool's parts, each alone over fakes (no process): what a connection is doing and who hears
// it, a connect shared by its callers, opening one for the pool, what a request goes out with, the
// route a tool call takes, and list_changed bursts.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConnectionStates } from "../../pool/connection-states.ts";
import { LIST_AGAIN_AFTER_MS, watchListChanges } from "../../pool/list-changes.ts";
import { type Connecting, openPooled, type PooledOpen } from "../../pool/open-pooled.ts";
import { type OpenHooks, PendingConnects } from "../../pool/pending-connects.ts";
import type { ServerEvent } from "../../pool/pool-types.ts";
import { checkArgumentSize, requestOptions, requestTimeout, visitRequiredPages } from "../../pool/request-options.ts";
import { sendToolCall } from "../../pool/tool-call.ts";
import type { Opened, ServerConnection } from "../../transport/open-connection.ts";
import { Redactor } from "../../trust/redaction.ts";
import type { ServerEntry } from "../../types.ts";
import { configOf, entryOf } from "../support/helpers.ts";

const config = configOf({ slow: { command: "node", args: ["s.js"], timeout: 7 }, plain: { command: "node" } });
const slow = entryOf(config, "slow");
const plain = entryOf(config, "plain");

function fakeConnection(name: string, entry: ServerEntry = plain): ServerConnection & { closes: number } {
	const connection = {
		name,
		entry,
		status: "connected" as const,
		closes: 0,
		tools: [],
		close: async () => {
			connection.closes++;
		},
	};
	return connection as unknown as ServerConnection & { closes: number };
}

describe("what each server's connection is doing", () => {
	it("tells a recorded connection as connected, and its end once; only a live connection is handed out", () => {
		const states = new ConnectionStates();
		const heard: string[] = [];
		const stop = states.subscribe((server, event: ServerEvent) => heard.push(`${server} ${event}`));
		const first = fakeConnection("a");
		states.record(first);
		expect(states.get("a")).toBe(first);
		states.markClosed(first);
		states.markClosed(first);
		expect(states.get("a")).toBeUndefined();
		expect(first.closes).toBe(1);
		expect(heard).toEqual(["a connected", "a closed"]);
		stop();
		states.emit("a", "changed");
		expect(heard).toHaveLength(2);
	});

	it("an old connection's end does not forget the server's new one", () => {
		const states = new ConnectionStates();
		const old = fakeConnection("a");
		const replacement = fakeConnection("a");
		states.record(old);
		states.record(replacement);
		states.markClosed(old);
		expect(states.get("a")).toBe(replacement);
		expect(states.connectedNames()).toEqual(["a"]);
	});
});

describe("a connect under way", () => {
	function controlled() {
		let hooks!: OpenHooks;
		let signal!: AbortSignal;
		let finish!: (connection: ServerConnection) => void;
		let fail!: (error: unknown) => void;
		let opens = 0;
		const open = (s: AbortSignal, h: OpenHooks) => {
			opens++;
			signal = s;
			hooks = h;
			return new Promise<ServerConnection>((resolve, reject) => {
				finish = resolve;
				fail = reject;
			});
		};
		return {
			open,
			hooks: () => hooks,
			signal: () => signal,
			finish: (c: ServerConnection) => finish(c),
			fail: (e: unknown) => fail(e),
			opens: () => opens,
		};
	}

	it("is shared by every caller, opened before it is listed, and forgotten once it ends", async () => {
		const pending = new PendingConnects(() => 42);
		const connect = controlled();
		const first = pending.join("a", connect.open);
		expect(pending.join("a", connect.open)).toBe(first);
		expect(connect.opens()).toBe(1);
		expect(pending.progress("a")).toEqual({ since: 42, install: undefined });
		const connection = fakeConnection("a");
		connect.hooks().onOpened(connection);
		expect(await first.opened).toBe(connection);
		expect(pending.has("a")).toBe(true);
		connect.finish(connection);
		await first.promise;
		expect(pending.has("a")).toBe(false);
	});

	it("a failure before the server was initialized fails the wait for `opened` too", async () => {
		const pending = new PendingConnects(Date.now);
		const connect = controlled();
		const started = pending.join("a", connect.open);
		connect.fail(new Error("spawn failed"));
		await expect(started.opened).rejects.toThrow("spawn failed");
		await expect(started.promise).rejects.toThrow("spawn failed");
	});

	it("records the install only for the connect still under way; the warm-up waits for the launch; a cancel aborts it", async () => {
		const pending = new PendingConnects(Date.now);
		const connect = controlled();
		pending.join("a", connect.open);
		const install = { spec: "pkg@1", since: 1 } as never;
		expect(pending.installing("a", new AbortController().signal, install)).toBe(false);
		expect(pending.installing("a", connect.signal(), install)).toBe(true);
		expect(pending.progress("a")?.install).toBe(install);
		let launched = false;
		const waiting = pending.launched().then(() => (launched = true));
		await Promise.resolve();
		expect(launched).toBe(false);
		connect.hooks().onLaunched();
		await waiting;
		connect.signal().addEventListener("abort", () => connect.fail(connect.signal().reason));
		await pending.cancel("a");
		expect(connect.signal().aborted).toBe(true);
		expect(pending.has("a")).toBe(false);
	});
});

describe("opening a connection for the pool", () => {
	function opened(closed: string[]): Opened {
		return {
			client: { getInstructions: () => "Use me." },
			kind: "stdio",
			stderrTail: () => "",
			transportFailure: () => undefined,
			close: async () => {
				closed.push("closed");
			},
			killSync: () => undefined,
		} as unknown as Opened;
	}

	function how(connecting: Partial<Connecting>, renew = async () => false): PooledOpen {
		return {
			connecting: { loadSdk: async () => ({}) as never, ...connecting } as Connecting,
			open: {
				env: {},
				auth: { agentDir: "/none", env: {} },
				redactor: new Redactor({ TOKEN: "s3cr3t-value" }),
				connectTimeoutMs: 1000,
				maxMessageBytes: 1000,
			},
			now: () => 7,
			renew,
		};
	}

	it("tells the connection once initialized, before its listing, then fills in what was listed", async () => {
		const order: string[] = [];
		const connecting = {
			openConnection: async () => opened([]),
			listMetadata: async () => {
				order.push("listed");
				return { tools: [{ name: "t" }] } as never;
			},
		};
		const connection = await openPooled(
			plain,
			new AbortController().signal,
			{ onOpened: () => order.push("opened") },
			how(connecting),
		);
		expect(order).toEqual(["opened", "listed"]);
		expect(connection).toMatchObject({ name: "plain", instructions: "Use me.", lastUsedAt: 7, inFlight: 0 });
		expect(connection.tools).toEqual([{ name: "t" }]);
	});

	it("a listing that fails closes the connection and says so, with no secret in the words", async () => {
		const closed: string[] = [];
		const connecting = {
			openConnection: async () => opened(closed),
			listMetadata: async () => {
				throw new Error("bad schema near s3cr3t-value");
			},
		};
		const failing = openPooled(plain, new AbortController().signal, {}, how(connecting));
		await expect(failing).rejects.toThrow('Server "plain" connected but listing its tools failed: bad schema near');
		await expect(failing).rejects.not.toThrow("s3cr3t-value");
		expect(closed).toEqual(["closed"]);
	});

	it("a refused credential is renewed and the connect tried once more", async () => {
		let attempts = 0;
		const connecting = {
			openConnection: async () => {
				attempts++;
				if (attempts === 1) throw Object.assign(new Error("Unauthorized"), { status: 401, code: 401 });
				return opened([]);
			},
			listMetadata: async () => ({}) as never,
		};
		let renewed = 0;
		await openPooled(
			plain,
			new AbortController().signal,
			{},
			how(connecting, async () => ++renewed > 0),
		);
		expect([attempts, renewed]).toEqual([2, 1]);
	});
});

describe("what a request goes out with", () => {
	it("refuses arguments over the limit before sending, and says what to do", () => {
		expect(() => checkArgumentSize("write", { text: "x".repeat(2 * 1024 * 1024) }, 1024 * 1024)).toThrow(
			/The arguments for write are 2\.0 MB, over the 1\.0 MB limit: they were not sent\. .*settings\.maxArgumentMB/,
		);
		expect(() => checkArgumentSize("write", { text: "x" }, 1024)).not.toThrow();
	});

	it("a server's timeout in seconds wins over the settings' ms; progress is passed on and restarts it", () => {
		expect(requestTimeout(fakeConnection("slow", slow), { requestTimeoutMs: 1000 })).toBe(7000);
		expect(requestTimeout(fakeConnection("plain"), { requestTimeoutMs: 1000 })).toBe(1000);
		const heard: unknown[] = [];
		const options = requestOptions(
			fakeConnection("plain"),
			{ onProgress: (p) => heard.push(p) },
			{ maxTotalTimeoutMs: 5 },
		);
		expect(options).toMatchObject({ timeout: expect.any(Number), resetTimeoutOnProgress: true, maxTotalTimeout: 5 });
		options.onprogress?.({ progress: 1, total: 2, message: "half" });
		expect(heard).toEqual([{ progress: 1, total: 2, message: "half" }]);
	});

	it("asks the user to visit each page a server requires; any page declined means no retry", async () => {
		const shown: string[] = [];
		const error = {
			data: {
				elicitations: [
					{ mode: "url", url: "https://a.example/1" },
					{ mode: "url", url: "https://a.example/2" },
				],
			},
		};
		const accept = async (_s: string, page: { url?: string }) => {
			shown.push(page.url ?? "");
			return { action: "accept" as const };
		};
		expect(await visitRequiredPages({ elicit: accept as never }, "s", error, undefined)).toBe(true);
		expect(shown).toEqual(["https://a.example/1", "https://a.example/2"]);
		const decline = async () => ({ action: "decline" as const });
		expect(await visitRequiredPages({ elicit: decline }, "s", error, undefined)).toBe(false);
		expect(await visitRequiredPages({}, "s", error, undefined)).toBe(false);
	});
});

describe("the route a tool call takes", () => {
	it("a 2025 server without a required task gets a plain tools/call, with the listed schema and the server's timeout", async () => {
		const sent: unknown[] = [];
		const client = {
			getServerCapabilities: () => ({}),
			getProtocolEra: () => "legacy",
			callTool: async (params: unknown, options: unknown) => {
				sent.push(params, options);
				return { content: [] };
			},
		};
		const connection = {
			...fakeConnection("slow", slow),
			client,
			tools: [{ name: "t", inputSchema: { type: "object" } }],
		};
		await sendToolCall(connection as unknown as ServerConnection, { name: "t", arguments: { a: 1 } }, {}, {});
		expect(sent[0]).toEqual({ name: "t", arguments: { a: 1 } });
		expect(sent[1]).toMatchObject({ timeout: 7000, toolDefinition: { name: "t", inputSchema: { type: "object" } } });
	});
});

describe("a server's list_changed", () => {
	afterEach(() => vi.useRealTimers());

	it("lists again once for a burst, after the first of it", () => {
		vi.useFakeTimers();
		const handlers = new Map<string, () => void>();
		const client = { setNotificationHandler: (method: string, handler: () => void) => handlers.set(method, handler) };
		let listed = 0;
		watchListChanges({ client } as never, () => listed++);
		handlers.get("notifications/tools/list_changed")?.();
		handlers.get("notifications/prompts/list_changed")?.();
		vi.advanceTimersByTime(LIST_AGAIN_AFTER_MS - 1);
		handlers.get("notifications/resources/list_changed")?.();
		expect(listed).toBe(0);
		vi.advanceTimersByTime(1);
		expect(listed).toBe(1);
		handlers.get("notifications/tools/list_changed")?.();
		vi.advanceTimersByTime(LIST_AGAIN_AFTER_MS);
		expect(listed).toBe(2);
	});
});
