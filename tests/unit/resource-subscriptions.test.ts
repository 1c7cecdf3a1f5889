// The bookkeeping of live resources (resource-subscriptions.ts) and of a shared server's
// subscriptions (broker/shared-subscriptions.ts), over fake connections: what is subscribed, when
// it is dropped, what is subscribed again after a reconnect, and what the session is told.
import { describe, expect, it } from "vitest";
import { SharedSubscriptions } from "../../broker/shared-subscriptions.ts";
import type { ServerConnection } from "../../server-manager.ts";
import { type ResourceChange, ResourceSubscriptions } from "../../transport/resource-subscriptions.ts";
import type { ServerWatch } from "../../transport/resource-watch.ts";

/** A server's side as the fake watches leave it: the URIs each connection is subscribed to, and how to send an update. */
class FakeServers {
	readonly sets = new Map<ServerConnection, string[]>();
	readonly updaters = new Map<ServerConnection, (uri: string) => void>();
	/** Settles once every set asked so far has been applied. */
	applied: Promise<unknown> = Promise.resolve();
	/** Connections whose watch was ended (nothing asked of them any more). */
	readonly ended = new Set<ServerConnection>();
	/** Servers that offer no subscriptions. */
	readonly without = new Set<string>();

	readonly watch = async (connection: ServerConnection, onUpdated: (uri: string) => void) => {
		if (this.without.has(connection.name)) return undefined;
		this.updaters.set(connection, onUpdated);
		const watch: ServerWatch = {
			set: (uris) => {
				this.sets.set(connection, [...uris]);
				return Promise.resolve();
			},
			end: () => {
				this.sets.set(connection, []);
				this.ended.add(connection);
				return Promise.resolve();
			},
		};
		return watch;
	};

	update(connection: ServerConnection, uri: string): void {
		this.updaters.get(connection)?.(uri);
	}
}

const connection = (name: string) => ({ name }) as ServerConnection;
/** Lets the watch promises and their `then`s run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

function setup(max?: number) {
	const servers = new FakeServers();
	const told: ResourceChange[] = [];
	const subscriptions = new ResourceSubscriptions({ watch: servers.watch, max, onChanged: (c) => told.push(c) });
	return { servers, told, subscriptions };
}

describe("ResourceSubscriptions", () => {
	it("subscribes what was read, once each, the last read last", async () => {
		const { servers, subscriptions } = setup();
		const docs = connection("docs");
		subscriptions.read(docs, "note://a");
		subscriptions.read(docs, "note://b");
		subscriptions.read(docs, "note://a");
		await settled();
		expect(servers.sets.get(docs)).toEqual(["note://b", "note://a"]);
	});

	it("keeps at most the cap per server: the resource read longest ago is unsubscribed", async () => {
		const { servers, subscriptions } = setup(2);
		const docs = connection("docs");
		const other = connection("other");
		subscriptions.read(docs, "note://a");
		subscriptions.read(docs, "note://b");
		subscriptions.read(other, "note://x");
		subscriptions.read(docs, "note://a"); // read again: now the newest
		subscriptions.read(docs, "note://c");
		await settled();
		expect(servers.sets.get(docs)).toEqual(["note://a", "note://c"]);
		expect(servers.sets.get(other)).toEqual(["note://x"]);
		expect(subscriptions.followed("docs")).toEqual(["note://a", "note://c"]);
	});

	it("tells a change of a resource read once, until it is read again; updates of others are not told", async () => {
		const { servers, told, subscriptions } = setup();
		const docs = connection("docs");
		subscriptions.read(docs, "note://a");
		await settled();
		servers.update(docs, "note://a");
		servers.update(docs, "note://a");
		servers.update(docs, "note://never-read");
		expect(told).toEqual([{ server: "docs", uri: "note://a" }]);
		subscriptions.read(docs, "note://a");
		servers.update(docs, "note://a");
		expect(told).toHaveLength(2);
	});

	it("forgets a server closed on purpose: unsubscribed, not subscribed again on its next connection, nothing told", async () => {
		const { servers, told, subscriptions } = setup();
		const first = connection("docs");
		subscriptions.read(first, "note://a");
		await settled();
		await subscriptions.forget("docs");
		expect(servers.sets.get(first)).toEqual([]);
		expect(servers.ended.has(first)).toBe(true); // on the 2026 wire its stream closes
		servers.update(first, "note://a");
		const second = connection("docs");
		subscriptions.connected(second);
		await settled();
		expect(servers.sets.get(second)).toEqual([]);
		expect(told).toEqual([]);
	});

	it("a connection that ended (crash, reconnect): what is still followed is subscribed on the next one; the old one's updates are ignored", async () => {
		const { servers, told, subscriptions } = setup(2);
		const first = connection("docs");
		for (const uri of ["note://a", "note://b", "note://c"]) subscriptions.read(first, uri);
		await settled();
		subscriptions.closed("docs");
		servers.update(first, "note://b");
		const second = connection("docs");
		subscriptions.connected(second);
		await settled();
		expect(servers.sets.get(second)).toEqual(["note://b", "note://c"]);
		servers.update(second, "note://c");
		expect(told).toEqual([{ server: "docs", uri: "note://c" }]);
	});

	it("subscribes nothing where nothing was read, nor on a server without subscriptions", async () => {
		const { servers, subscriptions } = setup();
		servers.without.add("plain");
		const docs = connection("docs");
		subscriptions.connected(docs); // watched (on the 2026 wire for its list changes), nothing subscribed
		const plain = connection("plain");
		subscriptions.read(plain, "note://a");
		await settled();
		expect([...servers.sets]).toEqual([[docs, []]]);
	});

	it("forgetAll ends every server's subscriptions", async () => {
		const { servers, subscriptions } = setup();
		const a = connection("a");
		const b = connection("b");
		subscriptions.read(a, "note://1");
		subscriptions.read(b, "note://2");
		await settled();
		await subscriptions.forgetAll();
		expect([...servers.sets.values()]).toEqual([[], []]);
		expect(subscriptions.followed("a")).toEqual([]);
	});
});

describe("SharedSubscriptions (the broker)", () => {
	it("the server hears the first subscribe and the last unsubscribe; one session leaving keeps another's", () => {
		const shared = new SharedSubscriptions<string>();
		expect(shared.subscribe("s1", "note://a")).toBe(true);
		expect(shared.subscribe("s2", "note://a")).toBe(false);
		expect(shared.subscribe("s2", "note://b")).toBe(true);
		expect(shared.sessionsFor("note://a")).toEqual(["s1", "s2"]);
		expect(shared.unsubscribe("s1", "note://a")).toBe(false);
		expect(shared.sessionsFor("note://a")).toEqual(["s2"]);
		expect(shared.unsubscribe("s1", "note://a")).toBe(false); // not subscribed (any more)
		expect(shared.leave("s2")).toEqual(["note://a", "note://b"]);
		expect(shared.sessionsFor("note://a")).toEqual([]);
		expect(shared.subscribe("s1", "note://a")).toBe(true);
	});
});
