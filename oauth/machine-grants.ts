// Sign-ins without a user, as the transport's AuthProvider: client credentials (a secret or a
// private key JWT), workload identity (SEP-1933: the workload's own JWT, RFC 7523 JWT bearer
// grant) and enterprise-managed authorization (SEP-990: the user's ID token exchanged at the
// enterprise IdP for an ID-JAG, RFC 8693, then the JWT bearer grant). On a 401 it finds the
// authorization server (the SDK's discoverOAuthServerInfo), asks for a token once (the SDK's
// fetchToken with the grant's provider: the SDK's own for client credentials and enterprise, ours
// for workload identity) and keeps it for the connection. A refusal is final and said in words:
// a JWT bearer grant is never sent again nor swapped for another grant (SEP-1933), and no SDK
// retry prints to the terminal. With DPoP (the server advertises it, or `oauth.dpop`), the token
// is bound to a key that lives only in this process.
import type {
	AuthProvider,
	DpopSession,
	FetchLike,
	OAuthClientMetadata,
	OAuthClientProvider,
	OAuthTokens,
	StoredOAuthClientInformation,
} from "@modelcontextprotocol/client";
import type { OAuthConfig } from "../config/schema.ts";
import { AuthRequiredError, describeError } from "../errors.ts";
import type { Redactor } from "../trust/redaction.ts";
import type { HttpServerEntry } from "../types.ts";
import {
	CredentialSourceError,
	describeSource,
	idTokenSource,
	readToken,
	workloadTokenSource,
} from "./credential-sources.ts";
import { boundedFetch } from "./discovery.ts";
import { dpopAlg, dpopFetch, ephemeralDpopSession, isDpopBound } from "./dpop.ts";
import { loadClientSdk } from "./sdk.lazy.ts";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
type Sdk = typeof import("@modelcontextprotocol/client");

/** What a machine grant needs from the connection. */
export interface MachineGrantContext {
	readonly env: Readonly<Record<string, string | undefined>>;
	/** Told every secret read, made or received (assertions, ID tokens, grants, access tokens, keys); scrubs the errors. */
	readonly redactor: Redactor;
	/** For the token and IdP requests (default: fetch, bounded like every OAuth request). */
	readonly fetchFn?: FetchLike;
}

/** The transport's auth provider, and the fetch (under the HTTP guard) that presents a DPoP-bound token. */
export interface MachineGrant {
	readonly authProvider: AuthProvider;
	readonly wrapFetch: (inner: FetchLike) => Promise<FetchLike>;
}

/** A grant's provider for fetchToken, and what it is called in messages. */
interface Grant {
	readonly provider: OAuthClientProvider;
	/** The refusal in words, given the server's reason. */
	refused(reason: string): string;
	/** Called before the token request with what discovery found (the enterprise grant needs both). */
	readonly found?: (issuer: string, resource: string) => void;
}

