// How an HTTP connection authorizes beyond its headers: a grant that needs no user, or a DPoP-bound
// token presented by a signing fetch.
import type { AuthProvider, FetchLike } from "@modelcontextprotocol/client";
import { dpopFetch, dpopSession } from "../oauth/dpop.ts";
import { machineGrant } from "../oauth/machine-grants.ts";
import { type requestHeaders, signsInWithBrowser, usesOAuth } from "../oauth-handler.ts";
import type { HttpServerEntry } from "../types.ts";
import type { OpenOptions } from "./connection-types.ts";

/**
 * How the connection authorizes beyond its headers: a grant that needs no user (client
 * credentials, workload identity, enterprise) as the transports' auth provider; a DPoP-bound
 * token (the sign-in's, or such a grant's) presented by a signing fetch under the HTTP guard.
 */
export async function authorization(
	entry: HttpServerEntry,
	credentials: Awaited<ReturnType<typeof requestHeaders>>,
	options: OpenOptions,
): Promise<{ authProvider?: AuthProvider; fetch?: FetchLike }> {
	if (usesOAuth(entry) && !signsInWithBrowser(entry)) {
		const grant = await machineGrant(entry, { env: options.env, redactor: options.redactor });
		return { authProvider: grant.authProvider, fetch: await grant.wrapFetch(fetch) };
	}
	const key = credentials.dpopKey;
	if (!key) return {};
	options.redactor.add(key.privateJwk.d);
	const session = await dpopSession(key);
	const token = credentials.oauthToken;
	return {
		fetch: await dpopFetch(
			() => session,
			() => token,
			fetch,
			(secret) => options.redactor.add(secret),
		),
	};
}
