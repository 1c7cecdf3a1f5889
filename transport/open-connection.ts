// Opening one MCP connection: the SDK (imported on first use, asked for once a stdio server's process
// has begun: the server starts meanwhile), stdio through our own transport (linear reading, process-group kill), streamable HTTP with SSE fallback behind an HttpGuard,
// all under one deadline that covers every transport tried and closes whatever it opened when it
// fails or is cancelled. Then listing tools and resources across pages, schemas made safe.
// The pool around connections is server-manager.ts.
import type {
	AuthProvider,
	Client,
	ClientCapabilities,
	CreateMessageRequest,
	CreateMessageResult,
	ElicitRequest,
	ElicitResult,
	FetchLike,
	JSONObject,
	JSONRPCMessage,
	LoggingMessageNotification,
	Root,
	Transport,
} from "@modelcontextprotocol/client";
// No value of the SDK's is imported here: loading this module must not wait for the SDK (see openStdio).
import { untilAborted } from "../bounds/waits.ts";
import { CLIENT_INFO } from "../client-info.ts";
import { resolveCommandValues } from "../config/command-values.ts";
import { resolvedSecrets } from "../config/entry-secrets.ts";
import { afterError, describeError, isInputClosed } from "../errors.ts";
import { dpopFetch, dpopSession } from "../oauth/dpop.ts";
import { machineGrant } from "../oauth/machine-grants.ts";
import { type AuthContext, requestHeaders, signsInWithBrowser, usesOAuth } from "../oauth-handler.ts";
import type { Redactor } from "../trust/redaction.ts";
import { oneLine, terminalSafe } from "../trust/safe-text.ts";
import type {
	HttpServerEntry,
	PromptMetadata,
	ResourceMetadata,
	ResourceTemplateMetadata,
	ServerEntry,
	SkillSummary,
	StdioServerEntry,
	ToolMetadata,
	TransportKind,
} from "../types.ts";
import { httpFailure, startFailure } from "./failure-words.ts";
import { HttpGuard } from "./http-guard.ts";
import type { McpSdk } from "./mcp-sdk.lazy.ts";
import type { InstallProgress } from "./npx-install.ts";
import { SKILLS_EXTENSION, type Skill } from "./skill-client.ts";
import { StdioTransport } from "./stdio.ts";
import { TailBuffer } from "./tail-buffer.ts";

export { loadSdk, type McpSdk } from "./mcp-sdk.lazy.ts";

export const STDERR_TAIL_BYTES = 8 * 1024;

export interface ServerConnection {
	readonly name: string;
	readonly entry: ServerEntry;
	readonly client: Client;
	readonly transportKind: TransportKind;
	/** Pid of the stdio child, if any (none for a server the broker runs). */
	readonly pid?: number;
	/** Served by the per-user broker, shared with other sessions. */
	readonly shared?: boolean;
	tools: ToolMetadata[];
	resources: ResourceMetadata[];
	templates: ResourceTemplateMetadata[];
	prompts: PromptMetadata[];
	/** Its skills (SEP-2640) as listed; the entries as sent, to check each file read against; refused entries. */
	skills: SkillSummary[];
	skillEntries: Skill[];
	skillProblems: string[];
	readonly instructions?: string;
	status: "connected" | "closed";
	lastUsedAt: number;
	inFlight: number;
	/** The last few KB the server wrote to stderr, for error messages. */
	stderrTail(): string;
	/** Why the transport itself ended the connection (a message over the limit), if it did. */
	transportFailure(): string | undefined;
	/** How a stdio server's process ended by itself ("exit code 3"), once it has. */
	exitStatus?(): string | undefined;
	/** A stdio server that stopped reading its input: the moment it takes to exit, so `exitStatus` can say how. */
	settle?(): Promise<void>;
	/** Closes the client and ends everything it opened (process tree, sockets). */
	close(): Promise<void>;
	/** The OAuth access token this connection sends, if any. */
	readonly oauthToken?: string;
	/** At process exit, when no await is possible. */
	killSync(): void;
}

