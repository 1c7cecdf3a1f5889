// Where a grant without a user reads its JWT: each way it can be unusable is said with the source
// and the fix (never the value), an expired token is caught before it is sent, and whatever is
// read is handed to the redactor first.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readToken, workloadTokenSource } from "../../oauth/credential-sources.ts";
import { es256Keys, signJwt } from "../fixtures/jws.ts";
import { tempDir } from "../support/helpers.ts";

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
	dir = tempDir();
});
afterEach(() => dir.remove());

const jwt = (exp: number) => signJwt({ sub: "job", exp }, es256Keys().privateKey);
const fromFile = (file: string) => workloadTokenSource({ grantType: "jwt_bearer", assertionFile: file });
const fromEnv = workloadTokenSource({ grantType: "jwt_bearer", assertionEnv: "WORKLOAD_TOKEN" });

describe("reading a workload token", () => {
	it("reads the file afresh, trimmed, and tells the redactor", () => {
		const file = join(dir.path, "token");
		const token = jwt(Math.floor(Date.now() / 1000) + 60);
		writeFileSync(file, `${token}\n`);
		const secrets: string[] = [];
		expect(readToken(fromFile(file), {}, (s) => secrets.push(s))).toBe(token);
		expect(secrets).toEqual([token]);
	});

	it("says what is wrong and where, never the value", () => {
		const file = join(dir.path, "token");
		const read = (source = fromFile(file), env: Record<string, string> = {}) => {
			try {
				readToken(source, env, () => undefined);
				return "read";
			} catch (error) {
				return (error as Error).message;
			}
		};
		expect(read()).toBe(`the workload token file ${file} does not exist: check oauth.assertionFile`);
		writeFileSync(file, "not-a-jwt-value");
		expect(read()).toBe(`the file ${file} (oauth.assertionFile) does not hold a JWT (three dot-separated parts)`);
		writeFileSync(file, "  \n");
		expect(read()).toBe(`the file ${file} (oauth.assertionFile) is empty: it should hold the workload token (a JWT)`);
		const expired = jwt(1_700_000_000);
		writeFileSync(file, expired);
		expect(read()).toBe(
			`the workload token in the file ${file} (oauth.assertionFile) expired at 2023-11-14T22:13:20.000Z: whatever provides it should renew it`,
		);
		expect(read(fromEnv)).toBe("the environment variable WORKLOAD_TOKEN (oauth.assertionEnv) is not set");
		expect(read(fromEnv, { WORKLOAD_TOKEN: "secret-but-no-jwt" })).not.toContain("secret-but-no-jwt");
		mkdirSync(join(dir.path, "folder"));
		expect(read(fromFile(join(dir.path, "folder")))).toContain("is not a regular file");
		if (process.platform !== "win32" && process.getuid?.() !== 0) {
			chmodSync(file, 0o000);
			expect(read()).toContain(`the workload token file ${file} cannot read`);
		}
	});
});
