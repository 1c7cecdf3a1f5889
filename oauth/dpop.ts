// DPoP (RFC 9449, SEP-1932): sender-constrained access tokens. When to prove possession (the
// server's metadata or `oauth.dpop`), the signing key a sign-in keeps beside its tokens (a private
// JWK in the 0600 sign-in file, never shown), and the fetch that presents a DPoP-bound token: the
// SDK's `withDpop` (a fresh proof per request, bound to the token, the server's nonce remembered
// and a `use_dpop_nonce` challenge answered once). It sits under the HTTP guard, so a request the
// guard sends again gets a fresh proof instead of a replayed one.
import { webcrypto } from "node:crypto";
import type { DpopKeyPair, DpopSession, FetchLike } from "@modelcontextprotocol/client";
import { loadClientSdk } from "./sdk.lazy.ts";

/** The algorithms we sign proofs with (ECDSA, whose keys Web Crypto imports from a JWK alone), best first. */
const CURVES = { ES256: "P-256", ES384: "P-384", ES512: "P-521" } as const;
export type DpopAlg = keyof typeof CURVES;

/** A sign-in's DPoP key as stored with its tokens (private: the sign-in file is 0600). */
export interface StoredDpopKey {
	readonly alg: DpopAlg;
	readonly privateJwk: webcrypto.JsonWebKey;
	readonly publicJwk: webcrypto.JsonWebKey;
	readonly thumbprint: string;
}

/** What the metadata documents say about DPoP (RFC 9449 section 5.1, RFC 9728). */
interface DpopHints {
	readonly dpop_signing_alg_values_supported?: unknown;
	readonly dpop_bound_access_tokens_required?: unknown;
}

/**
 * The algorithm to sign proofs with, or undefined for plain Bearer tokens. `setting` is
 * `oauth.dpop`: false never, true always; unset, when the authorization server advertises an
 * algorithm we sign with, or the resource requires bound tokens.
 */
export function dpopAlg(
	setting: boolean | undefined,
	serverMetadata?: object,
	resourceMetadata?: object,
): DpopAlg | undefined {
	if (setting === false) return undefined;
	const server = serverMetadata as DpopHints | undefined;
	const resource = resourceMetadata as DpopHints | undefined;
	const advertised = Array.isArray(server?.dpop_signing_alg_values_supported)
		? (server.dpop_signing_alg_values_supported as unknown[])
		: [];
	const usable = (Object.keys(CURVES) as DpopAlg[]).find((alg) => advertised.includes(alg));
	if (usable) return usable;
	return setting === true || resource?.dpop_bound_access_tokens_required === true ? "ES256" : undefined;
}

/** Whether tokens are DPoP-bound (RFC 9449 section 5: the token type says so, in any case). */
export function isDpopBound(tokens: { readonly token_type?: string } | undefined): boolean {
	return tokens?.token_type?.toLowerCase() === "dpop";
}

/** A new signing key, exportable so the sign-in can keep it (its tokens are bound to it). */
export async function newDpopKey(alg: DpopAlg): Promise<StoredDpopKey> {
	const { generateDpopKeyPair } = await loadClientSdk();
	const pair = await generateDpopKeyPair({ alg, extractable: true });
	const privateJwk = await webcrypto.subtle.exportKey("jwk", pair.privateKey as webcrypto.CryptoKey);
	return { alg, privateJwk, publicJwk: pair.publicJwk as webcrypto.JsonWebKey, thumbprint: pair.thumbprint };
}

/** A proof-signing session over a stored key (the nonces it learns live as long as it does). */
export async function dpopSession(key: StoredDpopKey): Promise<DpopSession> {
	const { DpopSession } = await loadClientSdk();
	const params = { name: "ECDSA", namedCurve: CURVES[key.alg] };
	const keyPair = {
		alg: key.alg,
		privateKey: await webcrypto.subtle.importKey("jwk", key.privateJwk, params, false, ["sign"]),
		publicKey: await webcrypto.subtle.importKey("jwk", key.publicJwk, params, true, ["verify"]),
		publicJwk: key.publicJwk,
		thumbprint: key.thumbprint,
	} as unknown as DpopKeyPair;
	return DpopSession.create({ keyPair });
}

/** A session with a key that lives only in this process (machine grants get a new token each connect). */
export async function ephemeralDpopSession(alg: DpopAlg): Promise<DpopSession> {
	const { DpopSession } = await loadClientSdk();
	return DpopSession.create({ alg });
}

/**
 * The fetch that presents the access token `token()` returns with DPoP, signed by the session
 * `session()` gives (when either gives none, requests pass unchanged). Every proof starts with the same header (the key's public JWK);
 * `onSecret` is told it once, so a server that echoes a proof back shows it masked.
 */
export async function dpopFetch(
	session: () => DpopSession | Promise<DpopSession> | undefined,
	token: () => string | undefined,
	inner: FetchLike,
	onSecret: (value: string) => void,
): Promise<FetchLike> {
	const { withDpop } = await loadClientSdk();
	let told = false;
	const seeing: FetchLike = (url, init) => {
		const proof = new Headers(init?.headers).get("dpop");
		if (proof && !told) {
			onSecret(proof.slice(0, proof.indexOf(".")));
			told = true;
		}
		return inner(url, init);
	};
	return withDpop(session, token)(seeing);
}
