// server-lifecycle/failures.ts: what a server's failed connect leaves behind, as a caller meets it:
// the backoff's words, a start ahead's error told to the call that follows, a refusal of credentials
// told as the sign-in (or token) to give.
import { describe, expect, it } from "vitest";
import { defineServer } from "../../../config.ts";
import { AuthRequiredError } from "../../../errors.ts";
import { FailureLog } from "../../../server-lifecycle/failures.ts";

const SECOND = 1000;

function log() {
	let now = 5_000_000;
	const changes: string[] = [];
	const failures = new FailureLog({ now: () => now, backoffMs: 60 * SECOND, onChange: () => changes.push("changed") });
	return { failures, changes, pass: (ms: number) => (now += ms) };
}

const refused = () => Object.assign(new Error("Streamable HTTP error: HTTP 401"), { code: 401 });

describe("a server's failures and their backoff (server-lifecycle/failures.ts)", () => {
	it("fails fast for the backoff, saying when and why, then lets a connect be tried", () => {
		const { failures, changes, pass } = log();
		failures.record("x", new Error("spawn fake ENOENT"), {});
		expect(changes).toEqual(["changed"]);
		pass(12 * SECOND);
		expect(() => failures.failFast("x", false)).toThrow('Server "x" not available (failed 12s ago): spawn fake ENOENT');
		pass(48 * SECOND);
		expect(failures.backingOff("x")).toBe(false);
		expect(() => failures.failFast("x", false)).not.toThrow();
		expect(failures.get("x")?.message).toBe("spawn fake ENOENT"); // still shown by /mcp until it connects
		failures.clear("x");
		expect(failures.unavailable("x")).toBeUndefined();
	});

	it("tells the call after a failed start ahead that start's own error, once; another start ahead gets the backoff's words", () => {
		const { failures } = log();
		const exited = new Error("exited (exit code 3)");
		failures.record("x", exited, { ahead: true });
		expect(() => failures.failFast("x", true)).toThrow('Server "x" not available');
		expect(() => failures.failFast("x", false)).toThrow(exited);
		expect(() => failures.failFast("x", false)).toThrow('Server "x" not available (failed 0s ago): exited');
	});

	it("turns a refusal of credentials into the sign-in an OAuth server needs", () => {
		const { failures } = log();
		const entry = defineServer("x", { url: "http://127.0.0.1:9/mcp" });
		const error = failures.record("x", refused(), { entry });
		expect(error).toBeInstanceOf(AuthRequiredError);
		expect(String(error)).toContain(
			'Server "x" needs sign-in: ask the user to run /mcp-auth x (the server answered HTTP 401)',
		);
		expect(failures.get("x")?.needsAuth).toBe(true);
	});

	it("says a token server needs authentication, and names the scope a server asks more access for", () => {
		const { failures } = log();
		const entry = defineServer("x", { url: "http://127.0.0.1:9/mcp", bearerToken: "t0ken" });
		expect(String(failures.record("x", refused(), { entry }))).toContain('Server "x" needs authentication');
		const challenge = { status: 403, error: "insufficient_scope", scope: "repo:write" } as const;
		const oauth = defineServer("y", { url: "http://127.0.0.1:9/mcp" });
		expect(String(failures.record("y", refused(), { entry: oauth, challenge }))).toContain(
			'it asks for more access: scope "repo:write"',
		);
	});

	it("keeps any other error as it came, not asking for credentials", () => {
		const { failures } = log();
		const crash = new Error("connection refused");
		expect(failures.record("x", crash, { entry: defineServer("x", { url: "http://127.0.0.1:9/mcp" }) })).toBe(crash);
		expect(failures.get("x")?.needsAuth).toBe(false);
	});
});
