// The loopback servers of one MCP App page, and the channel its view's messages travel. Two
// servers on 127.0.0.1 and free ports, so the host page and the sandbox page have different
// origins (the spec requires it): the host page answers only under a random token path, the
// sandbox page and the view under another (the browser is handed a one-time address that
// redirects to the token's, keeping the token off its command line). Each answers only requests
// that name it by that exact address (a page of another site that points a name of its own at
// 127.0.0.1 gets nothing). The channel is an SDK `Transport` for the AppBridge: messages from the
// page arrive as POSTs, messages to it leave on a server-sent events stream.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { answering, listenOn } from "../bounds/loopback-http.ts";
import { allowAttribute, hostCsp, sandboxCsp, viewCsp } from "./csp.ts";
import { hostPage, sandboxPage } from "./page-html.ts";
import type { View } from "./view-resource.ts";

/** The largest message a page may POST (a tool call's arguments; the default `maxArgumentMB` is 4). */
const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;
/** Messages kept for a page that has not connected its stream yet. */
const MAX_PENDING = 256;

export interface AppPage {
	/** The host page's address, token included (shown to the user, for a browser elsewhere). */
	readonly url: string;
	/**
	 * What the browser is handed: an address that works once, redirecting to `url`, so the token is
	 * not in the browser's command line for as long as it runs (`ps` shows it to every local user).
	 */
	readonly launchUrl: string;
	/** The AppBridge's side of the page. */
	readonly transport: Transport;
	/** Whether a page listens now (its events stream is open). */
	connected(): boolean;
	/** Ends the page's stream (saying why) and both servers. */
	close(reason: string): Promise<void>;
}

/** Starts the servers of one page for `view`, labelled `label` (server and tool). */
export async function startAppPage(view: View, label: string): Promise<AppPage> {
	const token = randomBytes(24).toString("base64url");
	const sandboxToken = randomBytes(24).toString("base64url");
	const launch = randomBytes(24).toString("base64url");
	let launched = false;
	const channel = new PageChannel();
	const host = createServer();
	const sandbox = createServer();
	const listening = await Promise.allSettled(
		[host, sandbox].map((server) => listenOn(server, { port: 0, host: "127.0.0.1" })),
	);
	if (listening.some((result) => result.status === "rejected")) {
		await Promise.all([stop(host), stop(sandbox)]);
		throw new Error("no loopback port for the app's page", { cause: listening });
	}
	const [hostPort, sandboxPort] = listening.map((result) => (result as PromiseFulfilledResult<number>).value);
	const hostOrigin = `http://127.0.0.1:${hostPort}`;
	const sandboxOrigin = `http://127.0.0.1:${sandboxPort}`;
	const allow = allowAttribute(view.permissions);
	const sandboxUrl = `${sandboxOrigin}/${sandboxToken}/sandbox`;
	host.on(
		"request",
		answering((req, res) => {
			const path = requestPath(req, hostOrigin, res);
			if (path === `/${token}/` && req.method === "GET") {
				const nonce = randomBytes(16).toString("base64");
				send(
					res,
					200,
					"text/html",
					hostPage({ nonce, label, sandboxUrl, sandboxOrigin, allow }),
					hostCsp(nonce, sandboxOrigin),
				);
			} else if (path === `/${launch}` && req.method === "GET") {
				if (launched) send(res, 410, "text/plain", "This address opened the app once already: open the one Pi showed.");
				else {
					launched = true;
					res.writeHead(303, { location: `/${token}/`, "cache-control": "no-store", "referrer-policy": "no-referrer" });
					res.end();
				}
			} else if (path === `/${token}/events` && req.method === "GET") channel.attach(res);
			else if (path === `/${token}/messages` && req.method === "POST")
				void receive(req, res, hostOrigin, channel).catch(() => failed(res));
			else if (path !== undefined) send(res, 404, "text/plain", "Not found");
		}, failed),
	);
	sandbox.on(
		"request",
		answering((req, res) => {
			const path = requestPath(req, sandboxOrigin, res);
			if (path === `/${sandboxToken}/sandbox` && req.method === "GET") {
				const nonce = randomBytes(16).toString("base64");
				const viewPath = `/${sandboxToken}/view`;
				send(res, 200, "text/html", sandboxPage({ nonce, hostOrigin, viewPath, allow }), sandboxCsp(nonce, hostOrigin));
			} else if (path === `/${sandboxToken}/view` && req.method === "GET")
				send(res, 200, "text/html", view.html, viewCsp(view.csp, [sandboxOrigin, hostOrigin]));
			else if (path !== undefined) send(res, 404, "text/plain", "Not found");
		}, failed),
	);
	let closing: Promise<void> | undefined;
	return {
		url: `${hostOrigin}/${token}/`,
		launchUrl: `${hostOrigin}/${launch}`,
		transport: channel,
		connected: () => channel.connected(),
		close: (reason) => {
			closing ??= (async () => {
				channel.end(reason);
				await Promise.all([stop(host), stop(sandbox)]);
				await channel.close();
			})();
			return closing;
		},
	};
}

