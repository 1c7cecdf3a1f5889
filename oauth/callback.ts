// Where a sign-in comes back: the loopback redirect URI (Pi 1.5's callbackUrl/callbackPort rules,
// RFC 8252), a one-shot listener on it that answers only requests carrying this sign-in's state
// (a forged or stale callback is refused and ignored), and a pasted redirect URL as the other
// way back, for a browser on another machine. The listener also serves a short link to the
// authorization page: its address (hundreds of characters) wraps over several lines in a terminal,
// and a copy of wrapped lines carries their breaks.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { answering, listenOn } from "../bounds/loopback-http.ts";

/** Where the authorization redirect comes back: a loopback address, a port (0 = any free one), a path. */
export interface CallbackTarget {
	readonly host: "localhost" | "127.0.0.1" | "[::1]";
	readonly port: number;
	readonly path: string;
	/** The redirect URI exactly as written, with the port added when it had none (RFC 8252 7.3). */
	url(port: number): string;
}

/** The callback the settings ask for, or an error saying what is wrong with `callbackUrl` and how to fix it. */
export function callbackTarget(settings: {
	readonly callbackUrl?: string;
	readonly callbackPort?: number;
}): CallbackTarget {
	if (!settings.callbackUrl) {
		const port = settings.callbackPort ?? 0;
		return { host: "127.0.0.1", port, path: "/callback", url: (actual) => `http://127.0.0.1:${actual}/callback` };
	}
	let parsed: URL;
	try {
		parsed = new URL(settings.callbackUrl);
	} catch {
		throw new Error("oauth.callbackUrl is not a URL: write it like http://127.0.0.1:8765/callback");
	}
	const host = parsed.hostname;
	if (parsed.protocol !== "http:" || (host !== "localhost" && host !== "127.0.0.1" && host !== "[::1]")) {
		throw new Error(
			"oauth.callbackUrl must use http on localhost, 127.0.0.1 or [::1] (the sign-in listens on this machine only)",
		);
	}
	const written = settings.callbackUrl;
	const port = parsed.port ? Number(parsed.port) : (settings.callbackPort ?? 0);
	return {
		host,
		port,
		path: parsed.pathname,
		url: (actual) => {
			if (parsed.port) return written;
			const withPort = new URL(written);
			withPort.port = String(actual);
			return withPort.toString();
		},
	};
}

export interface Callback {
	readonly url: string;
	/** A short address on this listener that leads (302) to `destination`: one line to copy. */
	shortLink(destination: string): string;
	/** Resolves with the first request to the callback path that `accept` takes, as a full URL; others are answered 400 and ignored. */
	next(signal: AbortSignal, accept: (url: string) => boolean): Promise<string>;
	close(): void;
}

/**
 * A one-shot HTTP listener on the loopback address of the redirect URI. "localhost" listens on
 * 127.0.0.1 and, where the machine has IPv6, on ::1 with the same port: a browser may try either.
 */
export async function listen(target: CallbackTarget): Promise<Callback> {
	let deliver: ((url: string) => void) | undefined;
	const arrived = new Promise<string>((resolve) => (deliver = resolve));
	// A request without this sign-in's state (a forged or stale callback) must not end the sign-in.
	let accept: (url: string) => boolean = () => false;
	const servers: Server[] = [];
	// Unguessable, so another page cannot send the browser through it by accident.
	const shortPath = `/sign-in/${randomBytes(6).toString("hex")}`;
	let destination: string | undefined;
	const open = async (host: string, port: number): Promise<number> => {
		// Any local process or page can call it: a request it cannot parse (`//[`) is answered 500, never a throw.
		const server: Server = createServer(
			answering((req, res) => {
				const url = new URL(req.url ?? "/", "http://callback");
				if (url.pathname === shortPath && destination) {
					res.writeHead(302, { location: destination, "cache-control": "no-store" }).end();
					return;
				}
				if (url.pathname !== target.path) {
					res.writeHead(404).end();
					return;
				}
				const full = new URL(req.url ?? "/", redirect).toString();
				if (!accept(full)) {
					res
						.writeHead(400, { "content-type": "text/plain; charset=utf-8" })
						.end("This does not answer the sign-in Pi is waiting for.");
					return;
				}
				res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
				res.end("<!doctype html><title>Signed in</title><p>Pi received the sign-in. You can close this tab.</p>");
				deliver?.(full);
			}),
		);
		servers.push(server);
		return listenOn(server, { port, host, ipv6Only: host === "::1" }).catch((error: NodeJS.ErrnoException) => {
			if (error.code !== "EADDRINUSE") throw error;
			throw new Error(`the callback port ${port} is in use (oauth.callbackPort or oauth.callbackUrl)`, {
				cause: error,
			});
		});
	};
	const close = () => {
		for (const server of servers) {
			server.closeAllConnections();
			server.close();
		}
	};
	let redirect = "";
	try {
		const port = await open(target.host === "[::1]" ? "::1" : "127.0.0.1", target.port);
		if (target.host === "localhost") await open("::1", port).catch(() => undefined); // no IPv6 here: 127.0.0.1 serves
		redirect = target.url(port);
	} catch (error) {
		close();
		throw error;
	}
	return {
		url: redirect,
		shortLink: (to) => {
			destination = to;
			return new URL(shortPath, redirect).toString();
		},
		next: (signal, accepts) =>
			new Promise((resolve, reject) => {
				accept = accepts;
				if (signal.aborted) return reject(signal.reason);
				signal.addEventListener("abort", () => reject(signal.reason), { once: true });
				void arrived.then(resolve);
			}),
		close,
	};
}

/** The user's pasted redirect URL, if they paste one before the callback arrives. */
export async function pasted(
	ask: ((signal: AbortSignal) => Promise<string | undefined>) | undefined,
	signal: AbortSignal,
): Promise<string> {
	// A dialog that failed or was dismissed means "no paste": the callback may still come.
	const answer = ask ? await ask(signal).catch(() => undefined) : undefined;
	if (answer && /^https?:\/\//.test(answer.trim())) return answer.trim();
	// No paste: wait for the callback (this promise settles only when the sign-in is stopped).
	return new Promise((_, reject) => {
		if (signal.aborted) return reject(signal.reason);
		signal.addEventListener("abort", () => reject(signal.reason), { once: true });
	});
}
