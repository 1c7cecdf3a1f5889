// The loopback listeners' floor: no request, and no error of the server itself, ends Pi.
import { createServer, request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { listenOn } from "../../bounds/loopback-http.ts";
import { callbackTarget, listen } from "../../oauth/callback.ts";

/** A raw GET of `path` (no client-side parsing, as any local process could send it): its status. */
function rawGet(port: number, path: string): Promise<number | undefined> {
	return new Promise((resolve, reject) => {
		const req = request({ host: "127.0.0.1", port, path, method: "GET" }, (res) => {
			res.resume();
			resolve(res.statusCode);
		});
		req.on("error", reject);
		req.end();
	});
}

describe("a loopback listener", () => {
	const closes: (() => void)[] = [];
	afterEach(() => {
		for (const close of closes.splice(0)) close();
	});

	it("survives a server error after listening (an error with no listener would end Pi)", async () => {
		const server = createServer();
		closes.push(() => server.close());
		const port = await listenOn(server, { port: 0, host: "127.0.0.1" });
		expect(port).toBeGreaterThan(0);
		for (let i = 0; i < 2; i++) expect(() => server.emit("error", new Error("EMFILE"))).not.toThrow();
	});

	it("of a sign-in answers a path no URL parser takes, and keeps waiting for the sign-in", async () => {
		const callback = await listen(callbackTarget({}));
		closes.push(() => callback.close());
		const port = Number(new URL(callback.url).port);
		expect(await rawGet(port, "//[")).toBe(500);
		expect(await rawGet(port, "/callback?state=nope")).toBe(400);
	});

	it("of a sign-in says which port is taken, keeping why", async () => {
		const first = await listen(callbackTarget({}));
		closes.push(() => first.close());
		const port = Number(new URL(first.url).port);
		const taken = await listen(callbackTarget({ callbackPort: port })).catch((error: Error) => error);
		expect(taken).toBeInstanceOf(Error);
		expect((taken as Error).message).toBe(
			`the callback port ${port} is in use (oauth.callbackPort or oauth.callbackUrl)`,
		);
		expect((taken as Error).cause).toMatchObject({ code: "EADDRINUSE" });
	});
});