/** What opening a connection needs from the manager's options. */
export interface OpenOptions {
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly auth: AuthContext;
	readonly connectTimeoutMs: number;
	readonly maxMessageBytes: number;
	readonly launch?: Launcher;
	/** Told while the launch waits for a package install (see `Launcher`). */
	readonly onInstall?: (install: InstallProgress | undefined) => void;
	readonly debugLog?: (server: string, text: string) => void;
	/** Told every credential sent, so no message shows it. */
	readonly redactor: Redactor;
	/** Where a started process registers its synchronous killer until it is closed (for process exit). */
	readonly live?: Set<() => void>;
	/** Told the WWW-Authenticate challenge of every 401/403 (step-up scope, resource metadata). */
	readonly onChallenge?: (challenge: Challenge) => void;
	/** Told the OAuth access token a connect sends, so a refusal can be matched to it. */
	readonly onCredential?: (oauthToken: string) => void;
	/** Answers to what a server may ask the client; what is given here is what the client declares it can do. */
	readonly requests?: ClientRequests;
	/** Which stdio servers run in the per-user broker, shared with other sessions. */
	readonly broker?: SharedServers;
	/** Told once the server's process began (stdio) or its first request is about to go out (HTTP, the broker). */
	readonly onLaunched?: () => void;
}

/** How a shared server is started: resolved by the session (npx, `!command` values), run by the broker. */
export interface SharedLaunch {
	readonly command: string;
	readonly args: readonly string[];
	readonly env: Readonly<Record<string, string>>;
	readonly cwd?: string;
}

/** The broker's end of a shared server: an SDK transport that can say why it failed and be dropped at once. */
export interface SharedTransport extends Transport {
	readonly failure?: string;
	destroy(): void;
}

/**
 * The per-user broker as a connection uses it, passed in (`broker/client.ts` `brokerServers` builds it):
 * the broker runs servers through this folder's stdio, so this folder cannot import it.
 */
export interface SharedServers {
	shares(entry: StdioServerEntry): boolean;
	/** A transport to the broker's copy of the server; undefined when the broker cannot serve it (then it runs here). */
	open(
		entry: StdioServerEntry,
		launch: SharedLaunch,
		limits: { readonly maxMessageBytes: number; readonly connectTimeoutMs: number },
		parse: (line: string) => JSONRPCMessage,
		signal: AbortSignal,
	): Promise<SharedTransport | undefined>;
}

/**
 * What servers may ask of the client (MCP server-to-client requests and notifications), answered
 * for one server. Each handler given is a capability the client declares.
 */
export interface ClientRequests {
	/** `elicitation/create`: ask the user for input (form) or to visit a URL. */
	readonly elicit?: (server: string, request: ElicitRequest["params"], signal: AbortSignal) => Promise<ElicitResult>;
	/** `sampling/createMessage`: a completion from the user's model, with the user's consent. */
	readonly sample?: (
		server: string,
		request: CreateMessageRequest["params"],
		signal: AbortSignal,
	) => Promise<CreateMessageResult>;
	/**
	 * `roots/list`: the folders this server may work in (read on each request: they may change), or
	 * undefined for a server offered none (decided by its entry: the client then declares no roots to it).
	 */
	readonly roots?: (entry: ServerEntry) => Root[] | undefined;
	/** `notifications/message`: the server's log messages. */
	readonly log?: (server: string, message: LoggingMessageNotification["params"]) => void;
	/** The protocol extensions the client declares it supports (SEP-1724), by identifier, with their settings. */
	readonly extensions?: Readonly<Record<string, JSONObject>>;
}

/** What a server's 401/403 said in its WWW-Authenticate header (RFC 6750, RFC 9728). */
export interface Challenge {
	readonly status: 401 | 403;
	readonly error?: string;
	readonly scope?: string;
	readonly resourceMetadataUrl?: string;
}

