// Resource subscriptions of a shared server (broker/shared-server.ts): the server holds one set for
// its one connection, the broker's, while each session subscribes and unsubscribes on its own. So
// the first session's subscribe to a URI goes to the server and later ones are answered here; a
// session's unsubscribe, or its leaving, reaches the server only when no other session still
// wants the URI; an update goes to the sessions that subscribed to its URI, no other.

export class SharedSubscriptions<Session> {
	private readonly subscribers = new Map<string, Set<Session>>();

	/** A session subscribes: true when the server must be asked (no session had subscribed to the URI). */
	subscribe(session: Session, uri: string): boolean {
		const sessions = this.subscribers.get(uri);
		if (sessions) {
			sessions.add(session);
			return false;
		}
		this.subscribers.set(uri, new Set([session]));
		return true;
	}

	/** A session unsubscribes: true when the server must be told (it was the last session subscribed). */
	unsubscribe(session: Session, uri: string): boolean {
		const sessions = this.subscribers.get(uri);
		if (!sessions?.delete(session)) return false;
		if (sessions.size > 0) return false;
		this.subscribers.delete(uri);
		return true;
	}

	/** A session left: the URIs the server must now unsubscribe (no other session wanted them). */
	leave(session: Session): string[] {
		return [...this.subscribers.keys()].filter((uri) => this.unsubscribe(session, uri));
	}

	/** The sessions an update of `uri` goes to. */
	sessionsFor(uri: string): readonly Session[] {
		return [...(this.subscribers.get(uri) ?? [])];
	}
}
