// A server that refuses a call for want of scope (403 insufficient_scope) names only the scope that
// call lacks. The next sign-in asks for that and what the token already had (SEP-2350), so the
// wider token does not lose what the rest of the session needs.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defineServer } from "../../config.ts";
import { SignInStore } from "../../oauth/store.ts";
import { credentialRenewal } from "../../oauth-handler.ts";

describe("step-up sign-in scope", () => {
	let dir: string | undefined;
	afterEach(() => {
		if (dir) rmSync(dir, { recursive: true, force: true });
	});

	it("asks for the granted scope and the challenged one", async () => {
		dir = mkdtempSync(join(tmpdir(), "pi-mcp-stepup-"));
		const entry = defineServer("prot", { url: "http://127.0.0.1:9/mcp", oauth: {} });
		if (entry.transport === "stdio") throw new Error("an HTTP entry was meant");
		const store = new SignInStore(dir, entry.name, entry.url);
		await store.saveTokens({ access_token: "a", token_type: "Bearer", scope: "mcp:basic" });
		const renew = credentialRenewal({ agentDir: dir, env: {} });
		const renewed = await renew(entry, "a", { status: 403, error: "insufficient_scope", scope: "mcp:write" });
		expect(renewed).toBe(false); // a wider scope needs the user: a sign-in, not a refresh
		expect(store.read().stepUpScope).toBe("mcp:basic mcp:write");
	});
});
