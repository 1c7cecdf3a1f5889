// Guards for the SDK's HTTP transports (streamable HTTP and SSE), given to them as their `fetch`
// and around them as a Transport decorator:
// - every fetch of a connection is aborted when the connection closes or its connect deadline
//   passes, so no socket, stream or EventSource retry outlives it;
// - a response may not grow without bound: a JSON body, or one SSE event, above the limit fails;
// - a request whose answer stream (a POST's SSE response) ends without the answer and cannot be
//   resumed is failed at once, instead of waiting for its timeout;
// - a passing fault (a dropped keep-alive socket, 408/429/502/503/504) is retried twice.
import type { FetchLike, JSONRPCMessage, Transport, TransportSendOptions } from "@modelcontextprotocol/client";
import { sleep } from "../bounds/waits.ts";
import { CONNECTION_CLOSED_CODE } from "../errors.ts";
import { asTaskAnswer, declaresTasks } from "./task-route.ts";

type RequestId = string | number;

const RETRIES = 2;
const BACKOFF_MS = [250, 1000];
const MAX_RETRY_AFTER_MS = 5000;
const TRANSIENT_STATUS = new Set([408, 429, 502, 503, 504]);
/** Statuses that say the request was not run: the only ones a tool call is sent again after. */
const NOT_RUN_STATUS = new Set([408, 429, 503]);

/** Whether a POST body calls a tool (a side effect that must not happen twice). */
function callsTool(body: unknown): boolean {
	if (typeof body !== "string" || !body.includes('"tools/call"')) return false;
	const messages = postedMessages(body);
	return messages === undefined || messages.some((m) => m.method === "tools/call"); // unreadable: assume the worst
}

/** A connection that broke before the answer came (not one that was never made). */
function droppedConnection(error: unknown): boolean {
	const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
	return code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET" || code === "UND_ERR_CLOSED";
}