/** How a stdio entry is actually started (the npx resolver rewrites npx launches). */
export type Launcher = (
	entry: StdioServerEntry,
	/** Ends the caller's wait (a connect cancelled, the session ending); work it started may go on. */
	signal?: AbortSignal,
	/** Told about once a second while the launch waits for a package install, and `undefined` when it stops waiting. */
	onInstall?: (install: InstallProgress | undefined) => void,
) => Promise<Launch>;

/** The command a stdio server is started with. */
export interface Launch {
	readonly command: string;
	readonly args: readonly string[];
}

/** An open client and how to end it. */
export interface Opened {
	readonly client: Client;
	readonly kind: TransportKind;
	readonly pid?: number;
	readonly stderrTail: () => string;
	readonly transportFailure: () => string | undefined;
	readonly exitStatus?: () => string | undefined;
	readonly settle?: () => Promise<void>;
	readonly close: () => Promise<void>;
	readonly killSync: () => void;
	/** The OAuth access token this connection sent, to know whether a refusal is about it. */
	readonly oauthToken?: string;
	/** Served by the per-user broker (the server process is shared with other sessions). */
	readonly shared?: boolean;
}

/** Thrown when connecting did not finish within connectTimeoutMs. */
export class ConnectTimeoutError extends Error {
	constructor(server: string, ms: number) {
		super(
			`Server "${server}" did not finish connecting within ${Math.round(ms / 1000)} s. Raise settings.connectTimeoutMs if it needs longer.`,
		);
		this.name = "ConnectTimeoutError";
	}
}

/**
 * Opens a connection within connectTimeoutMs (covering every transport tried), or fails and
 * leaves nothing behind. `signal` cancels it (shutdown, close), with the same cleanup. A stdio
 * server's launch comes first, outside that deadline: it may wait for a package install, which has
 * its own budget (the npx resolver's). `sdk` loads the SDK: a stdio server's process is started
 * before it is asked (loading the SDK holds the event loop, ~100-700 ms, and the spawn waited behind it).
 */
export async function openConnection(
	sdk: () => Promise<McpSdk>,
	entry: ServerEntry,
	options: OpenOptions,
	signal?: AbortSignal,
): Promise<Opened> {
	signal?.throwIfAborted();
	const launch =
		entry.transport === "stdio" ? ((await options.launch?.(entry, signal, options.onInstall)) ?? entry) : undefined;
	const deadline = new AbortController();
	const timer = setTimeout(
		() => deadline.abort(new ConnectTimeoutError(entry.name, options.connectTimeoutMs)),
		options.connectTimeoutMs,
	);
	const cancel = () => deadline.abort(signal?.reason ?? new Error(`Connecting to "${entry.name}" was cancelled`));
	if (signal?.aborted) cancel();
	signal?.addEventListener("abort", cancel, { once: true });
	try {
		// Cancelled before it began (shutdown right after a start): nothing is spawned or fetched.
		if (deadline.signal.aborted) throw deadline.signal.reason;
		return entry.transport === "stdio"
			? await openStdio(sdk, entry, launch ?? entry, options, deadline.signal)
			: await openHttp(await untilAborted(sdk(), deadline.signal), entry, options, deadline.signal);
	} finally {
		clearTimeout(timer);
		signal?.removeEventListener("abort", cancel);
	}
}

/** What each client declared when it was made (the SDK keeps it private). */
const declared = new WeakMap<Client, ClientCapabilities>();

/** The capabilities a client declared: a 2026 request that declares more (the tasks extension) restates them. */
export function declaredCapabilities(client: Client): ClientCapabilities {
	return declared.get(client) ?? {};
}

