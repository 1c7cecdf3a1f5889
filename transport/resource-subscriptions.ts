// Live resources: each resource the session read is kept subscribed at its server (where the server
// offers subscriptions), so a change is known as it happens: the SDK drops its cached copy (the next
// read asks the server) and the session is told once, until the resource is read again. Bounded:
// at most MAX_SUBSCRIPTIONS_PER_SERVER per server (the resource read longest ago is dropped and
// unsubscribed), nothing the session did not read, dropped when the lifecycle closes the server on
// purpose (idle, denied, removed, shutdown), and subscribed again when a connection that ended
// (a crash, a reconnect, a lost HTTP session) is made anew. The requests themselves:
// transport/resource-watch.ts, which on the 2026-07-28 wire also asks for the server's list changes
// (that wire sends none unasked): so every connection of a started session gets its watch.
import { once } from "../bounds/waits.ts";
import type { ServerConnection } from "./open-connection.ts";
import type { ServerWatch } from "./resource-watch.ts";

/** Resources kept subscribed per server: beyond it, the one read longest ago is unsubscribed. */
export const MAX_SUBSCRIPTIONS_PER_SERVER = 16;

/** A resource the session read that changed at its server since. */
export interface ResourceChange {
	readonly server: string;
	readonly uri: string;
}

/** A connection as the subscriptions know it: its server's name (the watch factory knows the rest). */
export interface WatchedConnection {
	readonly name: string;
}

/** Makes a connection's watch (undefined when its server offers no subscriptions); `onUpdated` hears its updates. */
export type WatchFactory<C extends WatchedConnection = ServerConnection> = (
	connection: C,
	onUpdated: (uri: string) => void,
) => Promise<ServerWatch | undefined>;

const loadResourceWatch = once(() => import("./resource-watch.ts"));

/** The watch of a real connection: the SDK Client's requests (transport/resource-watch.ts, loaded at the first). */
export const watchWithSdk: WatchFactory = async (connection, onUpdated) =>
	(await loadResourceWatch()).watchResources(connection.client, onUpdated);

export interface SubscriptionOptions<C extends WatchedConnection> {
	readonly watch: WatchFactory<C>;
	/** Resources kept per server (default MAX_SUBSCRIPTIONS_PER_SERVER). */
	readonly max?: number;
	/** Told once when a resource read changes; again only after it is read again. */
	readonly onChanged?: (change: ResourceChange) => void;
}

interface ServerState<C extends WatchedConnection> {
	/** The URIs read, the one read longest ago first, each with whether it changed since. */
	readonly wanted: Map<string, boolean>;
	/** The connection subscribed on, and its watch. */
	watching?: { readonly connection: C; readonly watch: Promise<ServerWatch | undefined> };
}

export class ResourceSubscriptions<C extends WatchedConnection = ServerConnection> {
	private readonly servers = new Map<string, ServerState<C>>();
	private readonly watch: WatchFactory<C>;
	private readonly max: number;

	constructor(private readonly options: SubscriptionOptions<C>) {
		this.watch = options.watch;
		this.max = options.max ?? MAX_SUBSCRIPTIONS_PER_SERVER;
	}

	/** The session read `uri` (as the server knows it) on this connection: it is current now, and followed. */
	read(connection: C, uri: string): void {
		const state = this.state(connection.name);
		state.wanted.delete(uri);
		state.wanted.set(uri, false);
		for (const oldest of state.wanted.keys()) {
			if (state.wanted.size <= this.max) break;
			state.wanted.delete(oldest);
		}
		this.push(state, connection);
	}

	/** A new connection to a server (a reconnect among them): what the session still follows there is subscribed again. */
	connected(connection: C): void {
		const state = this.state(connection.name);
		state.watching = undefined;
		this.push(state, connection);
	}

	/** The server's connection ended without the lifecycle closing it (a crash, a reconnect): followed again on the next. */
	closed(server: string): void {
		const state = this.servers.get(server);
		if (state) state.watching = undefined;
	}

	/** The lifecycle closes the server on purpose: its subscriptions end (unsubscribed while it still runs) and are forgotten. */
	async forget(server: string): Promise<void> {
		const state = this.servers.get(server);
		if (!state) return;
		this.servers.delete(server);
		const watch = await state.watching?.watch;
		await watch?.end();
	}

	/** Every server's subscriptions end (the session ends). */
	async forgetAll(): Promise<void> {
		await Promise.all([...this.servers.keys()].map((server) => this.forget(server)));
	}

	/** The URIs followed on a server, the one read longest ago first. */
	followed(server: string): string[] {
		return [...(this.servers.get(server)?.wanted.keys() ?? [])];
	}

	private state(server: string): ServerState<C> {
		let state = this.servers.get(server);
		if (!state) {
			state = { wanted: new Map() };
			this.servers.set(server, state);
		}
		return state;
	}

	/** Makes the connection's subscriptions what the server's state wants (in order: each waits for the one before). */
	private push(state: ServerState<C>, connection: C): void {
		if (state.watching?.connection !== connection) {
			// No watch (a failed load): nothing is followed on this connection; the reads stand as they were.
			const watch = this.watch(connection, (uri) => this.updated(connection, uri)).catch(() => undefined);
			state.watching = { connection, watch };
		}
		const { watching } = state;
		void watching.watch.then((watch) => {
			// Forgotten, or the connection ended, meanwhile: nothing more is asked of it.
			if (this.servers.get(connection.name) !== state || state.watching !== watching) return;
			return watch?.set([...state.wanted.keys()]);
		});
	}

	private updated(connection: C, uri: string): void {
		const state = this.servers.get(connection.name);
		// Told once: a resource that changed again before it was read again is not told again.
		if (state?.watching?.connection !== connection || state.wanted.get(uri) !== false) return;
		state.wanted.set(uri, true);
		this.options.onChanged?.({ server: connection.name, uri });
	}
}