/** `Retry-After` in seconds or as an HTTP date, in ms; undefined when absent or unreadable. */
function retryAfterMs(response: Response): number | undefined {
	const value = response.headers.get("retry-after");
	if (!value) return undefined;
	const seconds = Number(value);
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export interface HttpGuardOptions {
	/** The largest JSON response body, or SSE event, accepted. */
	readonly maxMessageBytes: number;
	readonly fetch?: FetchLike;
	/** Told of every 401/403 response, to read its WWW-Authenticate challenge (scope, resource metadata). */
	readonly onRefused?: (response: Response) => void;
}

export class HttpGuard {
	private readonly controller = new AbortController();
	private readonly pending = new Set<RequestId>();
	private transport?: GuardedTransport;

	constructor(private readonly options: HttpGuardOptions) {}

	/** Aborts every fetch this guard made or will make. */
	abort(reason?: unknown): void {
		this.controller.abort(reason);
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	/** The fetch to give the SDK's transport. */
	readonly fetch: FetchLike = async (url, init) => {
		const signal = init?.signal ? AbortSignal.any([init.signal, this.controller.signal]) : this.controller.signal;
		const response = await this.retrying(url, { ...init, signal }, signal);
		if (response.status === 401 || response.status === 403) this.options.onRefused?.(response);
		if (!response.body || [101, 204, 205, 304].includes(response.status)) return response;
		const sse = (response.headers.get("content-type") ?? "").includes("text/event-stream");
		const ids = init?.method === "POST" ? requestIds(init.body) : [];
		const limited = this.watched(response.body, sse, ids);
		return new Response(limited, {
			status: response.status,
			statusText: response.statusText,
			headers: response.headers,
		});
	};

	/**
	 * A request that met a passing fault is sent again, twice at most (as Pi 1.5's MCP does): a
	 * connection dropped before any answer (a keep-alive socket the server had closed), or a status
	 * that says "not now" (408, 429, 502, 503, 504), after `Retry-After` (up to 5 s) or a short
	 * backoff. A tool call may have side effects: it is sent again only after 408, 429 or 503,
	 * which say it did not run. A refused connection or an unknown host is final: asking again
	 * would only delay the error. A 500 is final too: the request may have run.
	 */
	private async retrying(url: string | URL, init: RequestInit, signal: AbortSignal): Promise<Response> {
		const send = this.options.fetch ?? fetch;
		const replayable = init.body === undefined || init.body === null || typeof init.body === "string";
		for (let attempt = 0; ; attempt++) {
			const last = attempt >= RETRIES || !replayable;
			let response: Response;
			try {
				response = await send(url, init);
			} catch (error) {
				if (last || signal.aborted || !droppedConnection(error) || callsTool(init.body)) throw error;
				await sleep(BACKOFF_MS[attempt], signal);
				continue;
			}
			// The body is parsed (callsTool) only for a transient status: never for a normal answer.
			const transient =
				TRANSIENT_STATUS.has(response.status) && (NOT_RUN_STATUS.has(response.status) || !callsTool(init.body));
			const wait = transient ? (retryAfterMs(response) ?? BACKOFF_MS[attempt]) : undefined;
			if (last || wait === undefined || wait > MAX_RETRY_AFTER_MS) return response;
			// The answer is being replaced by a retry: its body is not needed.
			await response.body?.cancel().catch(() => undefined);
			await sleep(wait, signal);
		}
	}

	/** Wraps the SDK transport so requests can be failed when their stream dies. */
	wrap(inner: Transport): Transport {
		this.transport = new GuardedTransport(inner, this.pending);
		return this.transport;
	}

	/**
	 * The body, read through: bytes are counted (per SSE event, or per body), and how a POST's SSE
	 * answer stream ends is watched, ending normally or with a network error alike.
	 */
	private watched(
		body: ReadableStream<Uint8Array>,
		sse: boolean,
		ids: readonly RequestId[],
	): ReadableStream<Uint8Array> {
		const max = this.options.maxMessageBytes;
		const reader = body.getReader();
		let bytes = 0;
		let lastByte = 0;
		let resumable = false;
		const ended = (why: string) => {
			// The SDK reconnects to a stream only when the server sent an event id; otherwise the answer is lost.
			if (!sse || ids.length === 0 || resumable) return;
			// The SDK parses what arrived first; only then is a missing answer really missing.
			setTimeout(() => this.transport?.fail(ids, why), 50);
		};
		const count = (chunk: Uint8Array) => {
			if (!sse) {
				bytes += chunk.byteLength;
				return;
			}
			const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
			// A blank line ends an SSE event: the limit is per event, so a long-lived stream may carry many.
			const boundary = Math.max(
				text.lastIndexOf("\n\n"),
				text.lastIndexOf("\r\n\r\n"),
				lastByte === 10 && text[0] === 10 ? 0 : -1,
			);
			bytes = boundary >= 0 ? text.length - boundary : bytes + text.length;
			const latin = text.toString("latin1");
			const atLineStart = lastByte === 0 || lastByte === 10;
			if ((atLineStart && latin.startsWith("id:")) || latin.includes("\nid:")) resumable = true;
			lastByte = text.length > 0 ? text[text.length - 1] : lastByte;
		};
		return new ReadableStream<Uint8Array>({
			pull: async (controller) => {
				let next: ReadableStreamReadResult<Uint8Array>;
				try {
					next = await reader.read();
				} catch (error) {
					ended(`the connection dropped (${(error as Error).message})`);
					controller.error(error);
					return;
				}
				if (next.done) {
					ended("the server closed the answer stream before answering");
					controller.close();
					return;
				}
				count(next.value);
				if (bytes > max) {
					const error = new Error(
						`the server's response is over ${Math.round(max / 1024 / 1024)} MB; it was cut off. Raise settings.maxMessageMB if its answers are really that big.`,
					);
					ended(error.message);
					controller.error(error);
					// The stream is being failed on purpose; cancelling it can only fail if it already ended.
					void reader.cancel(error).catch(() => undefined);
					return;
				}
				controller.enqueue(next.value);
			},
			cancel: (reason) => reader.cancel(reason),
		});
	}
}

/** Where a request of the 2026-07-28 wire carries its revision (a per-request `_meta` envelope). */
const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";

/** The revision a request states in its `_meta`, if it states one (2025 requests do not). */
function statedRevision(message: JSONRPCMessage): string | undefined {
	const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
	const version = meta?.[PROTOCOL_VERSION_META];
	return typeof version === "string" ? version : undefined;
}

/**
 * Forwards everything; remembers requests not yet answered, so a dead stream can fail them. A
 * result of the 2026-07-28 wire without `resultType` is taken as complete: the conformance suite
 * asks clients to assume so (SEP-2322), while the SDK refuses it and the call failed, although
 * the server had answered it. A tool call that declared the tasks extension may be answered with
 * a task, which the SDK refuses too: it is handed over as an error that carries it (task-route.ts).
 */
class GuardedTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: Transport["onmessage"];
	/** Requests sent on the 2026 wire, while they are pending. */
	private readonly modern = new Set<RequestId>();
	/** Of those, tool calls that declared the tasks extension. */
	private readonly declaredTasks = new Set<RequestId>();

	constructor(
		private readonly inner: Transport,
		private readonly pending: Set<RequestId>,
	) {
		inner.onclose = () => this.onclose?.();
		inner.onerror = (error) => this.onerror?.(error);
		inner.onmessage = (message, extra) => {
			const id = (message as { id?: RequestId }).id;
			let delivered: JSONRPCMessage = message;
			if (id !== undefined && !("method" in message)) {
				this.pending.delete(id);
				if (this.modern.delete(id)) delivered = completed(delivered);
				if (this.declaredTasks.delete(id)) delivered = asTaskAnswer(delivered);
			}
			this.onmessage?.(delivered, extra);
		};
	}

	get sessionId(): string | undefined {
		return this.inner.sessionId;
	}

	/** On the 2026 wire, cancelling a call closes its own stream: without this the SDK posts a cancel a stateless server cannot match. */
	get hasPerRequestStream(): boolean | undefined {
		return this.inner.hasPerRequestStream;
	}

	start(): Promise<void> {
		return this.inner.start();
	}

	send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
		const id = (message as { id?: RequestId }).id;
		if (id !== undefined && "method" in message) {
			this.pending.add(id);
			if ((statedRevision(message) ?? "") >= "2026-07-28") {
				this.modern.add(id);
				if (declaresTasks(message)) this.declaredTasks.add(id);
			}
			// A call cancelled by closing its own stream (2026 wire) will never be answered: stop waiting for it.
			options?.requestSignal?.addEventListener("abort", () => this.forget(id), { once: true });
		}
		return this.inner.send(message, options);
	}

	close(): Promise<void> {
		return this.inner.close();
	}

	setProtocolVersion(version: string): void {
		this.inner.setProtocolVersion?.(version);
	}

	setSupportedProtocolVersions(versions: string[]): void {
		this.inner.setSupportedProtocolVersions?.(versions);
	}

	/** Stops waiting for a request (answered, given up or failed); whether it was pending. */
	private forget(id: RequestId): boolean {
		this.modern.delete(id);
		this.declaredTasks.delete(id);
		return this.pending.delete(id);
	}

	/** Answers still-pending requests with an error, as if the server had. */
	fail(ids: readonly RequestId[], why: string): void {
		for (const id of ids) {
			if (!this.forget(id)) continue;
			this.onmessage?.({
				jsonrpc: "2.0",
				id,
				error: { code: CONNECTION_CLOSED_CODE, message: `Connection lost before the answer: ${why}` },
			});
		}
	}
}

/** A result with no `resultType`, as a complete one (other messages as they are). */
function completed<T extends JSONRPCMessage>(message: T): T {
	const result = (message as { result?: unknown }).result;
	if (typeof result !== "object" || result === null || "resultType" in result) return message;
	return { ...message, result: { ...result, resultType: "complete" } };
}

/** The JSON-RPC request ids in a POST body (one message or a batch). */
function requestIds(body: unknown): RequestId[] {
	return (postedMessages(body) ?? [])
		.filter((m): m is { id: RequestId; method: string } => "method" in m && "id" in m)
		.map((m) => m.id);
}

/** The JSON-RPC messages of a POST body (one or a batch); undefined when it is not JSON. */
function postedMessages(body: unknown): { id?: unknown; method?: unknown }[] | undefined {
	if (typeof body !== "string") return [];
	try {
		const parsed = JSON.parse(body) as unknown;
		return (Array.isArray(parsed) ? parsed : [parsed]).filter(
			(m): m is { id?: unknown; method?: unknown } => typeof m === "object" && m !== null,
		);
	} catch {
		return undefined;
	}
}