/** A client that declares (and answers) the server-to-client requests it was given handlers for. */
function newClient(sdk: McpSdk, entry: ServerEntry, requests: ClientRequests = {}, negotiate = false) {
	const server = entry.name;
	const { elicit, sample, log } = requests;
	const roots = requests.roots?.(entry) === undefined ? undefined : requests.roots;
	const capabilities: ClientCapabilities = {
		...(elicit ? { elicitation: { form: { applyDefaults: true }, url: {} } } : {}),
		...(sample ? { sampling: {} } : {}),
		...(roots ? { roots: { listChanged: true } } : {}),
		// SEP-2133: extensions are declared by both sides; skills are listed only from a server that declares them too.
		extensions: { [SKILLS_EXTENSION]: {}, ...requests.extensions },
	};
	const client = new sdk.Client(CLIENT_INFO, {
		// Streamable HTTP asks the server which revision it speaks (server/discover, one round trip;
		// a 2025 server gets the initialize handshake). stdio stays on the 2025 handshake: some stdio
		// servers exit on any request before initialize.
		...(negotiate ? { versionNegotiation: { mode: "auto" as const } } : {}),
		capabilities,
	});
	declared.set(client, capabilities);
	if (elicit)
		client.setRequestHandler("elicitation/create", (request, ctx) => elicit(server, request.params, ctx.mcpReq.signal));
	if (sample)
		client.setRequestHandler("sampling/createMessage", (request, ctx) =>
			sample(server, request.params, ctx.mcpReq.signal),
		);
	if (roots) client.setRequestHandler("roots/list", () => ({ roots: roots(entry) ?? [] }));
	if (log) client.setNotificationHandler("notifications/message", (notification) => log(server, notification.params));
	return client;
}

/** Connects a client over a transport, giving up when `signal` aborts; on any failure `cleanup` runs before the error is thrown. */
async function connectClient(
	client: Client,
	transport: Transport,
	options: OpenOptions,
	signal: AbortSignal,
	cleanup: () => Promise<void>,
): Promise<void> {
	try {
		await untilAborted(client.connect(transport, { timeout: options.connectTimeoutMs, signal }), signal);
	} catch (error) {
		await cleanup();
		throw signal.aborted ? (signal.reason ?? error) : error;
	}
}

async function openStdio(
	loading: () => Promise<McpSdk>,
	entry: StdioServerEntry,
	launch: Launch,
	options: OpenOptions,
	signal: AbortSignal,
): Promise<Opened> {
	const stderr = new TailBuffer(STDERR_TAIL_BYTES);
	const inherited = definedOnly(options.env);
	const env = await resolveCommandValues(entry.env, "env", inherited);
	options.redactor.add(...resolvedSecrets(entry, env));
	if (signal.aborted) throw signal.reason;
	if (options.broker?.shares(entry)) {
		// The folder it would run in here: the broker's own is not the session's project.
		const launched = {
			command: launch.command,
			args: launch.args,
			env: { ...inherited, ...env },
			cwd: entry.cwd ?? process.cwd(),
		};
		const sdk = await untilAborted(loading(), signal);
		options.onLaunched?.();
		const shared = await openShared(sdk, entry, launched, { ...options, broker: options.broker }, signal);
		if (shared) return shared;
	}
	/** The SDK's message parsing, once it is loaded: the server says nothing before it is asked (a line before then is skipped). */
	let parse: ((line: string) => JSONRPCMessage) | undefined;
	const transport = new StdioTransport({
		command: launch.command,
		args: launch.args,
		env: { ...inherited, ...env },
		cwd: entry.cwd,
		maxMessageBytes: options.maxMessageBytes,
		parse: (line) => {
			if (!parse) throw new Error("not asked yet");
			return parse(line);
		},
		onStderr: (chunk) => {
			stderr.push(chunk);
			if (entry.debug)
				(options.debugLog ?? defaultDebugLog)(entry.name, options.redactor.scrub(chunk.toString("utf8")));
		},
	});
	const killSync = () => transport.killSync();
	options.live?.add(killSync);
	let client: Client | undefined;
	const close = async () => {
		if (client) client.onclose = undefined;
		await client?.close().catch(() => undefined); // the transport below ends the process whatever the client says
		await transport.close();
		options.live?.delete(killSync);
	};
	try {
		// The server starts first, then the SDK loads (the session's first connect) while it boots; the
		// client speaks once both are ready.
		const spawned = transport.start();
		options.onLaunched?.();
		const sdk = await untilAborted(
			Promise.all([loading(), spawned]).then(([loaded]) => loaded),
			signal,
		);
		parse = sdk.deserializeMessage;
		client = newClient(sdk, entry, options.requests);
		// A server that stopped reading gets its moment to exit before it is ended: its exit code is the news.
		await connectClient(client, transport, options, signal, () => transport.settle().then(close));
	} catch (error) {
		if (!client) await close(); // stopped before the client owned the transport
		const tail = stderr.text().trim();
		const why = startFailure(error, transport.exit);
		if (!tail && why === describeError(error)) throw error;
		throw new Error(tail ? `${why}\nServer stderr:\n${tail}` : why, { cause: error });
	}
	return {
		client,
		kind: "stdio",
		pid: transport.pid,
		stderrTail: () => stderr.text(),
		transportFailure: () => transport.failure,
		exitStatus: () => transport.exit,
		settle: () => transport.settle(),
		close,
		killSync,
	};
}

