// The one scrubber every outgoing text passes: what it masks and what it leaves readable.
import { describe, expect, it } from "vitest";
import { maskUrl, maskUrls, Redactor } from "../../trust/redaction.ts";

describe("Redactor", () => {
	it("masks secret-looking inherited variables, not ordinary ones", () => {
		const r = new Redactor({
			OPENAI_API_KEY: "sk-live-abcdef123456",
			GITHUB_TOKEN: "ghp_0123456789",
			HOME: "/home/someone",
			EDITOR: "vim-editor-x",
		});
		expect(r.scrub("key sk-live-abcdef123456, token ghp_0123456789, home /home/someone, editor vim-editor-x")).toBe(
			"key ***, token ***, home /home/someone, editor vim-editor-x",
		);
	});

	it("masks a bearer header and the bare token a server echoes; the longest secret first", () => {
		const r = new Redactor();
		r.add("Bearer tok-1234567", "tok-1234567-extended");
		expect(r.scrub("got Authorization: Bearer tok-1234567; then tok-1234567 and tok-1234567-extended")).toBe(
			"got Authorization: ***; then *** and ***",
		);
	});

	it("ignores values too short to be secrets", () => {
		const r = new Redactor();
		r.add("abc", "", undefined);
		expect(r.scrub("abc")).toBe("abc");
	});
});

describe("URL masking", () => {
	it("masks query values and passwords, keeps the rest", () => {
		expect(maskUrl("https://user:pw@api.example.com/mcp?api_key=abc&team=core#x")).toBe(
			"https://user:***@api.example.com/mcp?api_key=***&team=***#x",
		);
		expect(maskUrl("https://api.example.com/mcp")).toBe("https://api.example.com/mcp");
		expect(maskUrl("not a url")).toBe("not a url");
	});

	it("masks the user-info of any scheme: database passwords, a Sentry DSN's key", () => {
		const crash =
			"connect ECONNREFUSED postgres://app:s3cr3t-pw@db.internal:5432/app; cache redis://:r3d1s-pw@cache:6379/0; dsn https://abc123def456@o99.ingest.sentry.io/42";
		expect(maskUrls(crash)).toBe(
			"connect ECONNREFUSED postgres://app:***@db.internal:5432/app; cache redis://:***@cache:6379/0; dsn https://***@o99.ingest.sentry.io/42",
		);
	});

	it("finds URLs inside text, leaving sentence punctuation outside", () => {
		expect(maskUrls("failed to reach http://h:1/mcp?key=zz. Retry (see https://x.io/a?b=c)")).toBe(
			"failed to reach http://h:1/mcp?key=***. Retry (see https://x.io/a?b=***)",
		);
	});
});
