// An HTTP endpoint on 127.0.0.1 that records every request it gets (method, path, headers) and
// answers 404: proof that nothing was contacted, and of what would have been sent.
import { createServer, type IncomingHttpHeaders } from "node:http";

export interface Recorder {
	readonly port: number;
	readonly requests: { method?: string; url?: string; headers: IncomingHttpHeaders }[];
	close(): Promise<void>;
}

export async function startRecorder(): Promise<Recorder> {
	const requests: Recorder["requests"] = [];
	const server = createServer((req, res) => {
		requests.push({ method: req.method, url: req.url, headers: req.headers });
		req.resume();
		res.writeHead(404).end();
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return {
		port: (server.address() as { port: number }).port,
		requests,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
