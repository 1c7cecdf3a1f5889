// The connects under way, one per server, shared by every caller: a caller joins the connect
// already under way (and may stop waiting on its own signal); the connect resolves `opened` once the
// server is initialized and `promise` once it is listed; `launched` once its process began (the
// warm-up waits for it); and what package install it waits for (npx), told as "installing".
import type { InstallProgress } from "../transport/npx-install.ts";
import type { ServerConnection } from "../transport/open-connection.ts";
import type { ConnectProgress } from "./pool-types.ts";

export interface PendingConnect {
	/** The connection, listed (tools, resources, templates, prompts) and recorded. */
	readonly promise: Promise<ServerConnection>;
	/** The connection once initialized, before its listing: a call can go out (see `opened`). */
	readonly opened: Promise<ServerConnection>;
	/** Set once initialized. */
	connection?: ServerConnection;
	/** Settles once the server's process began (or the connect ended before): see `warmUp`. */
	readonly launched: Promise<void>;
	readonly controller: AbortController;
	readonly since: number;
	install?: InstallProgress;
}

/** What a connect tells as it goes: the server initialized (before its listing), its process begun. */
export interface OpenHooks {
	readonly onOpened: (connection: ServerConnection) => void;
	readonly onLaunched: () => void;
}

/** Opens one server's connection under `signal` (cancelled by `cancel`), telling `hooks` as it goes. */
export type Opener = (signal: AbortSignal, hooks: OpenHooks) => Promise<ServerConnection>;

export class PendingConnects {
	private readonly pending = new Map<string, PendingConnect>();

	constructor(private readonly now: () => number) {}

	get(name: string): PendingConnect | undefined {
		return this.pending.get(name);
	}

	has(name: string): boolean {
		return this.pending.has(name);
	}

	names(): string[] {
		return [...this.pending.keys()];
	}

	/** The connect under way to a server, or a new one through `open`; forgotten once it settles. */
	join(name: string, open: Opener): PendingConnect {
		return this.pending.get(name) ?? this.start(name, open);
	}

	private start(name: string, open: Opener): PendingConnect {
		const controller = new AbortController();
		let initialized!: (connection: ServerConnection) => void;
		const opened = new Promise<ServerConnection>((resolve) => (initialized = resolve));
		let began!: () => void;
		const launched = new Promise<void>((resolve) => (began = resolve));
		const onOpened = (connection: ServerConnection) => {
			pending.connection = connection;
			initialized(connection);
		};
		const promise = open(controller.signal, { onOpened, onLaunched: began }).finally(() => {
			began();
			if (this.pending.get(name)?.promise === promise) this.pending.delete(name);
		});
		// A failure before the server was initialized fails both; after it, only the listing's promise.
		const race = Promise.race([opened, promise]);
		const pending: PendingConnect = { promise, opened: race, launched, controller, since: this.now() };
		// Whoever asked for the listing hears its failure; `opened` alone may have no one left to tell.
		pending.opened.catch(() => undefined);
		this.pending.set(name, pending);
		return pending;
	}

	/** The connect under way to this server: since when, and the install it waits for. */
	progress(name: string): ConnectProgress | undefined {
		const pending = this.pending.get(name);
		return pending ? { since: pending.since, install: pending.install } : undefined;
	}

	/**
	 * Records the package install the connect opened under `signal` waits for; false when that
	 * connect is no longer under way (cancelled, replaced), and nobody need be told.
	 */
	installing(name: string, signal: AbortSignal, install: InstallProgress | undefined): boolean {
		const pending = this.pending.get(name);
		if (!pending || pending.controller.signal !== signal) return false;
		pending.install = install;
		return true;
	}

	/** Settles once every connect under way has begun its server's process (or ended). */
	async launched(): Promise<void> {
		await Promise.all([...this.pending.values()].map((pending) => pending.launched));
	}

	/** Cancels a server's connect under way (its process ended) and waits until it has ended. */
	async cancel(name: string): Promise<void> {
		const pending = this.pending.get(name);
		if (!pending) return;
		pending.controller.abort(new Error(`Connecting to "${name}" was cancelled: the server is being closed`));
		// Its failure is the cancellation this close caused: nobody waits for it any more.
		await pending.promise.catch(() => undefined);
	}
}
