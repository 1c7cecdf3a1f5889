// The sign-in extensions against the OAuth fixture server, which checks DPoP proofs and workload
// tokens with node:crypto (not the SDK): a DPoP-bound sign-in whose token endpoint and MCP endpoint
// both demand a nonce first (and its refresh), and workload identity from a token file the
// platform renews, with a refusal that is said in words and not retried.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { es256Keys, signJwt } from "../fixtures/jws.ts";
import { browser, markSignInsExpired, oauthRuntimes } from "../support/oauth-fixture.ts";

describe("OAuth sign-in extensions", () => {
	const prot = oauthRuntimes();
	const { ask } = prot;
	/**
	 * A runtime whose server takes workload tokens from a file (not yet written), and a signer of
	 * such tokens (claims over a valid default: this fixture's audience, ten minutes to live).
	 */
	const workload = async () => {
		const { privateKey, publicJwk } = es256Keys();
		const tokenFile = join(prot.folder(), "workload-token");
		const runtime = await prot.configure(
			{ grantType: "jwt_bearer", assertionFile: tokenFile },
			{ WIF_JWK: JSON.stringify(publicJwk) },
		);
		const server = prot.fixture();
		const defaults = () => ({
			iss: "https://ci.example",
			sub: "ci-job",
			aud: new URL(server.url).origin,
			exp: Math.floor(Date.now() / 1000) + 600,
		});
		const sign = (claims: Record<string, unknown>) => signJwt({ ...defaults(), ...claims }, privateKey);
		return { runtime, server, tokenFile, sign };
	};

	it("DPoP: a server that advertises it gets a bound token; both nonces are answered; the key stays private, even on refresh", async () => {
		const runtime = await prot.configure({}, { DPOP: "1", DPOP_NONCE: "1" });
		const server = prot.fixture();
		const agentDir = prot.agentDir();
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
		const { runtime, server, tokenFile, sign } = await workload();
		writeFileSync(tokenFile, `${sign({ jti: "first" })}\n`);
		expect(await ask(runtime, { tool: "prot_whoami" })).toBe("hello, client signed in");
		expect(await server.stats()).toMatchObject({ workloadRequests: 1, workloadGrants: 1, lastAssertionJti: "first" });

		writeFileSync(tokenFile, sign({ jti: "renewed" }));
		await runtime.lifecycle.manager.closeAll();
		expect(await ask(runtime, { tool: "prot_whoami" })).toBe("hello, client signed in");
		expect(await server.stats()).toMatchObject({ workloadRequests: 2, lastAssertionJti: "renewed" });
	});

	it("workload identity: a token the server refuses is said in words, sent once, never shown; an expired one is not sent", async () => {
		const { runtime, server, tokenFile, sign } = await workload();
		const wrongAudience = sign({ aud: "https://elsewhere.example", jti: "a" });
		writeFileSync(tokenFile, wrongAudience);
		const refused = await ask(runtime, { tool: "prot_whoami" });
		expect(refused).toContain('Server "prot" needs authentication');
		expect(refused).toContain(`did not accept the workload token from the file ${tokenFile}`);
		expect(refused).toContain("invalid_grant");
		expect(refused).not.toContain(wrongAudience);
		expect(runtime.lifecycle.state("prot")).toBe("needs-auth");
		expect(await server.stats()).toMatchObject({ workloadRequests: 1, workloadGrants: 0 });

		const expired = sign({ exp: Math.floor(Date.now() / 1000) - 600, jti: "b" });
		writeFileSync(tokenFile, expired);
		// The user renewed the file and asks for the server again (/mcp reconnect): it is read, and not sent.
		await runtime.lifecycle.reconnect("prot").catch(() => undefined);
		const told = await ask(runtime, { tool: "prot_whoami" });
		expect(told).toMatch(
			new RegExp(`the workload token in the file ${tokenFile} \\(oauth.assertionFile\\) expired at`),
		);
		expect(await server.stats()).toMatchObject({ workloadRequests: 1 });
	});
});
