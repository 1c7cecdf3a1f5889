// What a cold start waits for, and what it need not. A stdio server starts before the SDK loads (the
// session's first connect): here the SDK's load holds the event loop until the server has begun,
// which never happens if the start waits for the SDK. A call to a tool the cache knows goes out as soon as its
// server is initialized, not after the server has listed its tools, resources, templates and
// prompts; the listing goes on and lands whole in the catalog and the cache. The fixture server
// answers tools/list only after it answered a call: a call that waited for the listing would wait
// for ever (until the connect deadline).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ServerLifecycle } from "../../lifecycle.ts";
import { MetadataCache } from "../../metadata-cache.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { McpServerManager } from "../../server-manager.ts";
import { loadSdk } from "../../transport/mcp-sdk.lazy.ts";
import { openConnection } from "../../transport/open-connection.ts";
import { Redactor } from "../../trust/redaction.ts";
import type { ToolMetadata } from "../../types.ts";
import { configOf, entryOf, faultStdio, markerServer, tempDir } from "../support/helpers.ts";

const tool = (name: string): ToolMetadata => ({
	server: "slow",
	name,
	description: `The ${name} tool`,
	inputSchema: { type: "object", properties: { text: { type: "string" } } },
});

describe("a call sent before the server's listing", () => {
	const cleanups: (() => unknown)[] = [];
	afterEach(async () => {
		for (const clean of cleanups.splice(0).reverse()) await clean();
	});

	/** A session whose cache knows `cached` of the server's tools (a listing from a run before). */
	async function session(cached: ToolMetadata[], mode = "list-after-call") {
		const dir = tempDir();
		cleanups.push(dir.remove);
		const config = configOf({ slow: faultStdio(mode) });
		await new MetadataCache(dir.path).store(entryOf(config, "slow"), { tools: cached, resources: [] });
		const cache = new MetadataCache(dir.path);
		const lifecycle = new ServerLifecycle({ config, manager: new McpServerManager(), cache });
		cleanups.push(() => lifecycle.shutdown());
		lifecycle.start();
		/** What a later session finds in the cache. */
		const later = () => new MetadataCache(dir.path).lookup(entryOf(config, "slow"))?.tools.map((t) => t.name);
		return { lifecycle, cache, later };
	}

	it("answers from a server whose listing is not in yet; the listing then lands whole", async () => {
		const { lifecycle, cache, later } = await session([tool("echo")]);
		const call = await runProxy(lifecycle, { tool: "slow_echo", args: { text: "early" } });
		expect(contentText(call.content)).toBe("echo: early");
		await lifecycle.ensureConnected("slow");
		const listed = lifecycle.catalog.forServer("slow").map((t) => t.name);
		expect(listed).toEqual(["echo", "blast", "hang"]);
		expect(lifecycle.state("slow")).toBe("connected");
		await cache.flush();
		expect(later()).toEqual(["echo", "blast", "hang"]);
	});

	it("goes out before the server is asked for its listing (a server answers in the order it is asked)", async () => {
		const { lifecycle } = await session([tool("echo")], "asked-before");
		const call = await runProxy(lifecycle, { tool: "slow_echo", args: { text: "early" } });
		expect(contentText(call.content)).toBe("echo: early (asked before: initialize)");
		await lifecycle.ensureConnected("slow");
		expect(lifecycle.catalog.forServer("slow").map((t) => t.name)).toEqual(["echo", "blast", "hang"]);
	});

	it("a tool the cache named that the server no longer has is told as such once the listing is in", async () => {
		const { lifecycle } = await session([tool("echo"), tool("vanished")]);
		const call = await runProxy(lifecycle, { tool: "slow_vanished", args: { text: "x" } });
		expect(contentText(call.content)).toContain('Server "slow" no longer has a tool "vanished".');
		expect(lifecycle.state("slow")).toBe("connected");
	});
});

describe("a stdio server's start", () => {
	// A start's budget on a loaded machine (the test waits for the event, never for a time).
	const START_MS = 120_000;
	it("begins before the SDK loads (which holds the event loop), and the client speaks to it once the SDK is there", {
		timeout: START_MS * 2,
	}, async () => {
		const dir = tempDir();
		const marker = join(dir.path, "started");
		try {
			const entry = entryOf(configOf({ everything: markerServer(marker) }), "everything");
			// Loading the SDK holds the event loop, as it does in Pi: here until the server has begun,
			// which it never does if its spawn waits behind the load.
			let began = false;
			const sdk = () => {
				const until = Date.now() + START_MS;
				while (!existsSync(marker) && Date.now() < until)
					Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
				began = existsSync(marker);
				return loadSdk();
			};
			const redactor = new Redactor({});
			const options = { env: process.env, auth: { agentDir: dir.path, env: {} }, redactor };
			const opened = await openConnection(sdk, entry, { ...options, connectTimeoutMs: 60_000, maxMessageBytes: 1e8 });
			try {
				expect(began).toBe(true);
				expect(opened.client.getServerVersion()?.name).toContain("everything");
			} finally {
				await opened.close();
			}
		} finally {
			dir.remove();
		}
	});
});
