// The periodic sweep over running servers: one unref'd timer (30 s) closes the servers idle past
// their idleTimeout (never one with a call in flight) and health-checks keep-alive ones, connecting
// again a server that stopped answering.

import type { Pool, PooledConnection } from "../server-manager.ts";
import type { McpConfig, ServerEntry } from "../types.ts";

export interface SweepOptions<C extends PooledConnection> {
	readonly pool: Pool<C>;
	readonly config: () => McpConfig;
	readonly now: () => number;
	/** Closes a server on purpose (idle). */
	readonly close: (name: string) => Promise<void>;
	/** Connects a keep-alive server that is down, past its failure backoff: it retries on every check. */
	readonly retryNow: (name: string) => Promise<unknown>;
}

export class Sweep<C extends PooledConnection> {
	private timer?: ReturnType<typeof setInterval>;
	private ticking = false;
	private halted = false;

	constructor(private readonly options: SweepOptions<C>) {}

	/** Sweeps every `tickMs` from now on. */
	start(tickMs: number): void {
		this.timer = setInterval(() => void this.tick(), tickMs);
		this.timer.unref?.(); // never keeps Pi (or the CLI) alive
	}

	/** No sweep from here on (one under way ends on its own). */
	stop(): void {
		if (this.timer) clearInterval(this.timer);
		this.halted = true;
	}

	/** One sweep: close idle servers, health-check keep-alive ones. */
	async tick(): Promise<void> {
		if (this.ticking || this.halted) return;
		this.ticking = true;
		try {
			const { pool, now } = this.options;
			const work: Promise<unknown>[] = [];
			for (const entry of this.options.config().servers.values()) {
				const connection = pool.get(entry.name);
				const idle = this.idleMinutes(entry);
				if (
					connection &&
					idle !== undefined &&
					connection.inFlight === 0 &&
					now() - connection.lastUsedAt >= idle * 60_000
				) {
					work.push(this.options.close(entry.name));
				} else if (entry.lifecycle === "keep-alive") {
					work.push(this.checkHealth(entry));
				}
			}
			await Promise.allSettled(work);
		} finally {
			this.ticking = false;
		}
	}

	/** Minutes of idleness after which a server is closed; undefined = never. */
	idleMinutes(entry: ServerEntry): number | undefined {
		if (entry.lifecycle === "keep-alive") return undefined;
		const fallback = entry.lifecycle === "lazy" ? this.options.config().settings.idleTimeout : undefined;
		const minutes = entry.idleTimeout ?? fallback;
		return minutes && minutes > 0 ? minutes : undefined;
	}

	private async checkHealth(entry: ServerEntry): Promise<void> {
		const { pool } = this.options;
		const connection = pool.get(entry.name);
		if (connection) {
			try {
				await connection.client.ping({ timeout: 10_000 });
				// list_changed can be lost over HTTP: a remote server's tool list is re-read on each check.
				if (connection.transportKind !== "stdio") await pool.refresh(entry.name);
				return;
			} catch {
				await pool.close(entry.name);
			}
		}
		// Recorded as the server's failure (shown by /mcp); the next tick tries again.
		await this.options.retryNow(entry.name).catch(() => undefined);
	}
}
