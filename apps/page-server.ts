// The loopback servers of one MCP App page. Two servers on 127.0.0.1 and free ports, so the host
// page and the sandbox page have different origins (the spec requires it): the host page answers
// only under a random token path, the sandbox page and the view under another. The browser is
// never handed an address: it opens a launch file only the user can read (apps/launch-file.ts),
// which POSTs a one-time launch token here and is redirected to the token's address, so no address
// that opens the page is ever on a command line (`ps` shows those to every local user). Each server
// answers only requests that name it by that exact address (a page of another site that points a
// name of its own at 127.0.0.1 gets nothing). The page's messages travel apps/page-channel.ts; what
// reaches for the page without being it (its launch token used again, a second events stream, a
// message without the open stream's key) is refused and reported through `onRefused`.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { answering, listenOn } from "../bounds/loopback-http.ts";
import { allowAttribute, hostCsp, sandboxCsp, viewCsp } from "./csp.ts";
import { type LaunchFile, writeLaunchFile } from "./launch-file.ts";
import { PageChannel, STREAM_KEY_HEADER } from "./page-channel.ts";
import { hostPage, launchPage, sandboxPage } from "./page-html.ts";
import type { View } from "./view-resource.ts";

/** The largest message a page may POST (a tool call's arguments; the default `maxArgumentMB` is 4). */
const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;
/** The largest launch form (its one field holds a 32-character token). */
const MAX_LAUNCH_BYTES = 1024;

export interface AppPage {
	/** The host page's address, token included (shown to the user, for a browser elsewhere). */
	readonly url: string;
	/**
	 * What the browser is handed: the path of a page only the user can read, which opens `url`
	 * once; removed once used, or with the page.
	 */
	readonly launchFile: string;
	/** The AppBridge's side of the page. */
	readonly transport: Transport;
	/** Whether a page listens now (its events stream is open). */
	connected(): boolean;
	/** Ends the page's stream (saying why) and both servers. */
	close(reason: string): Promise<void>;
}

export interface PageOptions {
	/** The private folder the launch file's own folder is made in (made 0700 when missing). */
	readonly launchDir: string;
	/** Told, in a few words, of each request that reached for the page without being it (it was refused). */
	readonly onRefused?: (what: string) => void;
}

/** Starts the servers of one page for `view`, labelled `label` (server and tool), and writes its launch file. */
export async function startAppPage(view: View, label: string, options: PageOptions): Promise<AppPage> {
	const token = randomBytes(24).toString("base64url");
	const sandboxToken = randomBytes(24).toString("base64url");
	const launch = randomBytes(24).toString("base64url");
	const refused = (what: string) => options.onRefused?.(what);
	let launched = false;
	let launchFile: LaunchFile | undefined;
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
	/** The launch form's POST: the token once (then the file goes), 410 and a report after. */
	const redeem = async (req: IncomingMessage, res: ServerResponse) => {
		const given = new URLSearchParams(await readBody(req, MAX_LAUNCH_BYTES)).get("launch");
		if (given !== launch) return send(res, 403, "text/plain", "Not this page's launch token.");
		if (launched) {
			refused("its one-time launch token was used again");
			return send(res, 410, "text/plain", "This app was opened once already: open the address Pi showed.");
		}
		launched = true;
		launchFile?.remove();
		res.writeHead(303, { location: `/${token}/`, "cache-control": "no-store", "referrer-policy": "no-referrer" });
		res.end();
	};
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
			} else if (path === "/launch" && req.method === "POST")
				void redeem(req, res).catch(() => send(res, 413, "text/plain", "Not a launch form"));
			else if (path === `/${token}/events` && req.method === "GET") openStream(channel, res, refused);
			else if (path === `/${token}/messages` && req.method === "POST")
				void receive(req, res, hostOrigin, channel, refused).catch(() => failed(res));
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
	try {
		launchFile = writeLaunchFile(options.launchDir, launchPage({ label, action: `${hostOrigin}/launch`, launch }));
	} catch (error) {
		await Promise.all([stop(host), stop(sandbox)]);
		throw error;
	}
	const file = launchFile;
	let closing: Promise<void> | undefined;
	return {
		url: `${hostOrigin}/${token}/`,
		launchFile: file.path,
		transport: channel,
		connected: () => channel.connected(),
		close: (reason) => {
			closing ??= (async () => {
				file.remove();
				channel.end(reason);
				await Promise.all([stop(host), stop(sandbox)]);
				await channel.close();
			})();
			return closing;
		},
	};
}

/** The page's events stream, or why not: a stream is open already (reported), or the app has closed. */
function openStream(channel: PageChannel, res: ServerResponse, refused: (what: string) => void): void {
	const attached = channel.attach(res);
	if (attached === "closed") send(res, 410, "text/plain", "This app has closed.");
	else if (attached === "busy") {
		refused("a second page asked for its events while it is open");
		send(res, 409, "text/plain", "This app is open in another page.");
	}
}

/**
 * A POSTed message: from the host page only (its origin, its open stream's key), within the size,
 * a JSON-RPC object. A key of an earlier stream of the page is a reload's late message (409); none
 * of the page's keys is something else holding its address (refused and reported).
 */
async function receive(
	req: IncomingMessage,
	res: ServerResponse,
	origin: string,
	channel: PageChannel,
	refused: (what: string) => void,
) {
	if (req.headers.origin !== origin) return send(res, 403, "text/plain", "Wrong origin");
	const key = channel.checkKey(req.headers[STREAM_KEY_HEADER]);
	if (key === "stale") return send(res, 409, "text/plain", "This page's events stream has ended: reload it.");
	if (key === "unknown") {
		refused("a message came without its open page's key");
		return send(res, 403, "text/plain", "Not the open page's message");
	}
	let body: string;
	try {
		body = await readBody(req, MAX_MESSAGE_BYTES);
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

function readBody(req: IncomingMessage, limit: number): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on("data", (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) {
				reject(new Error(`A message over ${limit} bytes`));
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