/** The auth provider for an entry whose `oauth.grantType` needs no user. */
export async function machineGrant(entry: HttpServerEntry, ctx: MachineGrantContext): Promise<MachineGrant> {
	const sdk = await loadClientSdk();
	const oauth = (entry.oauth ?? {}) as OAuthConfig;
	const onSecret = (value: string) => ctx.redactor.add(value);
	const fetchFn = boundedFetch(ctx.fetchFn ?? fetch);
	let tokens: OAuthTokens | undefined;
	let session: Promise<DpopSession> | undefined;
	const authProvider: AuthProvider = {
		token: async () => tokens?.access_token,
		onUnauthorized: async ({ response, serverUrl }) => {
			const challenge = sdk.extractWWWAuthenticateParams(response);
			const info = await sdk.discoverOAuthServerInfo(serverUrl, {
				resourceMetadataUrl: challenge.resourceMetadataUrl,
				fetchFn,
			});
			const metadata = info.authorizationServerMetadata;
			const issuer = metadata?.issuer ?? String(info.authorizationServerUrl);
			// Made for the authorization server found: the SDK stamps the client's credentials with its issuer.
			const grant = grantFor(sdk, entry, oauth, { env: ctx.env, onSecret, fetchFn, issuer });
			Object.assign(grant.provider, { dpop: () => session });
			// The resource indicator as the server names it, once checked against its URL (as auth() does).
			const checked = await sdk.selectResourceURL(serverUrl, grant.provider, info.resourceMetadata);
			const resource = checked && info.resourceMetadata ? info.resourceMetadata.resource : checked?.href;
			const alg = dpopAlg(oauth.dpop, metadata, info.resourceMetadata);
			if (alg) session ??= ephemeralDpopSession(alg);
			grant.found?.(issuer, resource ?? String(serverUrl));
			try {
				tokens = await sdk.fetchToken(grant.provider, info.authorizationServerUrl, {
					metadata,
					resource,
					scope: oauth.scope ?? challenge.scope ?? info.resourceMetadata?.scopes_supported?.join(" "),
					fetchFn,
				});
			} catch (error) {
				// A token that could not be read is said as it is; anything else is the server's refusal.
				const detail = error instanceof CredentialSourceError ? error.message : grant.refused(reason(error));
				throw new AuthRequiredError(entry.name, ctx.redactor.scrub(detail), "token", { cause: error });
			}
			onSecret(tokens.access_token);
			if (tokens.refresh_token) onSecret(tokens.refresh_token);
		},
	};
	return {
		authProvider,
		wrapFetch: (inner) =>
			dpopFetch(
				() => session,
				() => (isDpopBound(tokens) ? tokens?.access_token : undefined),
				inner,
				onSecret,
			),
	};
}

/** Why a token request failed: the OAuth error code with the server's description, or what went wrong. */
function reason(error: unknown): string {
	const code = (error as { code?: unknown } | null)?.code;
	const message = describeError(error);
	return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}

/** What a grant's provider is made with. */
interface GrantContext {
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly onSecret: (value: string) => void;
	readonly fetchFn: FetchLike;
	/** The authorization server's issuer, as discovery found it. */
	readonly issuer: string;
}

function grantFor(sdk: Sdk, entry: HttpServerEntry, oauth: OAuthConfig, ctx: GrantContext): Grant {
	const { env, onSecret } = ctx;
	if (oauth.grantType === "jwt_bearer") {
		const source = workloadTokenSource(oauth);
		return {
			provider: new WorkloadIdentityProvider(oauth.clientId, () => readToken(source, env, onSecret)),
			refused: (why) =>
				`the authorization server did not accept the workload token from ${describeSource(source)}: ${why}. It is not sent again before the next connect; check that it is issued for this server's authorization server and still valid`,
		};
	}
	if (oauth.grantType === "enterprise") return enterpriseGrant(sdk, entry, oauth, ctx);
	onSecret(oauth.clientSecret ?? "");
	onSecret(oauth.privateKey ?? "");
	if (!oauth.clientId)
		throw new AuthRequiredError(entry.name, 'oauth.grantType "client_credentials" needs oauth.clientId', "token");
	const refused = (why: string) =>
		`the authorization server refused the client credentials: ${why}. Check oauth.clientId and its secret or key`;
	if (oauth.privateKey) {
		const provider = new sdk.PrivateKeyJwtProvider({
			clientId: oauth.clientId,
			privateKey: oauth.privateKey,
			algorithm: oauth.algorithm ?? "RS256",
			scope: oauth.scope,
			expectedIssuer: ctx.issuer,
		});
		return { provider, refused };
	}
	if (!oauth.clientSecret)
		throw new AuthRequiredError(entry.name, "client credentials need oauth.clientSecret or oauth.privateKey", "token");
	const provider = new sdk.ClientCredentialsProvider({
		clientId: oauth.clientId,
		clientSecret: oauth.clientSecret,
		scope: oauth.scope,
		expectedIssuer: ctx.issuer,
	});
	return { provider, refused };
}

