// DPoP: when a sign-in proves possession, and a stored key signs proofs that verify (checked with
// node:crypto, not the SDK) with the key's own thumbprint, a fresh one per request, bound to the
// token, the key's private part never in the proofs and the proofs masked where they show.
import { describe, expect, it } from "vitest";
import { dpopAlg, dpopFetch, dpopSession, isDpopBound, newDpopKey } from "../../oauth/dpop.ts";
import { Redactor } from "../../trust/redaction.ts";
import { thumbprint, tokenHash, verifyJwt } from "../fixtures/jws.ts";

describe("when to use DPoP", () => {
	it("oauth.dpop false never, true always; unset when the server advertises an algorithm we sign with", () => {
		const advertising = { dpop_signing_alg_values_supported: ["RS256", "ES384", "ES256"] };
		expect(dpopAlg(undefined, advertising)).toBe("ES256");
		expect(dpopAlg(undefined, { dpop_signing_alg_values_supported: ["ES384"] })).toBe("ES384");
		expect(dpopAlg(false, advertising)).toBeUndefined();
		expect(dpopAlg(undefined, {})).toBeUndefined();
		expect(dpopAlg(undefined, { dpop_signing_alg_values_supported: ["RS256"] })).toBeUndefined();
		expect(dpopAlg(true, {})).toBe("ES256");
		expect(dpopAlg(undefined, {}, { dpop_bound_access_tokens_required: true })).toBe("ES256");
		expect(isDpopBound({ token_type: "dpop" })).toBe(true);
		expect(isDpopBound({ token_type: "Bearer" })).toBe(false);
	});
});

describe("a stored DPoP key", () => {
	it("signs a fresh proof per request for the token, verifiable with its public key and thumbprint", async () => {
		const key = await newDpopKey("ES256");
		expect(key.privateJwk.d).toEqual(expect.any(String));
		expect(key.thumbprint).toBe(thumbprint(key.publicJwk as JsonWebKey));
		// Stored as JSON and read back, as the sign-in file holds it.
		const session = await dpopSession(JSON.parse(JSON.stringify(key)));
		const sent: Headers[] = [];
		const redactor = new Redactor();
		const signed = await dpopFetch(
			() => session,
			() => "access-token-1234",
			async (_url, init) => {
				sent.push(new Headers(init?.headers));
				return new Response("{}");
			},
			(secret) => redactor.add(secret),
		);
		await signed("https://mcp.example/mcp?x=1", { method: "POST", body: "{}" });
		await signed("https://mcp.example/mcp", { method: "POST", body: "{}" });
		const proofs = sent.map((h) => h.get("dpop") ?? "");
		expect(sent.map((h) => h.get("authorization"))).toEqual(["DPoP access-token-1234", "DPoP access-token-1234"]);
		const checked = proofs.map((proof) => verifyJwt(proof));
		expect(checked[0]?.header).toMatchObject({ typ: "dpop+jwt", alg: "ES256" });
		expect(checked[0]?.header.jwk).not.toHaveProperty("d");
		expect(checked[0]?.claims).toMatchObject({
			htm: "POST",
			htu: "https://mcp.example/mcp",
			ath: tokenHash("access-token-1234"),
		});
		expect(thumbprint(checked[0]?.header.jwk as JsonWebKey)).toBe(key.thumbprint);
		expect(checked[0]?.claims.jti).not.toBe(checked[1]?.claims.jti);
		expect(redactor.scrub(`the server echoed ${proofs[1]}`)).not.toContain(proofs[1].split(".")[0]);
	});

	it("leaves a request alone while there is no bound token", async () => {
		const session = await dpopSession(await newDpopKey("ES256"));
		let headers = new Headers();
		const signed = await dpopFetch(
			() => session,
			() => undefined,
			async (_url, init) => {
				headers = new Headers(init?.headers);
				return new Response("{}");
			},
			() => undefined,
		);
		await signed("https://mcp.example/mcp", { method: "POST", headers: { authorization: "Bearer plain" } });
		expect(headers.get("authorization")).toBe("Bearer plain");
		expect(headers.has("dpop")).toBe(false);
	});
});
