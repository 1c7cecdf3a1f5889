// The OAuth client's own secrets: `${VAR}` in oauth.clientSecret, as the README writes it, is the
// variable's value at the token endpoint (a confidential client registered beforehand signs in);
// and a token endpoint that echoes what it was sent (the client secret, the code, the PKCE
// verifier) has none of them shown in the sign-in's error, in any encoding.
import { describe, expect, it } from "vitest";
import { browser, oauthRuntimes } from "../support/oauth-fixture.ts";

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
