// What counts as a secret (the README's rule): names that say so, header values, credentials in
// URLs; and what reaches the model as it is, even under a secret name: folders, URLs without
// credentials, yes/no. The same rule on config entries: tests/unit/config.test.ts.
import { describe, expect, it } from "vitest";
import { isSecretHeader, isSecretName, isSecretValue, urlCredentials } from "../../trust/secret-names.ts";

describe("the rule", () => {
	it("a name is secret by one of its words, camelCase and compounds too; not when its last word names a setting", () => {
		const secret = [
			"GITHUB_TOKEN",
			"OPENAI_API_KEY",
			"apiKey",
			"APIKEY",
			"x-api-key",
			"DB_PASSWORD",
			"PGPASSWORD",
			"DB_PASS",
			"client_secret",
			"AWS_SECRET_ACCESS_KEY",
			"SESSION_ID",
			"sessionCookie",
			"BASIC_AUTH",
			"PRIVATE_KEY",
			"GH_PAT",
			"SLACK_BOT_TOKEN",
			"authToken",
		];
		const plain = [
			"NOTES_DIR",
			"HOME",
			"PWD",
			"DEPLOY_REF",
			"PATH",
			"AUTH_URL",
			"TOKEN_FILE",
			"PRIVATE_KEY_PATH",
			"SESSION_TIMEOUT",
			"AUTH_MODE",
			"SSH_AUTH_SOCK",
			"XAUTHORITY",
			"KEYBOARD",
			"AUTHOR",
		];
		expect(secret.filter((n) => !isSecretName(n))).toEqual([]);
		expect(plain.filter(isSecretName)).toEqual([]);
	});

	it("under a secret name: a folder or file, a URL without credentials and yes/no are shown; a token is not", () => {
		const where = { home: "/home/me", cwd: "/work/proj" };
		expect(isSecretValue("API_KEY", "/home/me", where)).toBe(false);
		expect(isSecretValue("API_KEY", "/home/me/notes", where)).toBe(false);
		expect(isSecretValue("API_KEY", "~/keys/a.json", where)).toBe(false);
		expect(isSecretValue("API_KEY", "/work/proj/.env", where)).toBe(false);
		expect(isSecretValue("OAUTH_ISSUER_TOKEN", "https://auth.example.com/token", where)).toBe(false);
		expect(isSecretValue("USE_AUTH", "true", where)).toBe(false);
		expect(isSecretValue("API_KEY", "sk-abc", where)).toBe(true); // short, still the key
		expect(isSecretValue("API_KEY", "/9j/4AAQSkZJRgABAQ", where)).toBe(true); // base64 is not a folder
		expect(isSecretValue("API_KEY", "/etc/passwd", where)).toBe(true); // outside home and cwd, not looked up
		expect(isSecretValue("API_KEY", "/etc/passwd", { ...where, mayStat: true })).toBe(false); // the user's own: it exists
		expect(isSecretValue("API_KEY", "abc", where)).toBe(false); // under 4
	});

	it("headers: every value but the standard headers' and settings' (a version); Authorization, vendor keys, cookies are", () => {
		expect(isSecretHeader("Authorization", "Bearer abc123")).toBe(true);
		expect(isSecretHeader("X-Honeycomb-Team", "hcaik_0123")).toBe(true); // a key under a name no word list knows
		expect(isSecretHeader("Cookie", "sid=1234")).toBe(true);
		expect(isSecretHeader("Accept", "application/json")).toBe(false);
		expect(isSecretHeader("User-Agent", "pi-mcp/1.0")).toBe(false);
		expect(isSecretHeader("Notion-Version", "2022-06-28")).toBe(false);
	});

	it("URLs: their passwords, a user alone (a DSN's key) and query values under secret names", () => {
		expect(urlCredentials("db postgres://app:s3cr3t-pw@db:5432/x and https://abcd1234@o1.ingest.sentry.io/2")).toEqual([
			"s3cr3t-pw",
			"s3cr3t-pw",
			"abcd1234",
			"abcd1234",
		]);
		expect(urlCredentials("https://x.test/a?api_key=kkkk-1&team=core&sig=zzzz")).toEqual(["kkkk-1", "zzzz"]);
		expect(urlCredentials("https://x.test/home/me?page=2")).toEqual([]);
	});
});
