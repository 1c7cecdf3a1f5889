// server-lifecycle/sweep.ts over the typed fake pool, on vitest's fake clock: which servers the
// periodic sweep closes as idle, and how it brings back a keep-alive server that stopped answering.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Sweep } from "../../../server-lifecycle/sweep.ts";
import type { ServerEntry } from "../../../types.ts";
import { FakePool } from "../../support/fake-pool.ts";
import { configOf } from "../../support/helpers.ts";

const TOOL = { name: "t", description: "a tool", inputSchema: { type: "object" } };
const MINUTE = 60_000;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A sweep over fake servers, each connected, with the given config entries (settings' idleTimeout 10 min). */
async function sweepOver(entries: Record<string, Record<string, unknown>>) {
	const config = configOf(Object.fromEntries(Object.entries(entries).map(([n, e]) => [n, { command: "fake", ...e }])), {
		idleTimeout: 10,
	});
	const pool = new FakePool(Object.fromEntries(Object.keys(entries).map((n) => [n, { tools: [TOOL] }])));
	const retried: string[] = [];
	const sweep = new Sweep({
		pool,
		config: () => config,
		now: Date.now,
		close: (name) => pool.close(name),
		retryNow: (name) => {
			retried.push(name);
			return pool.connect(config.servers.get(name) as ServerEntry);
		},
	});
	for (const entry of config.servers.values()) await pool.connect(entry);
	return { sweep, pool, retried, entry: (name: string) => config.servers.get(name) as ServerEntry };
}

describe("the periodic sweep (server-lifecycle/sweep.ts)", () => {
	it("closes a lazy server after the settings' idle minutes, an eager one only after its own, a keep-alive one never", async () => {
		const { sweep, entry } = await sweepOver({
			lazy: {},
			own: { lifecycle: "lazy", idleTimeout: 2 },
			eager: { lifecycle: "eager" },
			eagerOwn: { lifecycle: "eager", idleTimeout: 5 },
			keep: { lifecycle: "keep-alive", idleTimeout: 5 },
			never: { idleTimeout: 0 },
		});
		const minutes = ["lazy", "own", "eager", "eagerOwn", "keep", "never"].map((n) => sweep.idleMinutes(entry(n)));
		expect(minutes).toEqual([10, 2, undefined, 5, undefined, undefined]);
	});

	it("closes the servers idle past their minutes at a tick, and no other", async () => {
		const { sweep, pool } = await sweepOver({ lazy: {}, own: { idleTimeout: 2 }, eager: { lifecycle: "eager" } });
		await vi.advanceTimersByTimeAsync(2 * MINUTE);
		await sweep.tick();
		expect(pool.connectedNames()).toEqual(["lazy", "eager"]);
		await vi.advanceTimersByTimeAsync(8 * MINUTE);
		await sweep.tick();
		expect(pool.connectedNames()).toEqual(["eager"]);
	});

	it("connects a keep-alive server again when it stops answering, and leaves one that answers", async () => {
		const { sweep, pool, retried } = await sweepOver({ keep: { lifecycle: "keep-alive" } });
		await sweep.tick();
		expect(retried).toEqual([]);
		pool.servers.keep.deaf = true;
		await sweep.tick();
		expect(retried).toEqual(["keep"]);
		expect(pool.connects).toEqual(["keep", "keep"]);
	});

	it("sweeps on its timer until stopped", async () => {
		const { sweep, pool } = await sweepOver({ a: { idleTimeout: 1 }, b: { idleTimeout: 3 } });
		sweep.start(MINUTE);
		await vi.advanceTimersByTimeAsync(MINUTE);
		expect(pool.connectedNames()).toEqual(["b"]);
		sweep.stop();
		await vi.advanceTimersByTimeAsync(5 * MINUTE);
		await sweep.tick();
		expect(pool.connectedNames()).toEqual(["b"]);
	});
});
