// The connects a session makes on its own, in the background, never delaying Pi: eager and
// keep-alive servers at start, and servers with no cached tools once, to fill the cache (a lazy
// one then stays up a while for the call that usually follows). Shutdown lets them land while they
// make progress: a short `pi -p` run still leaves a cache behind.

import { mapLimit, within } from "../bounds/waits.ts";
import type { Pool, PooledConnection } from "../server-manager.ts";
import type { ServerEntry } from "../types.ts";

/** A lazy server started to fill the cache stays up this long for the call that usually follows. */
const FILL_KEEP_MS = 60_000;

export interface BackgroundStartsOptions<C extends PooledConnection> {
	readonly pool: Pool<C>;
	readonly now: () => number;
	/** Whether a server's tools are known already (a lazy one with cached tools is not started). */
	readonly known: (name: string) => boolean;
	/** Whether the gate lets the server run. */
	readonly allowed: (entry: ServerEntry) => boolean;
	readonly connect: (name: string) => Promise<C>;
	/** Closes a server on purpose (one started to fill the cache and left unused). */
	readonly close: (name: string) => Promise<void>;
	/** Whether the session is shutting down: what is still queued does not start. */
	readonly stopped: () => boolean;
	/** How many servers connect at once (default 10). */
	readonly parallelism?: number;
	/** How long a lazy server started only to fill the cache stays up for a call (default 60 s). */
	readonly fillKeepMs?: number;
	/** Shutdown waits for the fills as long as one finished within the last `fillStallMs` (default 3 s)... */
	readonly fillStallMs?: number;
	/** ...and never longer than `fillCapMs` (default 15 s). */
	readonly fillCapMs?: number;
}

export class BackgroundStarts<C extends PooledConnection> {
	/** Settles when every start so far (eager, keep-alive, cache fill) is done. */
	startup: Promise<void> = Promise.resolve();
	/** When a background connect last finished (succeeded or failed): shutdown waits while they keep coming. */
	private lastFill = 0;

	constructor(private readonly options: BackgroundStartsOptions<C>) {}

	/**
	 * Starts in the background the eager and keep-alive servers among `entries`, and those with no
	 * cached tools (lazy ones close after a while unused). Resolves when these are done; `startup`
	 * waits for them too.
	 */
	add(entries: readonly ServerEntry[]): Promise<void> {
		const { known, allowed } = this.options;
		const wanted = entries.filter((e) => allowed(e) && (e.lifecycle !== "lazy" || !known(e.name)));
		const work = mapLimit(wanted, this.options.parallelism ?? 10, async (entry) => {
			if (this.options.stopped()) return;
			try {
				const connection = await this.options.connect(entry.name);
				// A lazy server filled the cache: kept a little while, since the session that needed its
				// tools usually calls one next (a first `pi -p` started it twice); closed if unused.
				if (entry.lifecycle === "lazy") this.closeIfUnused(connection, this.options.fillKeepMs ?? FILL_KEEP_MS);
			} catch {
				// recorded as a failure; shown by status
			} finally {
				this.lastFill = this.options.now();
			}
		}).then(() => undefined);
		this.startup = Promise.all([this.startup, work]).then(() => undefined);
		return work;
	}

	/** Waits at most `ms` for the starts so far to finish. */
	async settled(ms: number): Promise<void> {
		await within(this.startup, ms);
	}

	/** Waits for the starts while they make progress: until done, stalled for `fillStallMs`, or at the cap. */
	async landed(): Promise<void> {
		const { now } = this.options;
		const stallMs = this.options.fillStallMs ?? 3000;
		const cap = now() + (this.options.fillCapMs ?? 15_000);
		let done = false;
		void this.startup.finally(() => (done = true));
		this.lastFill = Math.max(this.lastFill, now());
		while (!done && now() < cap) {
			const wait = Math.min(this.lastFill + stallMs, cap) - now();
			if (wait <= 0) return; // no connect finished for stallMs: the rest are not answering
			await within(this.startup, wait);
		}
	}

	/** Closes the connection after `ms` unless it was used meanwhile (then the idle sweep decides). */
	private closeIfUnused(connection: C, ms: number): void {
		const usedAt = connection.lastUsedAt;
		const timer = setTimeout(() => {
			if (this.options.stopped() || this.options.pool.get(connection.name) !== connection) return;
			if (connection.lastUsedAt === usedAt && connection.inFlight === 0) void this.options.close(connection.name);
		}, ms);
		timer.unref?.(); // never keeps Pi alive; shutdown closes everything anyway
	}
}
