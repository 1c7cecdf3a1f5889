// What each server's connection is doing, and who hears of it: the connections recorded (one per
// server), told as "connected" when recorded and "closed" once when they end (a crash included), and
// the other events ("changed", "installing") passed to every listener.
import type { ServerConnection } from "../transport/open-connection.ts";
import type { ServerEvent, StateListener } from "./pool-types.ts";

export class ConnectionStates {
	private readonly connections = new Map<string, ServerConnection>();
	private readonly listeners = new Set<StateListener>();

	/** Tells `listener` whenever a server connects or its connection ends (crash included). */
	subscribe(listener: StateListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	emit(server: string, event: ServerEvent): void {
		for (const listener of this.listeners) listener(server, event);
	}

	/** The healthy connection to a server, if there is one. */
	get(name: string): ServerConnection | undefined {
		const connection = this.connections.get(name);
		return connection?.status === "connected" ? connection : undefined;
	}

	/** Whether `connection` is the one recorded for its server (not one replaced since, or never recorded). */
	isCurrent(connection: ServerConnection): boolean {
		return this.connections.get(connection.name) === connection;
	}

	all(): ServerConnection[] {
		return [...this.connections.values()];
	}

	names(): string[] {
		return [...this.connections.keys()];
	}

	connectedNames(): string[] {
		return this.all()
			.filter((c) => c.status === "connected")
			.map((c) => c.name);
	}

	/** Records a server's connection, listed and ready, and tells it. */
	record(connection: ServerConnection): void {
		this.connections.set(connection.name, connection);
		this.emit(connection.name, "connected");
	}

	/** Forgets a server's connection (to close it) and returns it. */
	take(name: string): ServerConnection | undefined {
		const connection = this.connections.get(name);
		this.connections.delete(name);
		return connection;
	}

	/** A connection that ended (closed by us, or broke): forgotten if it is still the recorded one, ended, and told once. */
	markClosed(connection: ServerConnection): void {
		if (connection.status === "closed") return;
		connection.status = "closed";
		if (this.isCurrent(connection)) this.connections.delete(connection.name);
		// A crashed server's tree (helpers it started) goes too.
		// Closing what already broke: its processes are ended by the transport whatever close says.
		void connection.close().catch(() => undefined);
		this.emit(connection.name, "closed");
	}
}
