// The one-line reason `/mcp`, `mcp({})` and the CLI show for a server that failed: the line of its
// stderr that says why, not the last line whatever it is (npm's pointer to its log, the `}` that
// closes a JSON dump, the Node.js version printed after a crash, a stack frame, a blank line).
import { describe, expect, it } from "vitest";
import { failureSummary } from "../../proxy/server-status.ts";

const failed = (...stderr: string[]) =>
	`Server "x" failed to connect: the server exited (exit code 1) before it was ready\nServer stderr:\n${stderr.join("\n")}`;
const said = (summary: string) => /\(the server said: (.*)\)$/.exec(summary)?.[1];

describe("failureSummary", () => {
	it("npm's 404: the error, not the pointer to npm's log", () => {
		const summary = failureSummary(
			failed(
				"npm error code E404",
				"npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fnope - Not found",
				"npm error 404",
				"npm error A complete log of this run can be found in: /home/u/.npm/_logs/2026-01-01T00_00_00_000Z-debug-0.log",
				"",
			),
		);
		expect(said(summary)).toBe("npm error 404");
	});

	it("an error line followed by a JSON dump: the error line", () => {
		const summary = failureSummary(
			failed("Error: the config is invalid", "{", '  "path": ["token"],', '  "message": "Required"', "}"),
		);
		expect(said(summary)).toBe("Error: the config is invalid");
	});

	it("a Node crash: the thrown error, not the stack or Node's version", () => {
		const summary = failureSummary(
			failed(
				"/srv/index.js:3",
				"  throw new Error('missing API key');",
				"  ^",
				"",
				"Error: missing API key",
				"    at Object.<anonymous> (/srv/index.js:3:9)",
				"    at Module._compile (node:internal/modules/cjs/loader:1554:14)",
				"",
				"Node.js v22.19.0",
			),
		);
		expect(said(summary)).toBe("Error: missing API key");
	});

	it("a crash during a call: the stderr after its own heading", () => {
		const message =
			'Server "x" crashed during the call (exit code 3); it starts again at the next call.\nIts stderr ended with:\nfatal: the disk is on fire\n}';
		expect(said(failureSummary(message))).toBe("fatal: the disk is on fire");
	});

	it("nothing meaningful on stderr: the headline alone", () => {
		expect(failureSummary(failed("", "}", "  ^"))).toBe(
			'Server "x" failed to connect: the server exited (exit code 1) before it was ready',
		);
	});
});
