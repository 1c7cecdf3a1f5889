// server-lifecycle/connector.ts over the typed fake pool: what a request goes through before it
// reaches a server (the gate, the backoff, one connect for every caller) and what it leaves behind.
import { describe, expect, it } from "vitest";
import { Connector } from "../../../server-lifecycle/connector.ts";
import { FailureLog } from "../../../server-lifecycle/failures.ts";
import { ServerRoster } from "../../../server-lifecycle/roster.ts";
import type { GateState } from "../../../trust/project-approval.ts";
import { FakePool, type FakeServer } from "../../support/fake-pool.ts";
import { configOf } from "../../support/helpers.ts";

const TOOL = { name: "t", description: "a tool", inputSchema: { type: "object" } };

/** A connector over fake servers `names`; `known` servers have their tools already (cached). */
function connectorOver(servers: Record<string, Partial<FakeServer>>, options: { gate?: () => GateState } = {}) {
	let now = 1_000_000;
	const config = configOf(Object.fromEntries(Object.keys(servers).map((n) => [n, { command: "fake" }])));
	const pool = new FakePool(
		Object.fromEntries(Object.entries(servers).map(([n, s]) => [n, { tools: [TOOL], ...s }])),
		() => now,
	);
	const roster = new ServerRoster(config, options.gate);
	const failures = new FailureLog({ now: () => now, backoffMs: 60_000 });
	const known = new Set<string>();
	const connector = new Connector({ roster, pool, failures, known: (n) => known.has(n), stopped: () => false });
	return { connector, pool, failures, known, pass: (ms: number) => (now += ms) };
}

describe("what a request goes through to reach a server (server-lifecycle/connector.ts)", () => {
	it("never starts a server the gate holds or the config does not name", async () => {
		const { connector, pool } = connectorOver({ x: {} }, { gate: () => "denied" });
		await expect(connector.ensureConnected("x")).rejects.toThrow('Server "x" was denied by the user');
		await expect(connector.ensureConnected("y")).rejects.toThrow('Unknown server "y"');
		await expect(connector.reconnect("x")).rejects.toThrow("was denied");
		expect(await connector.ensureMetadata(["x"])).toEqual([]);
		expect(pool.connects).toEqual([]);
	});

	it("records a failed connect once, fails fast after it, and starts again at a reconnect", async () => {
		const { connector, pool, failures } = connectorOver({ x: { failConnect: new Error("spawn fake ENOENT") } });
		await expect(connector.ensureConnected("x")).rejects.toThrow("spawn fake ENOENT");
		await expect(connector.ensureCallable("x")).rejects.toThrow('Server "x" not available (failed 0s ago)');
		expect(connector.unlisted(["x"])).toEqual([]);
		pool.servers.x.failConnect = undefined;
		await connector.reconnect("x");
		expect(pool.connects).toEqual(["x", "x"]);
		expect(failures.get("x")).toBeUndefined();
	});

	it("does not count a caller giving up as the server's failure", async () => {
		const { connector, pool, failures } = connectorOver({ x: { failConnect: new Error("slow to start") } });
		const gaveUp = AbortSignal.abort();
		await expect(connector.ensureConnected("x", gaveUp)).rejects.toThrow("slow to start");
		expect(failures.get("x")).toBeUndefined();
		await expect(connector.ensureConnected("x")).rejects.toThrow("slow to start"); // tried again, not failing fast
		expect(pool.connects).toEqual(["x", "x"]);
	});

	it("fills what is missing: connects the servers with no known tools, says which are still not listed", async () => {
		const { connector, pool, known, pass } = connectorOver({ a: {}, b: {}, c: { failConnect: new Error("crashed") } });
		known.add("a");
		expect(connector.unlisted()).toEqual(["b", "c"]);
		expect(await connector.ensureMetadata()).toEqual(["b"]); // connected, but nobody recorded its tools here
		expect(pool.connects).toEqual(["b", "c"]);
		expect(connector.unlisted()).toEqual(["b"]); // c fails fast: no answer waits for it
		pass(60_000);
		expect(connector.unlisted()).toEqual(["b", "c"]);
	});

	it("tells whether a listing under way landed, without starting anything", async () => {
		const { connector, pool } = connectorOver({ x: {} });
		expect(await connector.listingLanded("x")).toBe(false);
		const connecting = connector.ensureConnected("x");
		expect(await connector.listingLanded("x")).toBe(true);
		await connecting;
		expect(pool.connects).toEqual(["x"]);
	});
});
