// A server's `oauth` as the config loader reads it: wrong types and missing pieces of a grant are
// errors that say the fix, unknown keys are warnings with the closest known key, variables and `~`
// expand, and a project's file cannot name where the user's credentials come from.
import { describe, expect, it } from "vitest";
import { formatProblem, normalizeServer } from "../../config.ts";
import type { ConfigProblem, ConfigSource, HttpServerEntry } from "../../types.ts";

const user: ConfigSource = { kind: "pi-global", scope: "user", path: "/home/u/.pi/agent/mcp.json" };
const project: ConfigSource = { kind: "pi-project", scope: "project", path: "/repo/.mcp.json" };
const ictx = { env: { CRM_SECRET: "s3cret-value", TOKEN_DIR: "/var/run/tokens" }, cwd: "/repo", home: "/home/u" };

function read(oauth: unknown, source = user) {
	const problems: ConfigProblem[] = [];
	const result = normalizeServer("crm", { url: "https://crm.example/mcp", oauth }, source, ictx, problems);
	return {
		entry: result.kind === "entry" ? (result.entry as HttpServerEntry) : undefined,
		problems: problems.map(formatProblem),
	};
}

describe("oauth keys", () => {
	it("a wrong type is an error naming the key; a secret's value is not repeated", () => {
		const { entry, problems } = read({ dpop: "yes", clientSecret: 42, grantType: "password" });
		expect(entry).toBeUndefined();
		expect(problems.join("\n")).toContain("oauth.clientSecret: must be a string, got a number");
		expect(problems.join("\n")).toContain("oauth.dpop: must be true or false");
		expect(problems.join("\n")).toContain(
			'oauth.grantType: must be one of "authorization_code", "client_credentials", "jwt_bearer", "enterprise"',
		);
	});

	it("an unknown key is a warning with the closest known one; the entry still loads", () => {
		const { entry, problems } = read({ assertionfile: "/x", dpop: true });
		expect(entry?.oauth).toEqual({ dpop: true });
		expect(problems).toEqual([
			`warning: ${user.path}: server "crm": oauth: unknown key "assertionfile" ignored (did you mean "assertionFile"?)`,
		]);
	});

	it("each grant says what it still needs", () => {
		expect(read({ grantType: "jwt_bearer" }).problems.join("\n")).toContain(
			'oauth.grantType "jwt_bearer" (workload identity) needs the workload\'s token: set oauth.assertionFile',
		);
		expect(read({ grantType: "jwt_bearer", assertionFile: "/a", assertionEnv: "B" }).problems.join("\n")).toContain(
			"set one of oauth.assertionFile and oauth.assertionEnv, not both",
		);
		expect(read({ assertionEnv: "TOKEN" }).problems.join("\n")).toContain(
			'oauth.assertionFile and oauth.assertionEnv go with "grantType": "jwt_bearer"',
		);
		const enterprise = read({ grantType: "enterprise", idp: { issuer: "https://idp.example" } }).problems.join("\n");
		expect(enterprise).toContain('oauth.grantType "enterprise" needs oauth.clientId');
		expect(enterprise).toContain("oauth.idp needs clientId");
		expect(enterprise).toContain("oauth.idp needs one of idTokenFile and idTokenEnv");
		expect(read({ grantType: "client_credentials" }).problems.join("\n")).toContain(
			'oauth.grantType "client_credentials" needs oauth.clientId',
		);
	});

	it("variables and a leading ~/ expand in secrets and paths; the expanded secret is known as one", () => {
		const { entry, problems } = read({
			grantType: "enterprise",
			clientId: "pi",
			clientSecret: "${CRM_SECRET}",
			idp: { tokenEndpoint: "https://idp.example/token", clientId: "pi-idp", idTokenFile: "~/.corp/id-token" },
		});
		expect(problems).toEqual([]);
		expect(entry?.oauth).toMatchObject({
			clientSecret: "s3cret-value",
			idp: { idTokenFile: "/home/u/.corp/id-token" },
		});
		expect(entry?.secrets).toContain("s3cret-value");
		expect(read({ grantType: "jwt_bearer", assertionFile: "${TOKEN_DIR}/mcp" }).entry?.oauth).toMatchObject({
			assertionFile: "/var/run/tokens/mcp",
		});
		expect(read({ clientSecret: "${NOT_SET}" }).problems.join("\n")).toMatch(
			/field "oauth\.clientSecret": .*NOT_SET.* is not set/,
		);
	});

	it("a project's file cannot name the workload token, the enterprise IdP or the ID token", () => {
		const workload = read({ grantType: "jwt_bearer", assertionFile: "/var/run/secrets/token" }, project);
		expect(workload.entry).toBeUndefined();
		expect(workload.problems).toEqual([
			`error: ${project.path}: server "crm": oauth.assertionFile cannot come from a project's file: a repository does not choose which of your credentials are sent. Define this server in ~/.pi/agent/mcp.json`,
		]);
		const enterprise = read(
			{ grantType: "enterprise", clientId: "pi", idp: { issuer: "https://x", clientId: "y", idTokenEnv: "ID" } },
			project,
		);
		expect(enterprise.problems.join("\n")).toContain("oauth.idp cannot come from a project's file");
		// What is not the user's own credential stays the project's to set.
		expect(read({ dpop: true, scope: "read" }, project).entry?.oauth).toEqual({ dpop: true, scope: "read" });
	});
});