/** The server through the per-user broker; undefined when the broker cannot serve it (then it runs here). */
async function openShared(
	sdk: McpSdk,
	entry: StdioServerEntry,
	launch: SharedLaunch,
	options: OpenOptions & { broker: SharedServers },
	signal: AbortSignal,
): Promise<Opened | undefined> {
	const limits = { maxMessageBytes: options.maxMessageBytes, connectTimeoutMs: options.connectTimeoutMs };
	const transport = await options.broker.open(entry, launch, limits, sdk.deserializeMessage, signal);
	if (!transport) return undefined;
	const client = newClient(sdk, entry, options.requests);
	const close = async () => {
		client.onclose = undefined;
		await client.close().catch(() => undefined); // the transport below ends the process whatever the client says
		await transport.close();
	};
	await connectClient(client, transport, options, signal, close);
	return {
		client,
		kind: "stdio",
		shared: true,
		stderrTail: () => "",
		transportFailure: () => transport.failure,
		close,
		killSync: () => transport.destroy(),
	};
}

/** Streamable HTTP first, SSE as the fallback (or SSE only for `type: "sse"`), within one deadline. */
async function openHttp(
	sdk: McpSdk,
	entry: HttpServerEntry,
	options: OpenOptions,
	signal: AbortSignal,
): Promise<Opened> {
	options.onLaunched?.();
	const url = new URL(entry.url);
	const credentials = await requestHeaders(entry, options.auth);
	if (credentials.oauthToken) options.onCredential?.(credentials.oauthToken);
	const headers = await resolveCommandValues(credentials.headers, "headers", definedOnly(options.env));
	options.redactor.add(...resolvedSecrets(entry, headers));
	if (signal.aborted) throw signal.reason;
	const requestInit: RequestInit = { headers };
	const { authProvider, fetch: signing } = await authorization(entry, credentials, options);
	const onRefused = (response: Response) => {
		const { scope, error, resourceMetadataUrl } = sdk.extractWWWAuthenticateParams(response);
		options.onChallenge?.({
			status: response.status as 401 | 403,
			scope,
			error,
			resourceMetadataUrl: resourceMetadataUrl?.toString(),
		});
	};
	const attempt = async (kind: "streamable-http" | "sse"): Promise<Opened> => {
		// A DPoP proof is made under the guard: a request it sends again gets a fresh one.
		const guard = new HttpGuard({ maxMessageBytes: options.maxMessageBytes, onRefused, fetch: signing });
		const inner =
			kind === "sse"
				? new sdk.SSEClientTransport(url, { requestInit, fetch: guard.fetch, authProvider })
				: new sdk.StreamableHTTPClientTransport(url, { requestInit, fetch: guard.fetch, authProvider });
		const client = newClient(sdk, entry, options.requests, kind === "streamable-http");
		const close = async () => {
			client.onclose = undefined;
			await client.close().catch(() => undefined); // the transport below ends the process whatever the client says
			guard.abort(); // no fetch, stream or EventSource retry outlives the connection
		};
		await connectClient(client, guard.wrap(inner), options, signal, close);
		return {
			client,
			kind,
			stderrTail: () => "",
			transportFailure: () => undefined,
			close,
			killSync: () => guard.abort(),
			oauthToken: credentials.oauthToken,
		};
	};
	if (entry.transport === "sse") return attempt("sse");
	try {
		return await attempt("streamable-http");
	} catch (streamableError) {
		// New credentials, not another transport, follow a refusal.
		if (afterError({ error: streamableError, during: "connect" }) === "sign-in" || signal.aborted)
			throw streamableError;
		try {
			return await attempt("sse");
		} catch (sseError) {
			if (afterError({ error: sseError, during: "connect" }) === "sign-in" || signal.aborted) throw sseError;
			throw httpFailure(url, entry.source.path, streamableError, sseError);
		}
	}
}

