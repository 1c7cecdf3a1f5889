// The OAuth client's own secrets: `${VAR}` in oauth.clientSecret, as the README writes it, is the
// variable's value at the token endpoint (a confidential client registered beforehand signs in);
// and a token endpoint that echoes what it was sent (the client secret, the code, the PKCE
// verifier) has none of them shown in the sign-in's error, in any encoding.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpRuntime } from "../../mcp-runtime.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { tempDir } from "../support/helpers.ts";
import { browser, type OAuthServer, startOAuthServer } from "../support/oauth-fixture.ts";

/** A client secret with characters a form body encodes. */
const SECRET = 'cs+9/Qx"z=7!w~e';
const CLIENT = { PRE_CLIENT_ID: "pre-client", PRE_CLIENT_SECRET: SECRET };

describe("the OAuth client's secrets", () => {
	let server: OAuthServer | undefined;
	let dir: ReturnType<typeof tempDir>;
	let agentDir: string;
	let runtime: McpRuntime | undefined;
	const configure = async (oauth: Record<string, unknown>, fixture: Record<string, string>) => {
		server = await startOAuthServer(3600, fixture);
		writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { prot: { url: server.url, oauth } } }));
		runtime = new McpRuntime({
			cwd: dir.path,
			env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, EXAMPLE_SECRET: SECRET },
		});
		return runtime;
	};
	beforeEach(() => {
		dir = tempDir();
		agentDir = join(dir.path, "agent");
		mkdirSync(agentDir);
	});
	afterEach(async () => {
		await runtime?.shutdown();
		await server?.stop();
		dir.remove();
	});

	it("${VAR} in oauth.clientSecret is the variable's value at the token endpoint: the registered client signs in", async () => {
		const rt = await configure({ clientId: "pre-client", clientSecret: "${EXAMPLE_SECRET}" }, CLIENT);
		await rt.signIn("prot", { show: () => undefined, openBrowser: browser });
		const sent = await (server as OAuthServer).tokenRequests();
		expect(sent.map((body) => body.client_secret)).toEqual([SECRET]);
		expect(contentText((await runProxy(rt.lifecycle, { tool: "prot_whoami" })).content)).toBe(
			"hello, client signed in",
		);
	});

	it("a token endpoint echoing the client secret, the code and the verifier: the sign-in error shows none of them", async () => {
		const rt = await configure({ clientId: "pre-client", clientSecret: SECRET }, { ...CLIENT, ECHO_TOKEN: "1" });
		const error = await rt.signIn("prot", { show: () => undefined, openBrowser: browser }).then(
			() => new Error("the sign-in did not fail"),
			(e: Error) => e,
		);
		const [sent] = await (server as OAuthServer).tokenRequests();
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
