// The OAuth-protected fixture server (tests/fixtures/oauth-server.ts) as a child process on a free
// 127.0.0.1 port, and a "browser" that approves a sign-in by following its redirect.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { freePort, ROOT, stopChild, waitForPort } from "./helpers.ts";

const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");

export interface OAuthServer {
	readonly url: string;
	stats(): Promise<{ signIns: number; refreshes: number; refusedRefreshes: number; requests: number }>;
	/** The form bodies the token endpoint received, in order. */
	tokenRequests(): Promise<Record<string, string>[]>;
	stop(): Promise<void>;
}

export async function startOAuthServer(tokenTtlSeconds = 3600, env: Record<string, string> = {}): Promise<OAuthServer> {
	const port = await freePort();
	const child: ChildProcess = spawn(
		process.execPath,
		[TSX, join(ROOT, "tests/fixtures/oauth-server.ts"), String(port)],
		{
			env: { ...process.env, TOKEN_TTL: String(tokenTtlSeconds), ...env },
			stdio: "ignore",
		},
	);
	await waitForPort(port, child);
	const get = async <T>(path: string) => (await fetch(`http://127.0.0.1:${port}${path}`)).json() as Promise<T>;
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		stats: () => get("/stats"),
		tokenRequests: () => get("/token-requests"),
		stop: () => stopChild(child),
	};
}

/** A browser that approves: it follows the authorization page's redirect to the callback. */
export const browser = (url: string) => void fetch(url).catch(() => undefined);
