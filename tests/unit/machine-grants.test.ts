// Sign-ins without a user, against servers answered in process (a fake fetch): the enterprise
// grant exchanges the ID token at the configured IdP only, then presents the ID-JAG; a workload
// token the server refuses is sent once, and the refusal is worded without echoing it; with DPoP
// advertised, the token request carries a proof and the token goes out with the DPoP scheme.
import type { FetchLike } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { defineServer } from "../../config.ts";
import { machineGrant } from "../../oauth/machine-grants.ts";
import { AuthRequiredError } from "../../oauth-handler.ts";
import { Redactor } from "../../trust/redaction.ts";
import type { HttpServerEntry } from "../../types.ts";
import { es256Keys, signJwt, verifyJwt } from "../fixtures/jws.ts";

const MCP = "https://mcp.example/mcp";
const AS = "https://as.example";
const PRM = "https://mcp.example/.well-known/oauth-protected-resource/mcp";

interface Sent {
	readonly url: string;
	readonly headers: Headers;
	readonly form: URLSearchParams;
}

/** The MCP server's metadata, its authorization server's, and `token` answering each token request. */
function servers(token: (sent: Sent) => Response, asExtra: Record<string, unknown> = {}) {
	const sent: Sent[] = [];
	const fetchFn: FetchLike = async (input, init) => {
		const url = String(input);
		const request: Sent = {
			url,
			headers: new Headers(init?.headers),
			form: new URLSearchParams(String(init?.body ?? "")),
		};
		sent.push(request);
		if (url === PRM) return Response.json({ resource: MCP, authorization_servers: [AS] });
		if (url === `${AS}/.well-known/oauth-authorization-server`)
			return Response.json({
				issuer: AS,
				authorization_endpoint: `${AS}/authorize`,
				token_endpoint: `${AS}/token`,
				response_types_supported: ["code"],
				...asExtra,
			});
		return token(request);
	};
	return { sent, fetchFn };
}

const refusal = () =>
	new Response(null, { status: 401, headers: { "www-authenticate": `Bearer resource_metadata="${PRM}"` } });
const workloadToken = () =>
	signJwt({ sub: "job", aud: AS, exp: Math.floor(Date.now() / 1000) + 600 }, es256Keys().privateKey);

describe("grants without a user", () => {
	it("enterprise: the ID token goes only to the configured IdP; the ID-JAG it returns gets the access token", async () => {
		const idToken = workloadToken();
		const entry = defineServer("crm", {
			url: MCP,
			oauth: {
				grantType: "enterprise",
				clientId: "pi-at-crm",
				clientSecret: "crm-client-secret",
				idp: { tokenEndpoint: "https://idp.example/token", clientId: "pi-at-idp", idTokenEnv: "CORP_ID_TOKEN" },
			},
		}) as HttpServerEntry;
		const { sent, fetchFn } = servers((request) =>
			request.url === "https://idp.example/token"
				? Response.json({
						access_token: "id-jag-for-crm",
						issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
						token_type: "N_A",
					})
				: Response.json({ access_token: "crm-access-token", token_type: "Bearer", expires_in: 3600 }),
		);
		const redactor = new Redactor();
		const grant = await machineGrant(entry, { env: { CORP_ID_TOKEN: idToken }, redactor, fetchFn });
		await grant.authProvider.onUnauthorized?.({ response: refusal(), serverUrl: new URL(MCP), fetchFn });
		expect(await grant.authProvider.token()).toBe("crm-access-token");
		const [exchange, bearer] = sent.filter((s) => s.url.endsWith("/token"));
		expect(exchange.url).toBe("https://idp.example/token");
		expect(Object.fromEntries(exchange.form)).toMatchObject({
			grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
			requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
			subject_token: idToken,
			audience: AS,
			resource: MCP,
			client_id: "pi-at-idp",
		});
		expect(bearer.url).toBe(`${AS}/token`);
		expect(bearer.form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
		expect(bearer.form.get("assertion")).toBe("id-jag-for-crm");
		expect(bearer.headers.get("authorization")).toBe(`Basic ${btoa("pi-at-crm:crm-client-secret")}`);
		expect(sent.filter((s) => s.form.get("subject_token") === idToken).map((s) => s.url)).toEqual([exchange.url]);
		const shown = redactor.scrub(`${idToken} id-jag-for-crm crm-access-token crm-client-secret`);
		expect(shown).toBe("*** *** *** ***");
	});

	it("workload identity: a refused token is sent once; the refusal names the source and the reason, not the token", async () => {
		const token = workloadToken();
		const entry = defineServer("ci", {
			url: MCP,
			oauth: { grantType: "jwt_bearer", assertionEnv: "WORKLOAD_TOKEN" },
		}) as HttpServerEntry;
		const { sent, fetchFn } = servers((request) =>
			Response.json(
				{ error: "invalid_grant", error_description: `unknown issuer in ${request.form.get("assertion")}` },
				{ status: 400 },
			),
		);
		const grant = await machineGrant(entry, { env: { WORKLOAD_TOKEN: token }, redactor: new Redactor(), fetchFn });
		const failed = await grant.authProvider
			.onUnauthorized?.({ response: refusal(), serverUrl: new URL(MCP), fetchFn })
			.catch((error: unknown) => error);
		expect(failed).toBeInstanceOf(AuthRequiredError);
		const message = (failed as Error).message;
		expect(message).toContain(
			"the authorization server did not accept the workload token from $WORKLOAD_TOKEN (oauth.assertionEnv): invalid_grant: unknown issuer in ***",
		);
		expect(message).not.toContain(token);
		const requests = sent.filter((s) => s.url === `${AS}/token`);
		expect(requests).toHaveLength(1);
		// No client ID configured: no client authentication is sent (the workload's token is its identity).
		expect(requests[0].form.has("client_id")).toBe(false);
		expect(requests[0].headers.has("authorization")).toBe(false);
	});

	it("DPoP advertised: the token request carries a proof, and the bound token goes out with the DPoP scheme", async () => {
		const entry = defineServer("ci", {
			url: MCP,
			oauth: { grantType: "jwt_bearer", assertionEnv: "WORKLOAD_TOKEN", clientId: "ci" },
		}) as HttpServerEntry;
		const { sent, fetchFn } = servers(
			() => Response.json({ access_token: "bound-token", token_type: "DPoP", expires_in: 60 }),
			{ dpop_signing_alg_values_supported: ["ES256"] },
		);
		const grant = await machineGrant(entry, {
			env: { WORKLOAD_TOKEN: workloadToken() },
			redactor: new Redactor(),
			fetchFn,
		});
		await grant.authProvider.onUnauthorized?.({ response: refusal(), serverUrl: new URL(MCP), fetchFn });
		const tokenRequest = sent.find((s) => s.url === `${AS}/token`);
		const proof = verifyJwt(tokenRequest?.headers.get("dpop") ?? "");
		expect(proof?.claims).toMatchObject({ htm: "POST", htu: `${AS}/token` });
		let presented = new Headers();
		const signed = await grant.wrapFetch(async (_url, init) => {
			presented = new Headers(init?.headers);
			return new Response("{}");
		});
		await signed(MCP, { method: "POST", headers: { authorization: `Bearer ${await grant.authProvider.token()}` } });
		expect(presented.get("authorization")).toBe("DPoP bound-token");
		expect(verifyJwt(presented.get("dpop") ?? "")?.header.jwk).toEqual(proof?.header.jwk);
	});
});