/**
 * SEP-990 through the SDK's CrossAppAccessProvider: its assertion is an ID-JAG the enterprise IdP
 * issues for this server's authorization server (audience) and resource, in exchange for the
 * user's ID token. The ID token goes only to the IdP the user's own config names.
 */
function enterpriseGrant(sdk: Sdk, entry: HttpServerEntry, oauth: OAuthConfig, ctx: GrantContext): Grant {
	const { env, onSecret, fetchFn } = ctx;
	const idp = oauth.idp ?? {};
	const source = idTokenSource(oauth);
	onSecret(oauth.clientSecret ?? "");
	onSecret(idp.clientSecret ?? "");
	let exchanging = false;
	const provider = new sdk.CrossAppAccessProvider({
		clientId: oauth.clientId ?? "",
		clientSecret: oauth.clientSecret ?? "",
		clientName: "pi",
		fetchFn,
		expectedIssuer: ctx.issuer,
		assertion: async (found) => {
			exchanging = true;
			const exchange = {
				audience: found.authorizationServerUrl,
				resource: found.resourceUrl,
				idToken: readToken(source, env, onSecret),
				clientId: idp.clientId ?? "",
				clientSecret: idp.clientSecret,
				scope: found.scope,
				fetchFn: found.fetchFn,
			};
			const grant = idp.tokenEndpoint
				? await sdk.requestJwtAuthorizationGrant({ ...exchange, tokenEndpoint: idp.tokenEndpoint })
				: await sdk.discoverAndRequestJwtAuthGrant({ ...exchange, idpUrl: idp.issuer ?? "" });
			onSecret(grant.jwtAuthGrant);
			exchanging = false;
			return grant.jwtAuthGrant;
		},
	});
	const idpName = idp.tokenEndpoint ?? idp.issuer ?? "";
	return {
		provider,
		refused: (why) =>
			exchanging
				? `the enterprise IdP ${idpName} did not exchange the ID token from ${describeSource(source)} for a grant to this server (ID-JAG): ${why}. Check oauth.idp and that the IdP lets you use this server`
				: `the authorization server of "${entry.name}" did not accept the enterprise grant (ID-JAG): ${why}. Check oauth.clientId and oauth.clientSecret`,
		found: (issuer, resource) => {
			provider.saveAuthorizationServerUrl(issuer);
			provider.saveResourceUrl?.(resource);
		},
	};
}

/**
 * SEP-1933: the workload's JWT as the grant (RFC 7523 section 2.1), read afresh for each token
 * request. With a client ID the SDK identifies the client as the authorization server asks; with
 * none, no client authentication is sent (the workload's token is its identity).
 */
class WorkloadIdentityProvider implements OAuthClientProvider {
	private current?: OAuthTokens;

	constructor(
		private readonly clientId: string | undefined,
		private readonly assertion: () => string,
	) {
		if (!clientId) this.addClientAuthentication = async () => undefined;
	}

	readonly addClientAuthentication?: OAuthClientProvider["addClientAuthentication"];

	get redirectUrl(): undefined {
		return undefined;
	}

	get clientMetadata(): OAuthClientMetadata {
		return { client_name: "pi", redirect_uris: [], grant_types: [JWT_BEARER], token_endpoint_auth_method: "none" };
	}

	clientInformation(): StoredOAuthClientInformation | undefined {
		return this.clientId ? { client_id: this.clientId } : undefined;
	}

	tokens(): OAuthTokens | undefined {
		return this.current;
	}

	saveTokens(tokens: OAuthTokens): void {
		this.current = tokens;
	}

	redirectToAuthorization(): void {
		throw new Error("workload identity needs no browser");
	}

	saveCodeVerifier(): void {}

	codeVerifier(): string {
		throw new Error("workload identity has no authorization code");
	}

	prepareTokenRequest(scope?: string): URLSearchParams {
		const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion: this.assertion() });
		if (scope) params.set("scope", scope);
		return params;
	}
}
