// Auth against a real server-everything behind a bearer-token gate on 127.0.0.1: literal and env
// tokens, a wrong token (clear message, token never echoed), token-file OAuth, an expired token,
// and a server name that tries to leave the token folder.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerLifecycle } from "../../lifecycle.ts";
import { CACHE_FILE, MetadataCache } from "../../metadata-cache.ts";
import { authHelp, tokenPath } from "../../oauth-handler.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { McpServerManager } from "../../server-manager.ts";
import { configOf, type RunningServer, startAuthGate, startEverythingHttp, tempDir } from "../support/helpers.ts";

const TOKEN = "tok-7f3a9c-correct-horse";
const WRONG = "tok-wrong-battery-staple";

describe("HTTP auth", () => {
	let server: RunningServer;
	let gate: Awaited<ReturnType<typeof startAuthGate>>;
	let dir: ReturnType<typeof tempDir>;
	let url: string;

	beforeAll(async () => {
		server = await startEverythingHttp("streamableHttp");
		gate = await startAuthGate(server.port, TOKEN);
		url = `http://127.0.0.1:${gate.port}/mcp`;
		dir = tempDir();
	});
	afterAll(async () => {
		await gate?.close();
		await server?.stop();
		dir?.remove();
	});

	async function withServer(
		entry: Record<string, unknown>,
		env: Record<string, string>,
		body: (lc: ServerLifecycle) => Promise<void>,
	) {
		const config = configOf({ remote: entry });
		const lifecycle = new ServerLifecycle({
			config,
			manager: new McpServerManager({ env, auth: { agentDir: dir.path, env } }),
			cache: new MetadataCache(dir.path),
		});
		try {
			await body(lifecycle);
		} finally {
			await lifecycle.shutdown();
		}
	}
	const text = async (lc: ServerLifecycle, input: Parameters<typeof runProxy>[1]) =>
		contentText((await runProxy(lc, input)).content);

	it("a literal bearerToken (with interpolation) gets in", async () => {
		await withServer({ url, bearerToken: TOKEN }, {}, async (lc) => {
			expect(await text(lc, { tool: "remote_echo", args: { message: "hi" } })).toBe("Echo: hi");
		});
	});

	it("bearerTokenEnv reads the token from the environment", async () => {
		await withServer({ url, bearerTokenEnv: "REMOTE_TOKEN" }, { REMOTE_TOKEN: TOKEN }, async (lc) => {
			expect(await text(lc, { tool: "remote_echo", args: { message: "env" } })).toBe("Echo: env");
		});
		await withServer({ url, bearerTokenEnv: "REMOTE_TOKEN" }, {}, async (lc) => {
			expect(await text(lc, { connect: "remote" })).toMatch(
				/needs authentication: \/mcp-auth remote explains \(the environment variable REMOTE_TOKEN/,
			);
		});
	});

	it("a wrong token answers 'needs authentication' and the token appears nowhere", async () => {
		await withServer({ url, bearerToken: WRONG }, {}, async (lc) => {
			const call = await runProxy(lc, { tool: "remote_echo", args: { message: "x" } });
			const status = await text(lc, {});
			const all = `${contentText(call.content)}\n${status}\n${JSON.stringify(call.details)}\n${lc.failure("remote")?.message}`;
			expect(call.isError).toBe(true);
			expect(contentText(call.content)).toContain('Server "remote" needs authentication: /mcp-auth remote');
			expect(status).toContain('remote: Server "remote" needs authentication');
			expect(lc.state("remote")).toBe("needs-auth");
			expect(all).not.toContain(WRONG);
			expect(all).not.toContain(TOKEN);
		});
		const cacheFile = join(dir.path, CACHE_FILE);
		expect(() => readFileSync(cacheFile, "utf8")).not.toThrow();
		expect(readFileSync(cacheFile, "utf8")).not.toContain(TOKEN);
	});

	it("auth: oauth reads <agentDir>/mcp-oauth/<server>/tokens.json; an expired token is reported as such", async () => {
		const file = tokenPath(dir.path, "remote");
		mkdirSync(join(file, ".."), { recursive: true });
		writeFileSync(file, JSON.stringify({ access_token: TOKEN, expires_at: Math.floor(Date.now() / 1000) + 3600 }), {
			mode: 0o600,
		});
		await withServer({ url, auth: "oauth" }, {}, async (lc) => {
			expect(await text(lc, { tool: "remote_echo", args: { message: "oauth" } })).toBe("Echo: oauth");
		});
		writeFileSync(file, JSON.stringify({ access_token: TOKEN, expires_at: Math.floor(Date.now() / 1000) - 60 }));
		await withServer({ url, auth: "oauth" }, {}, async (lc) => {
			const result = await text(lc, { tool: "remote_echo", args: { message: "late" } });
			expect(result).toMatch(
				/needs sign-in: ask the user to run \/mcp-auth remote \(the OAuth token for "remote" expired at \d{4}-/,
			);
			expect(result).not.toContain(TOKEN);
			const help = authHelp(lc.config.servers.get("remote"), "remote", { agentDir: dir.path, env: {} });
			expect(help).toContain(file);
			expect(help).toMatch(/Token: the OAuth token for "remote" expired/);
			expect(help).not.toContain(TOKEN);
		});
	});

	it("a token file other users can read is refused, with the chmod fix", async () => {
		const file = tokenPath(dir.path, "remote");
		mkdirSync(join(file, ".."), { recursive: true });
		writeFileSync(file, JSON.stringify({ access_token: TOKEN }), { mode: 0o644 });
		chmodSync(file, 0o644);
		await withServer({ url, auth: "oauth" }, {}, async (lc) => {
			const result = await text(lc, { tool: "remote_echo", args: { message: "x" } });
			expect(result).toContain(`is readable by other users (mode 644); run: chmod 600 ${file}`);
			expect(result).not.toContain(TOKEN);
		});
		chmodSync(file, 0o600);
		await withServer({ url, auth: "oauth" }, {}, async (lc) => {
			expect(await text(lc, { tool: "remote_echo", args: { message: "private" } })).toBe("Echo: private");
		});
	});

	it("a server name can never take the token path out of its folder", () => {
		for (const bad of ["../../x", "..", "a/b", "a\\b", "", "x/../../y"])
			expect(() => tokenPath(dir.path, bad)).toThrow(/cannot name an OAuth token folder/);
		expect(tokenPath(dir.path, "my-server.v2")).toBe(join(dir.path, "mcp-oauth", "my-server.v2", "tokens.json"));
	});
});
