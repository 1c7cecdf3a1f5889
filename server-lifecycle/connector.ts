// What a request goes through to reach a server: the gate, the backoff after a failure, then the
// pool's connect (joined when one is under way), or only its initialize for a call to a tool the
// catalog knows; a failure is recorded once, for every caller after. The one connect path: the
// startup fill, the search fill, a call, a reconnect and the npx resolution all come here.

import { mapLimit, within } from "../bounds/waits.ts";
import type { Pool, PooledConnection } from "../server-manager.ts";
import type { ServerEntry } from "../types.ts";
import type { FailureLog } from "./failures.ts";
import type { ServerRoster } from "./roster.ts";

export interface ConnectorOptions<C extends PooledConnection> {
	readonly roster: ServerRoster;
	readonly pool: Pool<C>;
	readonly failures: FailureLog;
	/** Whether a server's metadata is known (listed, or cached). */
	readonly known: (name: string) => boolean;
	/** Whether the session is shutting down: a listing cut short then is no failure of the server's. */
	readonly stopped: () => boolean;
	/** How many servers connect at once when several are needed (default 10). */
	readonly parallelism?: number;
}

export class Connector<C extends PooledConnection> {
	constructor(private readonly options: ConnectorOptions<C>) {}

	/**
	 * Connects a configured server (or reuses its connection); `signal` stops this caller's wait.
	 * `ahead`: a start before any call (start-up/streamed-call.ts), whose failure is told to the call that follows.
	 */
	async ensureConnected(name: string, signal?: AbortSignal, ahead = false): Promise<C> {
		return this.connectFor(name, signal, ahead ? "ahead" : "listed");
	}

	/**
	 * As `ensureConnected` for a call to a tool the catalog knows: resolves once the server is
	 * initialized, so the call goes out while the server's listing goes on (recorded when it lands;
	 * a listing that fails then is the server's failure, as any connect's). Whether it was listed
	 * by then: `listed(name)`.
	 */
	async ensureCallable(name: string, signal?: AbortSignal): Promise<void> {
		await this.connectFor(name, signal, "opened");
	}

	/** Whether the server's connection was listed (a call may go out before: `ensureCallable`). */
	listed(name: string): boolean {
		return this.options.pool.get(name) !== undefined;
	}

	/** Once the listing under way (if any) lands: whether the server is listed. Never connects. */
	async listingLanded(name: string): Promise<boolean> {
		const listing = this.options.pool.listing(name);
		return listing
			? listing.then(
					() => true,
					() => false,
				)
			: this.listed(name);
	}

	/**
	 * Closes and connects again, refreshing metadata and cache; clears a failure backoff. A connect
	 * already under way (the first run's cache fill, a call's) is joined, not cancelled: it is as
	 * fresh as a new one would be.
	 */
	async reconnect(name: string, signal?: AbortSignal): Promise<C> {
		const { roster, failures, pool } = this.options;
		const blocked = roster.blocked(name);
		if (blocked) throw new Error(blocked);
		roster.entry(name);
		failures.clear(name);
		if (!pool.connecting(name)) await pool.close(name);
		return this.ensureConnected(name, signal);
	}

	/**
	 * Makes sure every named server (default: all) has metadata, connecting those that lack it.
	 * With `waitMs`, waits at most that long (the connects go on in the background), and `signal`
	 * ends the wait; returns the servers still starting. Without either, waits for the connects
	 * themselves, which end: each within its install budget and connect deadline.
	 */
	async ensureMetadata(
		names: readonly string[] = this.options.roster.serverNames(),
		waitMs?: number,
		signal?: AbortSignal,
	): Promise<string[]> {
		const { roster, failures, known } = this.options;
		const missing = names.filter((n) => !known(n) && !roster.blocked(n));
		const work = mapLimit(missing, this.options.parallelism ?? 10, (name) =>
			// A failed connect is recorded per server (state, backoff); the caller asks for what is missing.
			this.ensureConnected(name).catch(() => undefined),
		);
		await within(work, waitMs, signal);
		return missing.filter((n) => !known(n) && !failures.get(n));
	}

	/**
	 * The servers among `names` whose tools an answer would wait for: not known yet, and able to run
	 * now (not blocked, not failing fast after a failure). A connect under way is one of them.
	 */
	unlisted(names: readonly string[] = this.options.roster.serverNames()): string[] {
		const { roster, failures, known, pool } = this.options;
		return names.filter((name) => {
			if (known(name) || roster.blocked(name) || !roster.config.servers.has(name)) return false;
			return !failures.backingOff(name) || pool.connecting(name);
		});
	}

	/** Records why a server is not available now and returns the error to show (see `FailureLog.record`). */
	failed(name: string, raw: unknown, ahead = false): unknown {
		const entry = this.options.roster.config.servers.get(name);
		return this.options.failures.record(name, raw, { entry, challenge: this.options.pool.challenge(name), ahead });
	}

	private async connectFor(
		name: string,
		signal: AbortSignal | undefined,
		wait: "listed" | "ahead" | "opened",
	): Promise<C> {
		const { roster, failures, pool } = this.options;
		const ahead = wait === "ahead";
		const blocked = roster.blocked(name);
		if (blocked) throw new Error(blocked);
		const entry = roster.entry(name);
		const existing = pool.get(name);
		if (existing) return existing;
		failures.failFast(name, ahead);
		try {
			if (wait === "opened") return await this.opened(entry, signal);
			const connection = await pool.connect(entry, signal);
			failures.clear(name); // its metadata was recorded by the "connected" event
			return connection;
		} catch (raw) {
			if (signal?.aborted) throw raw; // this caller gave up; the connect itself goes on
			throw this.failed(name, raw, ahead);
		}
	}

	/** The server initialized; its listing's outcome is recorded when it lands. */
	private async opened(entry: ServerEntry, signal: AbortSignal | undefined): Promise<C> {
		const { roster, failures, pool } = this.options;
		const connection = await pool.opened(entry, signal);
		const listing = pool.listing(entry.name);
		if (!listing) failures.clear(entry.name); // listed already
		listing?.then(
			() => failures.clear(entry.name),
			(raw) => {
				// Closed on purpose (shutdown, a reconfigure) is no failure of the server's.
				if (!this.options.stopped() && roster.config.servers.get(entry.name) === entry) this.failed(entry.name, raw);
			},
		);
		return connection;
	}
}
