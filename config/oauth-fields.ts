// A server's `oauth`, checked: each key against the schema (a wrong type is an error, an unknown
// key a warning naming the closest known one), `${VAR}` expanded in its texts and a leading `~/`
// in its token file paths, and the grant's own needs (workload identity needs its token's source, the enterprise
// sign-in its IdP). A repository's file may not name where the user's credentials come from
// (the workload token, the enterprise IdP and ID token): those are the user's to point at, so a
// project's server cannot have them sent anywhere, approved or not.
import { expandHome } from "./interpolate.ts";
import { IdpSchema, isValid, type OAuthConfig, OAuthSchema, schemaErrors, unknownKeys } from "./schema.ts";

export interface CheckedOAuth {
	readonly oauth?: OAuthConfig;
	readonly errors: string[];
	readonly warnings: string[];
	/** The secrets it holds (client secrets, a private key), for the redactor. */
	readonly secrets?: string[];
}

/** The keys that name a source of the user's own credentials: refused from a project's file. */
const USER_ONLY = ["assertionFile", "assertionEnv", "idp"] as const;

/**
 * Checks and expands `raw` (the entry's `oauth` as written). `expand` interpolates a value
 * (reporting a variable that is not set itself); `home` resolves a leading `~/` in file paths.
 */
export function checkOAuth(
	given: Readonly<Record<string, unknown>>,
	scope: "user" | "project",
	expand: (field: string, value: string) => string,
	home: string | undefined,
): CheckedOAuth {
	// A key set to undefined (a config built in code, another extension's server) is a key not set.
	const raw = withoutUndefined(given);
	const errors: string[] = [];
	const warnings = unknownKeys(OAuthSchema, raw, "key").map((m) => `oauth: ${m}`);
	const { idp, ...rest } = raw;
	if (idp !== undefined && isValid(IdpSchema, idp))
		warnings.push(...unknownKeys(IdpSchema, idp, "key").map((m) => `oauth.idp: ${m}`));
	else if (idp !== undefined) errors.push(...prefixed("oauth.idp", schemaErrors(IdpSchema, idp)));
	if (!isValid(OAuthSchema, rest)) errors.push(...prefixed("oauth", schemaErrors(OAuthSchema, rest)));
	if (errors.length > 0) return { errors, warnings };
	// Unknown keys were warned about and are dropped: nothing reads them.
	const written = knownOnly(OAuthSchema.properties, raw) as OAuthConfig;
	if (scope === "project") {
		const named = USER_ONLY.filter((key) => written[key] !== undefined);
		if (named.length > 0)
			return {
				errors: [
					`${named.map((key) => `oauth.${key}`).join(", ")} cannot come from a project's file: a repository does not choose which of your credentials are sent. Define this server in ~/.pi/agent/mcp.json`,
				],
				warnings,
			};
	}
	// `${VAR}` expands in every text (a client id, a secret, a tenant in a URL, a PEM key, a path);
	// a leading `~/` in the token file paths.
	const texts = (where: string, value: Record<string, unknown>) =>
		Object.fromEntries(
			Object.entries(value).map(([key, v]) => [key, typeof v === "string" ? expand(`${where}.${key}`, v) : v]),
		);
	const expanded = texts("oauth", written) as OAuthConfig;
	const idpTexts =
		written.idp && (texts("oauth.idp", knownOnly(IdpSchema.properties, written.idp)) as OAuthConfig["idp"]);
	const oauth: OAuthConfig = {
		...expanded,
		assertionFile: tilde(expanded.assertionFile, home),
		idp: idpTexts && { ...idpTexts, idTokenFile: tilde(idpTexts.idTokenFile, home) },
	};
	const secrets = [oauth.clientSecret, oauth.privateKey, oauth.idp?.clientSecret].filter((s): s is string => !!s);
	return { oauth: withoutUndefined(oauth), errors: grantProblems(oauth), warnings, secrets };
}

/** What the chosen grant still needs, or has that belongs to another grant. */
function grantProblems(oauth: OAuthConfig): string[] {
	const grant = oauth.grantType ?? "authorization_code";
	const problems: string[] = [];
	const sources = [oauth.assertionFile, oauth.assertionEnv].filter((s) => s !== undefined).length;
	if (grant === "jwt_bearer" && sources !== 1)
		problems.push(
			sources === 0
				? 'oauth.grantType "jwt_bearer" (workload identity) needs the workload\'s token: set oauth.assertionFile (a file your platform keeps current) or oauth.assertionEnv (an environment variable)'
				: "set one of oauth.assertionFile and oauth.assertionEnv, not both",
		);
	if (grant !== "jwt_bearer" && sources > 0)
		problems.push('oauth.assertionFile and oauth.assertionEnv go with "grantType": "jwt_bearer" (workload identity)');
	if (grant === "client_credentials" && (!oauth.clientId || (!oauth.clientSecret && !oauth.privateKey)))
		problems.push(
			'oauth.grantType "client_credentials" needs oauth.clientId and oauth.clientSecret (or oauth.privateKey for a private key JWT)',
		);
	if (grant === "enterprise") problems.push(...enterpriseProblems(oauth));
	else if (oauth.idp !== undefined) problems.push('oauth.idp goes with "grantType": "enterprise"');
	return problems;
}

function enterpriseProblems(oauth: OAuthConfig): string[] {
	const problems: string[] = [];
	const idp = oauth.idp;
	if (!oauth.clientId)
		problems.push(
			'oauth.grantType "enterprise" needs oauth.clientId (and usually oauth.clientSecret): the client registered with the server\'s authorization server',
		);
	if (!idp) {
		problems.push(
			'oauth.grantType "enterprise" needs oauth.idp: your enterprise IdP ({ "issuer" or "tokenEndpoint", "clientId", "idTokenFile" or "idTokenEnv" })',
		);
		return problems;
	}
	if (!idp.issuer && !idp.tokenEndpoint)
		problems.push("oauth.idp needs issuer (its metadata is read) or tokenEndpoint");
	if (!idp.clientId) problems.push("oauth.idp needs clientId: the client registered with your IdP for token exchange");
	if ((idp.idTokenFile === undefined) === (idp.idTokenEnv === undefined))
		problems.push("oauth.idp needs one of idTokenFile and idTokenEnv: where your ID token from the IdP is");
	return problems;
}

function prefixed(where: string, errors: string): string[] {
	return errors
		.split("; ")
		.map((line) =>
			line.startsWith("(entry)")
				? `${where}${line.slice("(entry)".length)}`
				: line.startsWith("must")
					? `${where}: ${line}`
					: `${where}.${line}`,
		);
}

function tilde(path: string | undefined, home: string | undefined): string | undefined {
	return path !== undefined && home ? expandHome(path, home) : path;
}

function knownOnly(properties: object, value: object): Record<string, unknown> {
	return Object.fromEntries(Object.entries(value).filter(([key]) => key in properties));
}

function withoutUndefined<T extends object>(value: T): T {
	return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
