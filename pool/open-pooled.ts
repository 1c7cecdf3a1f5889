// Opening a connection for the pool: the transport opened (retried once with renewed credentials
// when the server refused them), the connection told as soon as the server is initialized, then its
// tools, resources, templates and prompts listed. Errors are scrubbed: a server may echo a header or
// an env value back in its error or stderr. Recording it and its events: server-manager.ts.
import { untilAborted } from "../bounds/waits.ts";
import { afterError, describeError } from "../errors.ts";
import { AuthRequiredError } from "../oauth-handler.ts";
import type {
	listMetadata,
	McpSdk,
	Opened,
	OpenOptions,
	openConnection,
	ServerConnection,
} from "../transport/open-connection.ts";
import type { ServerEntry } from "../types.ts";
import type { OpenHooks } from "./pending-connects.ts";

/** The transport code, loaded with the first connect. */
export interface Connecting {
	readonly openConnection: typeof openConnection;
	readonly listMetadata: typeof listMetadata;
	readonly loadSdk: () => Promise<McpSdk>;
}

export interface PooledOpen {
	readonly connecting: Connecting;
	/** What opening needs; `onCredential` is the pool's to set (to match a refusal to the token sent). */
	readonly open: Omit<OpenOptions, "onCredential">;
	readonly now: () => number;
	/** Asked once when the server refuses credentials: true when there are new ones to retry with. */
	readonly renew: (entry: ServerEntry, refusedToken: string | undefined) => Promise<boolean>;
}

/** A connection, initialized (told to `hooks.onOpened`) and listed; on any failure nothing stays open. */
export async function openPooled(
	entry: ServerEntry,
	signal: AbortSignal,
	hooks: Partial<OpenHooks>,
	how: PooledOpen,
): Promise<ServerConnection> {
	const opened = await openRenewing(entry, signal, hooks, how);
	const connection = pooledConnection(entry, opened, how.now());
	hooks.onOpened?.(connection);
	// A call waiting for the server to be initialized goes out before its listing: a server answers
	// in the order it is asked, and the call would wait behind four lists (and our parsing of them).
	// Its path to the wire is promise callbacks only, which all run before the next turn.
	await new Promise((resolve) => setImmediate(resolve));
	try {
		const listing = how.connecting.listMetadata(
			opened.client,
			entry.name,
			opened.kind,
			how.open.connectTimeoutMs,
			signal,
		);
		Object.assign(connection, await untilAborted(listing, signal));
	} catch (error) {
		connection.status = "closed"; // no call sent early goes to it any more
		await connection.close();
		const why = `Server "${entry.name}" connected but listing its tools failed: ${describeError(error)}`;
		throw new Error(how.open.redactor.scrub(why), { cause: error });
	}
	return connection;
}

/** The transport opened; a refusal of credentials that can be renewed is retried once. */
async function openRenewing(
	entry: ServerEntry,
	signal: AbortSignal,
	hooks: Partial<OpenHooks>,
	how: PooledOpen,
	renewed = false,
): Promise<Opened> {
	let sent: string | undefined;
	const options: OpenOptions = { ...how.open, onCredential: (token) => (sent = token), onLaunched: hooks.onLaunched };
	try {
		// The SDK is asked for once a stdio server's process began (the session's first connect).
		return await how.connecting.openConnection(how.connecting.loadSdk, entry, options, signal);
	} catch (error) {
		const next = afterError({ error, during: "connect", retried: renewed });
		if (!signal.aborted && next === "sign-in" && (await how.renew(entry, sent)))
			return openRenewing(entry, signal, hooks, how, true);
		if (error instanceof AuthRequiredError) throw error;
		throw new Error(how.open.redactor.scrub(`Server "${entry.name}" failed to connect: ${describeError(error)}`), {
			cause: error,
		});
	}
}

/** The pool's record of an opened connection, before its listing. */
function pooledConnection(entry: ServerEntry, opened: Opened, now: number): ServerConnection {
	return {
		name: entry.name,
		entry,
		client: opened.client,
		transportKind: opened.kind,
		pid: opened.pid,
		shared: opened.shared,
		tools: [],
		resources: [],
		templates: [],
		prompts: [],
		skills: [],
		skillEntries: [],
		skillProblems: [],
		instructions: opened.client.getInstructions(),
		status: "connected",
		lastUsedAt: now,
		inFlight: 0,
		stderrTail: opened.stderrTail,
		transportFailure: opened.transportFailure,
		exitStatus: opened.exitStatus,
		settle: opened.settle,
		close: opened.close,
		killSync: opened.killSync,
		oauthToken: opened.oauthToken,
	};
}