/** The SDK transport over the page: POSTed messages in, a server-sent events stream out. */
class PageChannel implements Transport {
	onmessage?: (message: JSONRPCMessage) => void;
	onclose?: () => void;
	onerror?: (error: Error) => void;
	private stream?: ServerResponse;
	/** What the host sent before a page first connected (the view's answers come after). */
	private pending: string[] = [];
	private attached = false;
	private closed = false;

	async start(): Promise<void> {}

	async send(message: JSONRPCMessage): Promise<void> {
		const event = `data: ${JSON.stringify(message)}\n\n`;
		if (this.stream) this.stream.write(event);
		else if (!this.attached && this.pending.length < MAX_PENDING) this.pending.push(event);
	}

	/** A page's events stream; a reload's new stream replaces the old one. */
	attach(res: ServerResponse): void {
		if (this.closed) return void send(res, 410, "text/plain", "This app has closed.");
		this.stream?.end();
		res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
		res.write(": connected\n\n");
		for (const event of this.pending.splice(0)) res.write(event);
		this.attached = true;
		this.stream = res;
		res.on("close", () => {
			if (this.stream === res) this.stream = undefined;
		});
	}

	receive(message: JSONRPCMessage): void {
		if (!this.closed) this.onmessage?.(message);
	}

	connected(): boolean {
		return this.stream !== undefined;
	}

	/** Tells the page the app closed, and why (shown on the page). */
	end(reason: string): void {
		this.stream?.end(`event: closed\ndata: ${reason.replace(/[\r\n]+/g, " ")}\n\n`);
		this.stream = undefined;
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		this.end("closed");
		this.onclose?.();
	}
}

/** A POSTed message: from the host page only (its origin), within the size, a JSON-RPC object. */
async function receive(req: IncomingMessage, res: ServerResponse, origin: string, channel: PageChannel) {
	if (req.headers.origin !== origin) return send(res, 403, "text/plain", "Wrong origin");
	let body: string;
	try {
		body = await readBody(req);
	} catch (error) {
		return send(res, 413, "text/plain", (error as Error).message);
	}
	let message: unknown;
	try {
		message = JSON.parse(body);
	} catch {
		return send(res, 400, "text/plain", "Not JSON");
	}
	if (typeof message !== "object" || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== "2.0")
		return send(res, 400, "text/plain", "Not a JSON-RPC message");
	send(res, 202, "text/plain", "");
	channel.receive(message as JSONRPCMessage);
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on("data", (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_MESSAGE_BYTES) {
				reject(new Error(`A message over ${MAX_MESSAGE_BYTES} bytes`));
				req.destroy();
			} else chunks.push(chunk);
		});
		req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
		req.on("error", reject);
	});
}

/** As bounds/loopback-http.ts answers a failed request, with the headers of every answer here. */
function failed(res: ServerResponse): void {
	if (res.headersSent) res.destroy();
	else send(res, 500, "text/plain", "The app's page failed to answer this request.");
}

/**
 * The request's path when it names this server by its exact address; else answered here: 403 for
 * another address, 400 for a path no URL parser accepts (`//[` would throw).
 */
function requestPath(req: IncomingMessage, origin: string, res: ServerResponse): string | undefined {
	if (`http://${req.headers.host}` !== origin) {
		send(res, 403, "text/plain", "Wrong host");
		return undefined;
	}
	try {
		return new URL(req.url ?? "/", origin).pathname;
	} catch {
		send(res, 400, "text/plain", "Not a valid path");
		return undefined;
	}
}

function send(res: ServerResponse, status: number, type: string, body: string, csp?: string): void {
	res.writeHead(status, {
		"content-type": `${type}; charset=utf-8`,
		"cache-control": "no-store",
		"referrer-policy": "no-referrer",
		"x-content-type-options": "nosniff",
		...(csp ? { "content-security-policy": csp } : {}),
	});
	res.end(body);
}

/** Closes a server and every connection it holds (an events stream stays open otherwise). */
function stop(server: Server): Promise<void> {
	return new Promise((resolve) => {
		server.close(() => resolve());
		server.closeAllConnections();
	});
}
