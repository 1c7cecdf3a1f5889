// server-lifecycle/background-starts.ts over the typed fake pool, on vitest's fake clock: which
// servers a session starts on its own, how long a lazy one started to fill the cache stays up, and
// how long a shutdown waits for those starts.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BackgroundStarts } from "../../../server-lifecycle/background-starts.ts";
import type { ServerEntry } from "../../../types.ts";
import { type FakeConnection, FakePool } from "../../support/fake-pool.ts";
import { configOf } from "../../support/helpers.ts";

const TOOL = { name: "t", description: "a tool", inputSchema: { type: "object" } };
const SECOND = 1000;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** Background starts of fake servers, each a config entry with the given `lifecycle`. */
function startsOf(
	lifecycles: Record<string, string>,
	options: { connect?: (name: string) => Promise<FakeConnection> } = {},
) {
	const config = configOf(
		Object.fromEntries(Object.entries(lifecycles).map(([n, l]) => [n, { command: "fake", lifecycle: l }])),
	);
	const pool = new FakePool(Object.fromEntries(Object.keys(lifecycles).map((n) => [n, { tools: [TOOL] }])));
	const known = new Set<string>();
	let stopped = false;
	const starts = new BackgroundStarts({
		pool,
		now: Date.now,
		known: (name) => known.has(name),
		allowed: (entry) => entry.name !== "held",
		connect: options.connect ?? ((name) => pool.connect(config.servers.get(name) as ServerEntry)),
		close: (name) => pool.close(name),
		stopped: () => stopped,
		parallelism: 1,
		fillKeepMs: 60 * SECOND,
	});
	return { starts, pool, known, entries: [...config.servers.values()], stop: () => (stopped = true) };
}

describe("the starts a session makes on its own (server-lifecycle/background-starts.ts)", () => {
	it("starts eager and keep-alive servers, and a lazy one only when its tools are not known", async () => {
		const { starts, pool, known, entries } = startsOf({
			e: "eager",
			k: "keep-alive",
			cached: "lazy",
			fresh: "lazy",
			held: "eager",
		});
		known.add("cached");
		await starts.add(entries);
		await starts.startup;
		expect(pool.connects).toEqual(["e", "k", "fresh"]);
	});

	it("closes a lazy server started to fill the cache when unused for a minute, not one a call used", async () => {
		const { starts, pool, entries } = startsOf({ used: "lazy", unused: "lazy", eager: "eager" });
		await starts.add(entries);
		await vi.advanceTimersByTimeAsync(30 * SECOND);
		await pool.callTool("used", "t", {});
		await vi.advanceTimersByTimeAsync(30 * SECOND);
		expect(pool.connectedNames().sort()).toEqual(["eager", "used"]);
	});

	it("lets a shutdown wait while starts land, and stop waiting once none has landed for 3 s", async () => {
		let land: (error: Error) => void = () => undefined;
		const connect = (name: string) =>
			new Promise<FakeConnection>((_, reject) => {
				if (name === "quick") land = reject; // "hung" never answers
			});
		const { starts, entries } = startsOf({ quick: "eager", hung: "eager" }, { connect });
		void starts.add(entries);
		let landed = false;
		void starts.landed().then(() => (landed = true));
		await vi.advanceTimersByTimeAsync(2 * SECOND);
		land(new Error("quick failed")); // a start landed: the wait goes on
		await vi.advanceTimersByTimeAsync(2.9 * SECOND);
		expect(landed).toBe(false);
		await vi.advanceTimersByTimeAsync(0.1 * SECOND);
		expect(landed).toBe(true);
	});

	it("starts nothing still queued once the session stops", async () => {
		const asked: string[] = [];
		let fail: (error: Error) => void = () => undefined;
		const connect = (name: string) => {
			asked.push(name);
			return new Promise<FakeConnection>((_, reject) => (fail = reject));
		};
		const { starts, entries, stop } = startsOf({ first: "eager", second: "eager" }, { connect });
		const work = starts.add(entries);
		await vi.advanceTimersByTimeAsync(0);
		stop();
		fail(new Error("first crashed"));
		await work;
		expect(asked).toEqual(["first"]);
	});
});
