// One connection's change notifications from its server, asked for through the SDK Client: on the
// 2025 wire `resources/subscribe` and `resources/unsubscribe` per URI (list_changed comes
// unasked there); on the 2026-07-28 wire, which has neither, one `subscriptions/listen` stream
// naming the URIs and the list changes the server offers, replaced by a new one when the URIs
// change. Which URIs, and for how long, is decided by resource-subscriptions.ts; this only
// carries it out, one change at a time. The notifications themselves reach the Client's handlers
// (server-manager.ts lists again on list_changed; `onUpdated` hears a resource's update).
import type { Client, McpSubscription, SubscriptionFilter } from "@modelcontextprotocol/client";

/** How long a subscribe, an unsubscribe or a listen's acknowledgement may take. */
const REQUEST_TIMEOUT_MS = 10_000;

/** One connection's subscriptions at its server. */
export interface ServerWatch {
	/** Makes the server's resource subscriptions exactly these URIs; settles once it answered (never rejects). */
	set(uris: readonly string[]): Promise<void>;
	/** Asks for nothing more: no resource, and on the 2026 wire no list change either (the stream closes). */
	end(): Promise<void>;
}

/**
 * The watch of a connection, if its server can tell it anything: subscriptions (the server offers
 * `resources.subscribe`), or on the 2026 wire its list changes. `onUpdated` hears every
 * `notifications/resources/updated` (the SDK has then dropped its cached copy).
 */
export function watchResources(client: Client, onUpdated: (uri: string) => void): ServerWatch | undefined {
	const offered = client.getServerCapabilities();
	const subscribes = offered?.resources?.subscribe === true;
	const lists: SubscriptionFilter = {
		...(offered?.tools?.listChanged ? { toolsListChanged: true } : {}),
		...(offered?.prompts?.listChanged ? { promptsListChanged: true } : {}),
		...(offered?.resources?.listChanged ? { resourcesListChanged: true } : {}),
	};
	const modern = client.getProtocolEra() === "modern";
	if (!subscribes && (!modern || Object.keys(lists).length === 0)) return undefined;
	if (subscribes)
		client.setNotificationHandler("notifications/resources/updated", (notification) =>
			onUpdated(notification.params.uri),
		);
	return modern ? new ListenWatch(client, lists, subscribes) : new SubscribeWatch(client);
}

/** Runs `apply` until what was applied is the latest asked for (`null`: nothing at all); one run at a time. */
abstract class Converging implements ServerWatch {
	private desired: readonly string[] | null = [];
	private running?: Promise<void>;

	set(uris: readonly string[]): Promise<void> {
		return this.converge([...uris]);
	}

	end(): Promise<void> {
		return this.converge(null);
	}

	private converge(desired: readonly string[] | null): Promise<void> {
		this.desired = desired;
		this.running ??= this.run().finally(() => {
			this.running = undefined;
		});
		return this.running;
	}

	private async run(): Promise<void> {
		for (;;) {
			const target = this.desired;
			await this.apply(target);
			if (this.desired === target) return;
		}
	}

	protected abstract apply(uris: readonly string[] | null): Promise<void>;
}

/** The 2025 wire: one request per URI added or dropped. */
class SubscribeWatch extends Converging {
	private readonly subscribed = new Set<string>();
	/** URIs the server refused on this connection: not asked again. */
	private readonly refused = new Set<string>();

	constructor(private readonly client: Client) {
		super();
	}

	protected async apply(target: readonly string[] | null): Promise<void> {
		const uris = target ?? [];
		const wanted = new Set(uris);
		const options = { timeout: REQUEST_TIMEOUT_MS };
		for (const uri of [...this.subscribed].filter((u) => !wanted.has(u))) {
			this.subscribed.delete(uri);
			// A failed unsubscribe leaves updates we ignore (the URI is no longer wanted): nothing to undo.
			await this.client.unsubscribeResource({ uri }, options).catch(() => undefined);
		}
		for (const uri of uris) {
			if (this.subscribed.has(uri) || this.refused.has(uri)) continue;
			try {
				await this.client.subscribeResource({ uri }, options);
				this.subscribed.add(uri);
			} catch {
				// The server will not tell us of this resource's changes: its read stands as it was.
				this.refused.add(uri);
			}
		}
	}
}

/**
 * The 2026-07-28 wire: one listen stream whose filter names the list changes the server offers and
 * every URI; a new filter opens its stream before the old one closes, so no update falls between.
 */
class ListenWatch extends Converging {
	private current?: { readonly key: string; readonly subscription: McpSubscription };
	/** A filter the server would not listen for on this connection: not asked again. */
	private failed?: string;

	constructor(
		private readonly client: Client,
		private readonly lists: SubscriptionFilter,
		/** Whether the server subscribes resources (false once it did not honor a URI on this connection). */
		private subscribes: boolean,
	) {
		super();
	}

	protected async apply(target: readonly string[] | null): Promise<void> {
		const uris = this.subscribes && target ? [...target].sort() : [];
		const filter: SubscriptionFilter =
			target === null ? {} : { ...this.lists, ...(uris.length > 0 ? { resourceSubscriptions: uris } : {}) };
		const key = JSON.stringify(filter);
		const before = this.current;
		if (before?.key === key) return;
		if (Object.keys(filter).length === 0) {
			this.current = undefined;
			await before?.subscription.close();
			return;
		}
		if (this.failed === key) return;
		const subscription = await this.listen(filter);
		// Refused: the stream listening before (if any) stays; another filter (another read) tries again.
		if (!subscription) {
			this.failed = key;
			return;
		}
		// Resources the server would not subscribe: its list changes still come, and no URI is asked again.
		if (uris.length > 0 && !subscription.honoredFilter.resourceSubscriptions?.length) this.subscribes = false;
		this.current = { key, subscription };
		// A stream the server or the network ended: the next filter (the next read, a reconnect) listens again.
		void subscription.closed.then(() => {
			if (this.current?.subscription === subscription) this.current = undefined;
		});
		await before?.subscription.close();
	}

	/** A stream listening for `filter`, or undefined when the server will not open one. */
	private async listen(filter: SubscriptionFilter): Promise<McpSubscription | undefined> {
		try {
			const subscription = await this.client.listen(filter, { timeout: REQUEST_TIMEOUT_MS });
			if (Object.keys(subscription.honoredFilter).length > 0) return subscription;
			await subscription.close();
		} catch {
			// No stream (the server refused it, or the connection broke): the caller keeps what it had.
		}
		return undefined;
	}
}
