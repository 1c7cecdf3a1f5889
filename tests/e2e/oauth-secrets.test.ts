// The OAuth client's own secrets: `${VAR}` in oauth.clientSecret, as the README writes it, is the
// variable's value at the token endpoint (a confidential client registered beforehand signs in);
// and a token endpoint that echoes what it was sent (the client secret, the code, the PKCE
// verifier) has none of them shown in the sign-in's error, in any encoding. And an access token
// far larger than usual (72 KB) works in every later session on both Pi lines and shows nowhere.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpRuntime } from "../../mcp-runtime.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { browser, type OAuthServer, oauthRuntimes, startOAuthServer } from "../support/oauth-fixture.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

/** A client secret with characters a form body encodes. */
const SECRET = 'cs+9/Qx"z=7!w~e';
const CLIENT = { PRE_CLIENT_ID: "pre-client", PRE_CLIENT_SECRET: SECRET };

describe("the OAuth client's secrets", () => {
	const prot = oauthRuntimes();

	it("${VAR} in oauth.clientSecret is the variable's value at the token endpoint: the registered client signs in", async () => {
		const oauth = { clientId: "pre-client", clientSecret: "${EXAMPLE_SECRET}" };
		const rt = await prot.configure(oauth, CLIENT, { EXAMPLE_SECRET: SECRET });
		await rt.signIn("prot", { show: () => undefined, openBrowser: browser });
		const sent = await prot.fixture().tokenRequests();
		expect(sent.map((body) => body.client_secret)).toEqual([SECRET]);
		expect(await prot.call(rt)).toBe("hello, client signed in");
	});

	it("a token endpoint echoing the client secret, the code and the verifier: the sign-in error shows none of them", async () => {
		const rt = await prot.configure({ clientId: "pre-client", clientSecret: SECRET }, { ...CLIENT, ECHO_TOKEN: "1" });
		const error = await rt.signIn("prot", { show: () => undefined, openBrowser: browser }).then(
			() => new Error("the sign-in did not fail"),
			(e: Error) => e,
		);
		const [sent] = await prot.fixture().tokenRequests();
		// The echo happened, masked: otherwise this test proves nothing.
		expect(error.message).toMatch(/^Sign-in to "prot" failed: .*rejected /);
		for (const field of ["client_secret", "code", "code_verifier"]) expect(error.message).toContain(`${field}=***`);
		const secrets = [sent.client_secret, sent.code, sent.code_verifier];
		expect(secrets.every((s) => typeof s === "string" && s.length >= 8)).toBe(true);
		for (const secret of secrets) {
			for (const form of [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)])
				expect(error.message).not.toContain(form);
			// And whatever the session shows afterwards (/mcp, the CLI) is masked of them too.
			expect(rt.redactor.scrub(`again: ${secret}`)).toBe("again: ***");
		}
	});
});

describe.each(PI_HOSTS)("an oversized access token ($name)", (host) => {
	let server: OAuthServer | undefined;
	let home: PiHome | undefined;
	let runtime: McpRuntime | undefined;
	afterEach(async () => {
		await runtime?.shutdown();
		await home?.dispose();
		await server?.stop();
	});

	it("a 72 KB token the store accepted works in every later pi -p, and shows nowhere", async () => {
		server = await startOAuthServer(3600, { TOKEN_CHARS: "72000" });
		home = await createPiHome({ mcpConfig: { mcpServers: { prot: { url: server.url } } } });
		runtime = new McpRuntime({
			cwd: home.cwd,
			env: { ...process.env, PI_CODING_AGENT_DIR: home.agentDir, HOME: home.root },
		});
		await runtime.signIn("prot", { show: () => undefined, openBrowser: browser });
		await runtime.shutdown();
		runtime = undefined;
		const [token] = storedAccessTokens(home.agentDir);
		expect(token.length).toBe(72_000);
		const call = () => ({ toolCall: { name: "mcp", arguments: { tool: "prot_whoami" } } });
		for (const prompt of ["who", "who again"]) {
			const run = await runPi(home, prompt, {
				host,
				steps: [call, (req) => ({ text: `said: ${lastToolMessage(req)}` })],
			});
			expect(run.code, run.stderr.slice(-2000)).toBe(0);
			expect(run.stdout).toContain("said: hello, client signed in");
			const seen = `${run.stdout}\n${run.stderr}\n${JSON.stringify(home.model.requests)}`;
			for (const piece of [token, token.slice(1000, 1100), Buffer.from(token).toString("base64").slice(1000, 1100)])
				expect(seen).not.toContain(piece);
		}
	}, 120_000);
});

/** The access tokens of the sign-ins stored under an agent dir. */
function storedAccessTokens(agentDir: string): string[] {
	const folder = join(agentDir, "mcp-oauth");
	return readdirSync(folder).map((file) => JSON.parse(readFileSync(join(folder, file), "utf8")).tokens.access_token);
}
