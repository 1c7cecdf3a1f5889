// Live resources against a server built on the SDK v2 server package (tests/fixtures/live-resources.ts),
// which the test changes: a resource the session read is subscribed (2025 wire over stdio, the
// 2026-07-28 wire's subscriptions/listen over HTTP), an update is told once and the next read has
// the new content (over HTTP the client's cache would have served the old one for 10 minutes), at
// most 16 per server, subscribed again after a reconnect, unsubscribed at shutdown; through the
// shared broker one session leaving keeps another's subscription; and server-everything over
// streamable HTTP (2025) tells its subscribers too.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../../bounds/process-tree.ts";
import { McpRuntime } from "../../mcp-runtime.ts";
import { CACHE_FILE } from "../../metadata-cache.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import type { ResourceChange } from "../../transport/resource-subscriptions.ts";
import {
	freePort,
	ROOT,
	type RunningServer,
	startEverythingHttp,
	stopChild,
	TSX,
	tempDir,
	waitForPort,
	waitUntil,
} from "../support/helpers.ts";

const FIXTURE = join(ROOT, "tests", "fixtures", "live-resources.ts");
// A broker these tests start inherits this: it exits 1 s after its last server.
process.env.PI_MCP_BROKER_IDLE_MS = "1000";

/** Polls `probe` until `done` holds of its answer (a failed probe, such as a port not open yet, counts as not yet). */
async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
	for (;;) {
		const value = await probe().catch(() => undefined);
		if (value !== undefined && done(value)) return value;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

/** The fixture's control endpoints at `base`. */
function controlAt(base: string) {
	const call = async (path: string, method = "POST") =>
		(await fetch(`${base}/control/${path}`, { method })).json() as Promise<unknown>;
	return {
		set: (name: string, text: string) => call(`set?name=${name}&text=${encodeURIComponent(text)}`),
		add: (name: string) => call(`add?name=${name}`),
		subscribed: () => call("subscribed", "GET") as Promise<string[]>,
	};
}

/** A session's runtime over one config, started as Pi starts it, collecting what it is told. */
function session(dir: string, agentDir = join(dir, "agent")) {
	const runtime = new McpRuntime({
		cwd: dir,
		env: { ...process.env, PI_CODING_AGENT_DIR: agentDir },
		configPath: join(dir, "mcp.json"),
	});
	const changes: ResourceChange[] = [];
	runtime.onResourceChanged((change) => changes.push(change));
	runtime.start();
	const read = async (tool: string, args?: Record<string, unknown>) => {
		const answer = await runProxy(runtime.lifecycle, { tool, args }, {});
		const text = contentText(answer.content);
		if (answer.isError) throw new Error(text);
		return text;
	};
	return { runtime, changes, read };
}

describe.each([
	{ label: "stdio (2025 wire)", http: false },
	{ label: "HTTP (2026-07-28 wire: subscriptions/listen)", http: true },
])("live resources over $label", ({ http }) => {
	let dir: ReturnType<typeof tempDir>;
	let child: ChildProcess | undefined;
	let control: ReturnType<typeof controlAt>;
	let base: string;
	let live: ReturnType<typeof session>;
	const log = () => {
		try {
			return readFileSync(join(dir.path, "live.log"), "utf8");
		} catch {
			return "";
		}
	};

	beforeAll(async () => {
		dir = tempDir();
		const port = await freePort();
		const env = { LIVE_LOG: join(dir.path, "live.log") };
		if (http) {
			child = spawn(process.execPath, [TSX, FIXTURE, "http", String(port)], {
				env: { ...process.env, ...env },
				stdio: "ignore",
			});
			await waitForPort(port, child);
		}
		const entry = http
			? { url: `http://127.0.0.1:${port}/mcp` }
			: { command: process.execPath, args: [TSX, FIXTURE, "stdio", String(port)], env };
		writeFileSync(join(dir.path, "mcp.json"), JSON.stringify({ mcpServers: { live: entry } }));
		base = `http://127.0.0.1:${port}`;
		control = controlAt(base);
		live = session(dir.path);
	}, 60_000);
	afterAll(async () => {
		await live?.runtime.shutdown();
		if (child) await stopChild(child);
		dir?.remove();
	});

	it("a resource read is followed: its update is told once, and the next read has the new content", async () => {
		expect(await live.read("live_get_status")).toContain("status v0");
		if (!http) await until(control.subscribed, (uris) => uris.includes("note://status"));
		// Over HTTP the update travels on the listen stream, which opens after the read: sent until it arrives.
		await until(
			() => control.set("status", "status v1"),
			() => live.changes.length > 0,
		);
		expect(live.changes).toEqual([{ server: "live", uri: "note://status" }]);
		expect(await live.read("live_get_status")).toContain("status v1");
		if (!http) {
			// Two updates before the next read: told once.
			await control.set("status", "status v2");
			await control.set("status", "status v3");
			expect(await live.read("live_get_status")).toContain("status v3");
			expect(live.changes).toHaveLength(2);
		}
	}, 60_000);

	it("a resource never read is not subscribed, and its update is not told", async () => {
		const before = live.changes.length;
		await control.set("other", "other v1");
		if (!http) expect(await control.subscribed()).toEqual(["note://status"]);
		// The read of another resource after it: whatever the update did has arrived by then (stdio: one pipe).
		expect(await live.read("live_get_status")).toContain("status v");
		expect(live.changes.slice(before)).toEqual([]);
	}, 60_000);

	it("a reconnect subscribes again what the session read", async () => {
		await live.runtime.lifecycle.reconnect("live");
		if (!http) await until(control.subscribed, (uris) => uris.includes("note://status"));
		const before = live.changes.length;
		await until(
			() => control.set("status", "status after reconnect"),
			() => live.changes.length > before,
		);
		expect(await live.read("live_get_status")).toContain("status after reconnect");
	}, 60_000);

	it.runIf(http)(
		"a one-shot run (the CLI's: never started) follows nothing it reads",
		async () => {
			const oneShot = new McpRuntime({
				cwd: dir.path,
				env: { ...process.env, PI_CODING_AGENT_DIR: join(dir.path, "agent") },
				configPath: join(dir.path, "mcp.json"),
			});
			try {
				const answer = await runProxy(oneShot.lifecycle, { tool: "live_get_status" }, {});
				expect(contentText(answer.content)).toContain("status");
				expect(oneShot.lifecycle.subscriptions.followed("live")).toEqual([]);
			} finally {
				await oneShot.shutdown();
			}
		},
		60_000,
	);

	it.runIf(!http)(
		"at most 16 per server: the resource read longest ago is unsubscribed",
		async () => {
			for (let n = 0; n < 17; n++) await live.read("live_get_note", { name: `n${n}` });
			const expected = Array.from({ length: 16 }, (_, n) => `note://n${n + 1}`).sort();
			await until(control.subscribed, (uris) => JSON.stringify(uris) === JSON.stringify(expected));
			expect(log()).toMatch(/ unsubscribe note:\/\/n0\n/);
			expect(live.runtime.lifecycle.subscriptions.followed("live")).toHaveLength(16);
		},
		60_000,
	);

	it("resources/list_changed: the listing and the cache follow (on the 2026 wire, asked for on the listen stream)", async () => {
		const listed = () => live.runtime.lifecycle.catalog.forServer("live").some((t) => t.resourceUri === "note://fresh");
		await live.runtime.lifecycle.ensureConnected("live"); // listed before the change
		expect(listed()).toBe(false);
		// Over HTTP the stream that carries it opens after the connect: added until the change arrives.
		await until(
			() => control.add("fresh"),
			() => listed(),
		);
		await waitUntil(
			() => {
				const cache = join(dir.path, "agent", CACHE_FILE);
				return existsSync(cache) && readFileSync(cache, "utf8").includes("note://fresh");
			},
			"the cache file to list note://fresh",
			60_000, // the test's own timeout bounds it
		);
	}, 60_000);

	it.runIf(!http)(
		"a server telling list changes every 20 ms is still listed again",
		async () => {
			const listed = () =>
				live.runtime.lifecycle.catalog.forServer("live").some((t) => t.resourceUri === "note://churned");
			await live.runtime.lifecycle.ensureConnected("live");
			await until(
				() => fetch(`${base}/control/churn?name=churned`, { method: "POST" }),
				(response) => response.ok,
			);
			try {
				await waitUntil(listed, "the catalog to list note://churned while changes keep coming", 60_000); // the test's timeout bounds it
			} finally {
				await fetch(`${base}/control/calm`, { method: "POST" });
			}
		},
		60_000,
	);

	it.runIf(!http)(
		"shutdown unsubscribes before the server is closed",
		async () => {
			const pid = Number(log().trim().split("\n").at(-1)?.split(" ")[0]);
			await live.runtime.shutdown();
			await waitUntil(() => !isAlive(pid), "the server to exit", 20_000);
			const lines = log()
				.split("\n")
				.filter((line) => line.startsWith(`${pid} `));
			expect(lines.filter((line) => line.includes(" unsubscribe ")).length).toBeGreaterThan(0);
			const left = new Set<string>();
			for (const line of lines) {
				const [, verb, uri] = line.split(" ");
				if (verb === "subscribe") left.add(uri);
				else left.delete(uri);
			}
			expect([...left]).toEqual([]);
		},
		60_000,
	);
});

describe("live resources of a server closed when idle", () => {
	let dir: ReturnType<typeof tempDir>;
	let live: ReturnType<typeof session>;

	beforeAll(async () => {
		dir = tempDir();
		const port = await freePort();
		const entry = {
			command: process.execPath,
			args: [TSX, FIXTURE, "stdio", String(port)],
			env: { LIVE_LOG: join(dir.path, "live.log") },
			idleTimeout: 0.001, // 60 ms unused
		};
		writeFileSync(join(dir.path, "mcp.json"), JSON.stringify({ mcpServers: { live: entry } }));
		live = session(dir.path);
	});
	afterAll(async () => {
		await live?.runtime.shutdown();
		dir?.remove();
	});

	it("is unsubscribed before it is closed, and what it followed is forgotten", async () => {
		await live.read("live_get_status");
		const log = () => (existsSync(join(dir.path, "live.log")) ? readFileSync(join(dir.path, "live.log"), "utf8") : "");
		await waitUntil(() => log().includes(" subscribe note://status"), "the subscription", 60_000);
		const pid = Number(log().split(" ")[0]);
		const { lifecycle } = live.runtime;
		await until(
			() => lifecycle.tick().then(() => lifecycle.state("live")),
			(state) => state === "idle",
		);
		await waitUntil(() => !isAlive(pid), "the idle server to exit", 20_000);
		expect(log()).toContain(`${pid} unsubscribe note://status`);
		expect(lifecycle.subscriptions.followed("live")).toEqual([]);
	}, 60_000);
});

describe("live resources of a server shared through the broker", () => {
	let dir: ReturnType<typeof tempDir>;
	let control: ReturnType<typeof controlAt>;
	const sessions: ReturnType<typeof session>[] = [];
	const log = () => readFileSync(join(dir.path, "live.log"), "utf8");

	beforeAll(async () => {
		dir = tempDir();
		const port = await freePort();
		const entry = {
			command: process.execPath,
			args: [TSX, FIXTURE, "stdio", String(port)],
			env: { LIVE_LOG: join(dir.path, "live.log") },
			share: true,
			idleTimeout: 0.02, // it lingers ~1 s after its last session
		};
		writeFileSync(join(dir.path, "mcp.json"), JSON.stringify({ mcpServers: { live: entry } }));
		control = controlAt(`http://127.0.0.1:${port}`);
	});
	afterEach(async () => {
		await Promise.all(sessions.map((s) => s.runtime.shutdown()));
	});
	afterAll(async () => {
		const pids = (() => {
			try {
				return [
					...new Set(
						log()
							.split("\n")
							.filter(Boolean)
							.map((line) => Number(line.split(" ")[0])),
					),
				];
			} catch {
				return [];
			}
		})();
		await waitUntil(() => pids.every((pid) => !isAlive(pid)), "the shared server to exit", 30_000);
		dir?.remove();
	});

	it("one session leaving keeps another's subscription; updates reach the session that subscribed", async () => {
		const a = session(dir.path);
		const b = session(dir.path);
		sessions.push(a, b);
		expect(await a.read("live_get_status")).toContain("status v0");
		expect(await b.read("live_get_status")).toContain("status v0");
		expect(await b.read("live_get_other")).toContain("other v0");
		expect(a.runtime.lifecycle.isShared("live") && b.runtime.lifecycle.isShared("live")).toBe(true);
		await until(control.subscribed, (uris) => uris.length === 2);
		// The server heard one subscribe per URI: the broker answered the second session's itself.
		expect(log().match(/ subscribe note:\/\/status/g)).toHaveLength(1);

		await control.set("other", "other v1");
		await until(
			async () => b.changes,
			(changes) => changes.length === 1,
		);
		expect(b.changes).toEqual([{ server: "live", uri: "note://other" }]);

		await a.runtime.shutdown(); // a's unsubscribe stays in the broker: b still wants note://status
		expect(await control.subscribed()).toEqual(["note://other", "note://status"]);
		await control.set("status", "status v1");
		await until(
			async () => b.changes,
			(changes) => changes.length === 2,
		);
		expect(a.changes).toEqual([]);
		expect(await b.read("live_get_status")).toContain("status v1");

		await b.runtime.shutdown(); // the last session: the server is told
		expect(await until(control.subscribed, (uris) => uris.length === 0)).toEqual([]);
	}, 90_000);
});

describe("server-everything over streamable HTTP (2025 wire)", () => {
	let server: RunningServer;
	let dir: ReturnType<typeof tempDir>;
	let live: ReturnType<typeof session>;

	beforeAll(async () => {
		server = await startEverythingHttp("streamableHttp");
		dir = tempDir();
		const entry = { url: `http://127.0.0.1:${server.port}/mcp` };
		writeFileSync(join(dir.path, "mcp.json"), JSON.stringify({ mcpServers: { everything: entry } }));
		live = session(dir.path);
	}, 60_000);
	afterAll(async () => {
		await live?.runtime.shutdown();
		await server?.stop();
		dir?.remove();
	});

	it("a resource read is subscribed, and its update (the server's simulated one) is told", async () => {
		const listed = live.runtime.lifecycle.catalog;
		await live.runtime.lifecycle.ensureMetadata(["everything"]);
		const tool = listed
			.forServer("everything")
			.find((t) => t.resourceUri?.startsWith("demo://resource/static/document"));
		expect(tool).toBeDefined();
		await live.read(tool?.qualifiedName as string);
		// Its simulated updates go to every resource subscribed, at once and then every 5 s.
		await live.read("everything_toggle-subscriber-updates");
		await until(
			async () => live.changes,
			(changes) => changes.length > 0,
		);
		expect(live.changes[0]).toEqual({ server: "everything", uri: tool?.resourceUri });
	}, 60_000);
});
