// The HTTP listeners this package opens on the loopback address (an MCP App's pages, a sign-in's
// callback): whatever a request or the server does, its failure ends there. Any local process, or
// any page in the user's browser, can send them requests, and a throw from a listener, or an
// 'error' with no listener, is an uncaught exception in Pi's process, which ends Pi.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo, ListenOptions } from "node:net";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Answers 500 to a request whose handling failed, or drops it when the answer had started. */
export function failRequest(res: ServerResponse): void {
	if (res.headersSent) res.destroy();
	else res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("This request could not be answered.");
}

/** A request listener that never throws: a failure is answered by `fail` (500), and Pi goes on. */
export function answering(handler: Handler, fail: (res: ServerResponse) => void = failRequest): Handler {
	return (req, res) => {
		try {
			handler(req, res);
		} catch {
			fail(res);
		}
	};
}

/**
 * Listens as `options` say and resolves with the port. Once listening, an error of the server
 * itself (EMFILE on an accept) has a listener for good, dropped on purpose: the requests fail on
 * their own, and the server's owner closes it.
 */
export function listenOn(server: Server, options: ListenOptions): Promise<number> {
	return new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(options, () => {
			server.off("error", reject);
			server.on("error", () => undefined);
			resolve((server.address() as AddressInfo).port);
		});
	});
}
