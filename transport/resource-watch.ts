// One connection's resource subscriptions at its server, made equal to a set of URIs through the
// SDK Client: `resources/subscribe` and `resources/unsubscribe` on the 2025 wire; on the
// 2026-07-28 wire (which has no such requests) one `subscriptions/listen` stream naming the set,
// replaced by a new one when the set changes. Which URIs, and for how long, is decided by
// resource-subscriptions.ts; this only carries it out, one change at a time.
import type { Client, McpSubscription } from "@modelcontextprotocol/client";

/** How long a subscribe, an unsubscribe or a listen's acknowledgement may take. */
const REQUEST_TIMEOUT_MS = 10_000;

/** One connection's subscriptions at its server. */
export interface ServerWatch {
	/** Makes the server's subscriptions exactly these URIs; settles once it answered (never rejects). */
	set(uris: readonly string[]): Promise<void>;
}

/** Whether the server offers subscriptions (`capabilities.resources.subscribe`). */
export function offersSubscriptions(client: Client): boolean {
	return client.getServerCapabilities()?.resources?.subscribe === true;
}

/**
 * The watch of a connection whose server offers subscriptions (else undefined); `onUpdated` hears
 * every `notifications/resources/updated` it sends (the SDK has then dropped its cached copy).
 */
export function watchResources(client: Client, onUpdated: (uri: string) => void): ServerWatch | undefined {
	if (!offersSubscriptions(client)) return undefined;
	client.setNotificationHandler("notifications/resources/updated", (notification) =>
		onUpdated(notification.params.uri),
	);
	return client.getProtocolEra() === "modern" ? new ListenWatch(client) : new SubscribeWatch(client);
}

/** Runs `apply` until what was applied is the latest set asked for; one run at a time. */
abstract class Converging implements ServerWatch {
	private desired: readonly string[] = [];
	private running?: Promise<void>;

	set(uris: readonly string[]): Promise<void> {
		this.desired = [...uris];
		this.running ??= this.converge().finally(() => {
			this.running = undefined;
		});
		return this.running;
	}

	private async converge(): Promise<void> {
		for (;;) {
			const target = this.desired;
			await this.apply(target);
			if (this.desired === target) return;
		}
	}

	protected abstract apply(uris: readonly string[]): Promise<void>;
}

/** The 2025 wire: one request per URI added or dropped. */
class SubscribeWatch extends Converging {
	private readonly subscribed = new Set<string>();
	/** URIs the server refused on this connection: not asked again. */
	private readonly refused = new Set<string>();

	constructor(private readonly client: Client) {
		super();
	}

	protected async apply(uris: readonly string[]): Promise<void> {
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

/** The 2026-07-28 wire: one listen stream whose filter names every URI; a new set opens a new stream first. */
class ListenWatch extends Converging {
	private current?: { readonly key: string; readonly subscription: McpSubscription };
	/** A set the server would not listen for on this connection: not asked again. */
	private failed?: string;

	constructor(private readonly client: Client) {
		super();
	}

	protected async apply(uris: readonly string[]): Promise<void> {
		const key = JSON.stringify([...uris].sort());
		if (this.current?.key === key) return;
		const before = this.current;
		if (uris.length > 0) {
			if (this.failed === key) return;
			const subscription = await this.listen(uris);
			// Refused: the stream listening before (if any) stays; another set (another read) tries again.
			if (!subscription) {
				this.failed = key;
				return;
			}
			this.current = { key, subscription };
			// A stream the server or the network ended: the next set (the next read) listens again.
			void subscription.closed.then(() => {
				if (this.current?.subscription === subscription) this.current = undefined;
			});
		} else this.current = undefined;
		// The old stream goes once the new one listens, so no update falls between them.
		await before?.subscription.close();
	}

	/** A stream listening for these URIs' updates, or undefined when the server will not open one. */
	private async listen(uris: readonly string[]): Promise<McpSubscription | undefined> {
		try {
			const subscription = await this.client.listen(
				{ resourceSubscriptions: [...uris] },
				{ timeout: REQUEST_TIMEOUT_MS },
			);
			if (subscription.honoredFilter.resourceSubscriptions?.length) return subscription;
			await subscription.close();
		} catch {
			// No stream (the server refused it, or the connection broke): the caller keeps what it had.
		}
		return undefined;
	}
}
