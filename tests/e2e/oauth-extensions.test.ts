// The sign-in extensions against the OAuth fixture server, which checks DPoP proofs and workload
// tokens with node:crypto (not the SDK): a DPoP-bound sign-in whose token endpoint and MCP endpoint
// both demand a nonce first (and its refresh), and workload identity from a token file the
// platform renews, with a refusal that is said in words and not retried.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpRuntime } from "../../mcp-runtime.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { es256Keys, signJwt } from "../fixtures/jws.ts";
import { tempDir } from "../support/helpers.ts";
import { browser, markSignInsExpired, type OAuthServer, startOAuthServer } from "../support/oauth-fixture.ts";

describe("OAuth sign-in extensions", () => {
	let server: OAuthServer | undefined;
	let dir: ReturnType<typeof tempDir>;
	let agentDir: string;
	const runtimes: McpRuntime[] = [];
	const open = (servers: Record<string, unknown>) => {
		writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: servers }));
		const runtime = new McpRuntime({ cwd: dir.path, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir } });
		runtimes.push(runtime);
		return runtime;
	};
	const ask = async (runtime: McpRuntime, input: Parameters<typeof runProxy>[1]) =>
		contentText((await runProxy(runtime.lifecycle, input)).content);
	beforeEach(() => {
		dir = tempDir();
		agentDir = join(dir.path, "agent");
		mkdirSync(agentDir);
	});
	afterEach(async () => {
		for (const runtime of runtimes.splice(0)) await runtime.shutdown();
		await server?.stop();
		server = undefined;
		dir.remove();
	});

	it("DPoP: a server that advertises it gets a bound token; both nonces are answered; the key stays private, even on refresh", async () => {
		server = await startOAuthServer(3600, { DPOP: "1", DPOP_NONCE: "1" });
		const runtime = open({ prot: { url: server.url } });
		await runtime.signIn("prot", { show: () => undefined, openBrowser: browser });
		const first = await ask(runtime, { tool: "prot_whoami" });
		expect(first).toBe("hello, client signed in");
		const [file] = readdirSync(join(agentDir, "mcp-oauth"));
		const path = join(agentDir, "mcp-oauth", file);
		expect(statSync(path).mode & 0o777).toBe(0o600);
		const stored = JSON.parse(readFileSync(path, "utf8"));
		expect(stored.tokens.token_type).toBe("DPoP");
		expect(stored.dpopKey.privateJwk.d).toEqual(expect.any(String));
		expect(await server.stats()).toMatchObject({
			tokenProofs: 1,
			asNonceChallenges: 1,
			rsNonceChallenges: 1,
			bearerRequests: 0,
			refusedProofs: 0,
		});
		expect((await server.stats()).dpopRequests).toBeGreaterThan(0);

		// The access token runs out (as stored): the refresh is signed with the same key, nonce and all.
		await runtime.lifecycle.manager.closeAll();
		await server.expireTokens();
		markSignInsExpired(agentDir);
		const second = await ask(runtime, { tool: "prot_whoami" });
		expect(second).toBe("hello, client signed in");
		expect(await server.stats()).toMatchObject({
			refreshes: 1,
			tokenProofs: 2,
			refusedProofs: 0,
			bearerRequests: 0,
			refusedTokens: 0,
		});
		const refreshed = JSON.parse(readFileSync(path, "utf8"));
		expect(refreshed.dpopKey).toEqual(stored.dpopKey);
		const shown = [first, second, await ask(runtime, {}), await ask(runtime, { server: "prot" })].join("\n");
		for (const secret of [stored.dpopKey.privateJwk.d, stored.tokens.access_token, refreshed.tokens.access_token])
			expect(shown).not.toContain(secret);
	});

	it("workload identity: the token in the file signs in without a user; a renewed file is read at the next connect", async () => {
		const { privateKey, publicJwk } = es256Keys();
		server = await startOAuthServer(3600, { WIF_JWK: JSON.stringify(publicJwk) });
		const issuer = new URL(server.url).origin;
		const tokenFile = join(dir.path, "workload-token");
		const workloadToken = (jti: string, claims: Record<string, unknown> = {}) =>
			signJwt(
				{
					iss: "https://ci.example",
					sub: "ci-job",
					aud: issuer,
					exp: Math.floor(Date.now() / 1000) + 600,
					jti,
					...claims,
				},
				privateKey,
			);
		writeFileSync(tokenFile, `${workloadToken("first")}\n`);
		const runtime = open({ ci: { url: server.url, oauth: { grantType: "jwt_bearer", assertionFile: tokenFile } } });
		expect(await ask(runtime, { tool: "ci_whoami" })).toBe("hello, client signed in");
		expect(await server.stats()).toMatchObject({ workloadRequests: 1, workloadGrants: 1, lastAssertionJti: "first" });

		writeFileSync(tokenFile, workloadToken("renewed"));
		await runtime.lifecycle.manager.closeAll();
		expect(await ask(runtime, { tool: "ci_whoami" })).toBe("hello, client signed in");
		expect(await server.stats()).toMatchObject({ workloadRequests: 2, lastAssertionJti: "renewed" });
	});

	it("workload identity: a token the server refuses is said in words, sent once, never shown; an expired one is not sent", async () => {
		const { privateKey, publicJwk } = es256Keys();
		server = await startOAuthServer(3600, { WIF_JWK: JSON.stringify(publicJwk) });
		const tokenFile = join(dir.path, "workload-token");
		const exp = Math.floor(Date.now() / 1000) + 600;
		const wrongAudience = signJwt({ sub: "ci-job", aud: "https://elsewhere.example", exp, jti: "a" }, privateKey);
		writeFileSync(tokenFile, wrongAudience);
		const runtime = open({ ci: { url: server.url, oauth: { grantType: "jwt_bearer", assertionFile: tokenFile } } });
		const refused = await ask(runtime, { tool: "ci_whoami" });
		expect(refused).toContain('Server "ci" needs authentication');
		expect(refused).toContain(`did not accept the workload token from the file ${tokenFile}`);
		expect(refused).toContain("invalid_grant");
		expect(refused).not.toContain(wrongAudience);
		expect(runtime.lifecycle.state("ci")).toBe("needs-auth");
		expect(await server.stats()).toMatchObject({ workloadRequests: 1, workloadGrants: 0 });

		const expired = signJwt({ sub: "ci-job", aud: new URL(server.url).origin, exp: exp - 1200, jti: "b" }, privateKey);
		writeFileSync(tokenFile, expired);
		// The user renewed the file and asks for the server again (/mcp reconnect): it is read, and not sent.
		await runtime.lifecycle.reconnect("ci").catch(() => undefined);
		const told = await ask(runtime, { tool: "ci_whoami" });
		expect(told).toMatch(
			new RegExp(`the workload token in the file ${tokenFile} \\(oauth.assertionFile\\) expired at`),
		);
		expect(await server.stats()).toMatchObject({ workloadRequests: 1 });
	});
});