/**
 * How the connection authorizes beyond its headers: a grant that needs no user (client
 * credentials, workload identity, enterprise) as the transports' auth provider; a DPoP-bound
 * token (the sign-in's, or such a grant's) presented by a signing fetch under the HTTP guard.
 */
async function authorization(
	entry: HttpServerEntry,
	credentials: Awaited<ReturnType<typeof requestHeaders>>,
	options: OpenOptions,
): Promise<{ authProvider?: AuthProvider; fetch?: FetchLike }> {
	if (usesOAuth(entry) && !signsInWithBrowser(entry)) {
		const grant = await machineGrant(entry, { env: options.env, redactor: options.redactor });
		return { authProvider: grant.authProvider, fetch: await grant.wrapFetch(fetch) };
	}
	const key = credentials.dpopKey;
	if (!key) return {};
	options.redactor.add(key.privateJwk.d);
	const session = await dpopSession(key);
	const token = credentials.oauthToken;
	return {
		fetch: await dpopFetch(
			() => session,
			() => token,
			fetch,
			(secret) => options.redactor.add(secret),
		),
	};
}

export { type ListedMetadata, listMetadata } from "./list-metadata.ts";
export { headerSource } from "./param-headers.ts";
export { advertisesTasks, taskRoute } from "./task-route.ts";

/** Timeouts and cancellations in words a user can act on. */
export function explainRequestError(
	sdk: McpSdk,
	error: unknown,
	connection: ServerConnection,
	timeoutMs: number,
): unknown {
	const code = (error as { code?: unknown } | null)?.code;
	if (code === sdk.SdkErrorCode.RequestTimeout && /timed out/i.test(describeError(error))) {
		return new Error(
			`No answer from "${connection.name}" within ${Math.round(timeoutMs / 1000)} s. Raise its "timeout" (seconds) or settings.requestTimeoutMs if it needs longer.`,
			{ cause: error },
		);
	}
	return error;
}

/**
 * Adds why the connection ended: the transport's own reason, or, for a stdio server that went
 * away during the call, that it crashed, that the next call starts it again, and the end of its
 * stderr. The transport's error ("Connection closed", "write EPIPE") is kept only as the cause.
 */
export function withStderr(error: unknown, connection: ServerConnection): unknown {
	if (connection.status === "connected" && !isInputClosed(error)) return error;
	const failure = connection.transportFailure();
	if (failure) return new Error(`${describeError(error)}: ${failure}`, { cause: error });
	if (connection.transportKind !== "stdio") return error;
	const exit = connection.exitStatus?.();
	const head = `Server "${connection.name}" crashed during the call (${exit ?? describeError(error)}); it starts again at the next call.`;
	const tail = connection.stderrTail().trim();
	return new Error(tail ? `${head}\nIts stderr ended with:\n${tail}` : head, { cause: error });
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
	return out;
}

function defaultDebugLog(server: string, text: string): void {
	process.stderr.write(terminalSafe(text).replace(/^(?=.)/gm, `[mcp:${oneLine(server)}] `));
}
