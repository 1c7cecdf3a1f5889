// The OAuth-protected fixture server (tests/fixtures/oauth-server.ts) as a child process on a free
// 127.0.0.1 port, a "browser" that approves a sign-in by following its redirect, and the runtimes
// of a describe block signing in to it.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { McpRuntime } from "../../mcp-runtime.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { fixture, freePort, stopChild, tempDir, waitForPort } from "./helpers.ts";

export interface OAuthServer {
	readonly url: string;
	/** What it counted; its DPoP and workload identity modes count more (tests/fixtures/oauth-server.ts). */
	stats(): Promise<
		{ signIns: number; refreshes: number; refusedRefreshes: number; requests: number } & Record<string, number | string>
	>;
	/** The form bodies the token endpoint received, in order. */
	tokenRequests(): Promise<Record<string, string>[]>;
	/**
	 * Every access token it issued so far expires now: it refuses them from here on. With
	 * `holdRefusals`, it answers those refusals only once that many have come.
	 */
	expireTokens(holdRefusals?: number): Promise<void>;
	stop(): Promise<void>;
}

export async function startOAuthServer(tokenTtlSeconds = 3600, env: Record<string, string> = {}): Promise<OAuthServer> {
	const port = await freePort();
	const server = fixture("oauth-server.ts", String(port));
	const child: ChildProcess = spawn(server.command, server.args, {
		env: { ...process.env, TOKEN_TTL: String(tokenTtlSeconds), ...env },
		stdio: "ignore",
	});
	await waitForPort(port, child);
	const get = async <T>(path: string) => (await fetch(`http://127.0.0.1:${port}${path}`)).json() as Promise<T>;
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		stats: () => get("/stats"),
		tokenRequests: () => get("/token-requests"),
		expireTokens: async (holdRefusals = 0) => {
			const address = `http://127.0.0.1:${port}/expire-tokens?holdRefusals=${holdRefusals}`;
			const response = await fetch(address, { method: "POST" });
			if (!response.ok) throw new Error(`the fixture did not expire its tokens: ${response.status}`);
		},
		stop: () => stopChild(child),
	};
}

/**
 * The sign-ins stored under an agent dir say their access tokens expired a second ago, as the
 * client's clock would have it once their time ran out (the server's side: `expireTokens`).
 */
export function markSignInsExpired(agentDir: string): void {
	const folder = join(agentDir, "mcp-oauth");
	for (const file of readdirSync(folder)) {
		const stored = JSON.parse(readFileSync(join(folder, file), "utf8"));
		const tokens = { ...stored.tokens, expires_at: Date.now() - 1000 };
		writeFileSync(join(folder, file), JSON.stringify({ ...stored, tokens }));
	}
}

/** A browser that approves: it follows the authorization page's redirect to the callback. */
export const browser = (url: string) => void fetch(url).catch(() => undefined);

/**
 * For a describe block: a fresh agent dir per test; `configure` starts the fixture server (with
 * `fixtureEnv`) and a runtime whose config names it "prot" with these `oauth` settings, `open`
 * another runtime on the agent dir. Servers, runtimes and folders end after each test.
 */
export function oauthRuntimes() {
	let dir: ReturnType<typeof tempDir> | undefined;
	let server: OAuthServer | undefined;
	const runtimes: McpRuntime[] = [];
	const agentDir = () => join((dir as ReturnType<typeof tempDir>).path, "agent");
	beforeEach(() => {
		dir = tempDir();
		mkdirSync(agentDir());
	});
	afterEach(async () => {
		for (const runtime of runtimes.splice(0)) await runtime.shutdown();
		await server?.stop();
		server = undefined;
		dir?.remove();
	});
	const fixture = () => server as OAuthServer;
	const writeConfig = (oauth: Record<string, unknown>) =>
		writeFileSync(
			join(agentDir(), "mcp.json"),
			JSON.stringify({ mcpServers: { prot: { url: fixture().url, oauth } } }),
		);
	const open = (env: Record<string, string> = {}) => {
		const cwd = (dir as ReturnType<typeof tempDir>).path;
		const runtime = new McpRuntime({ cwd, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir(), ...env } });
		runtimes.push(runtime);
		return runtime;
	};
	return {
		fixture,
		writeConfig,
		open,
		async configure(oauth: Record<string, unknown>, fixtureEnv: Record<string, string> = {}, env = {}) {
			server = await startOAuthServer(3600, fixtureEnv);
			writeConfig(oauth);
			return open(env);
		},
		/** The test's folder (the runtimes' cwd) and the agent dir in it. */
		folder: () => (dir as ReturnType<typeof tempDir>).path,
		agentDir,
		/** The proxy's answer to `input` in a runtime. */
		ask: async (runtime: McpRuntime, input: Parameters<typeof runProxy>[1]) =>
			contentText((await runProxy(runtime.lifecycle, input)).content),
		/** The fixture's one tool, called through the proxy of a runtime. */
		call: async (runtime: McpRuntime) =>
			contentText((await runProxy(runtime.lifecycle, { tool: "prot_whoami" })).content),
	};
}
