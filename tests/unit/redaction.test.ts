// The one scrubber every outgoing text passes: what it masks and what it leaves readable.
import { describe, expect, it } from "vitest";
import { maskUrl, maskUrls, Redactor, scrubStrings } from "../../trust/redaction.ts";
import { base64Core } from "../../trust/secret-forms.ts";

describe("Redactor", () => {
	it("masks inherited variables named as secrets, not ordinary ones nor a folder under a secret name", () => {
		const r = new Redactor({
			OPENAI_API_KEY: "sk-live-abcdef123456",
			GITHUB_TOKEN: "ghp_0123456789",
			HOME: "/home/someone",
			EDITOR: "vim-editor-x",
			KEYS_KEY: "/home/someone/keys", // a folder, under a secret name
			SHORT_KEY: "abc123", // inherited: from 8 characters
		});
		expect(
			r.scrub(
				"key sk-live-abcdef123456, token ghp_0123456789, home /home/someone, editor vim-editor-x, /home/someone/keys abc123",
			),
		).toBe("key ***, token ***, home /home/someone, editor vim-editor-x, /home/someone/keys abc123");
	});

	it("masks a bearer header and the bare token a server echoes; the longest secret first", () => {
		const r = new Redactor();
		r.add("Bearer tok-1234567", "tok-1234567-extended");
		expect(r.scrub("got Authorization: Bearer tok-1234567; then tok-1234567 and tok-1234567-extended")).toBe(
			"got Authorization: ***; then *** and ***",
		);
	});

	describe("every form a secret takes in text", () => {
		const secret = 'pa"ss\\wo/rd+ é~x<&>';
		const redactor = new Redactor();
		redactor.add(secret);
		const masked = (text: string) => redactor.scrub(`<${text}>`);
		const json = JSON.stringify(secret).slice(1, -1);

		it("raw", () => expect(masked(secret)).toBe("<***>"));
		it("JSON-escaped, and JSON-escaped again inside JSON", () => {
			expect(masked(json)).toBe("<***>");
			expect(masked(JSON.stringify(json).slice(1, -1))).toBe("<***>");
		});
		it("JSON from ASCII-only and HTML-safe encoders: \\u escapes in either case, \\/", () => {
			const ascii = json.replace(/[\u007f-\uffff<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
			expect(ascii).toContain("\\u00e9");
			expect(masked(ascii)).toBe("<***>");
			expect(masked(ascii.replace(/\\u(\w{4})/g, (_, hex: string) => `\\u${hex.toUpperCase()}`))).toBe("<***>");
			expect(masked(json.replaceAll("/", "\\/"))).toBe("<***>");
		});
		it("URL-encoded (upper or lower hex) and form-encoded", () => {
			const encoded = encodeURIComponent(secret);
			expect(masked(encoded)).toBe("<***>");
			expect(masked(encoded.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()))).toBe("<***>");
			expect(masked(new URLSearchParams({ k: secret }).toString().slice(2))).toBe("<***>");
		});
		it("base64 at each of the three byte offsets, standard and URL-safe, only what the secret's bytes decide", () => {
			for (const prefix of ["", "u:", "us:", "use:"]) {
				const encoded = Buffer.from(`${prefix}${secret}`).toString("base64");
				const core = base64Core(Buffer.from(secret), prefix.length % 3);
				expect(encoded).toContain(core);
				expect(masked(encoded)).not.toContain(core);
				expect(masked(encoded)).toContain("***");
				const url = Buffer.from(`${prefix}${secret}`).toString("base64url");
				expect(masked(url)).toContain("***");
				expect(masked(url)).not.toContain(core.replaceAll("+", "-").replaceAll("/", "_"));
			}
			// A Basic header a server echoes: user:password in base64.
			expect(masked(`Authorization: Basic ${Buffer.from(`admin:${secret}`).toString("base64")}`)).toContain("***");
		});
		it("a PEM key's line breaks, JSON-escaped", () => {
			const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----";
			const keys = new Redactor();
			keys.add(pem);
			expect(keys.scrub(JSON.stringify({ privateKey: pem }))).toBe('{"privateKey":"***"}');
		});
		it("leaves ordinary text, and other base64, alone", () => {
			const plain = 'a "quoted" path/with+plus, 100% sure, and base64 aGVsbG8gd29ybGQ=';
			expect(redactor.scrub(plain)).toBe(plain);
		});
	});

	it("masks the secrets of every string of a JSON value, keys too, keeping its shape", () => {
		const r = new Redactor();
		r.add("tok-9f8e7d6c5b");
		const value = {
			content: [
				{ type: "text", text: "tok-9f8e7d6c5b" },
				{ type: "image", data: "tok-9f8e7d6c5b", mimeType: "image/png" },
				{ type: "resource", resource: { uri: "x:/a", blob: "tok-9f8e7d6c5b" } },
			],
			structured: { list: ["x tok-9f8e7d6c5b"], n: 3, "tok-9f8e7d6c5b": true },
		};
		expect(scrubStrings(value, (t) => r.scrubSecrets(t))).toEqual({
			content: [
				{ type: "text", text: "***" },
				{ type: "image", data: "tok-9f8e7d6c5b", mimeType: "image/png" }, // pixels, not text
				{ type: "resource", resource: { uri: "x:/a", blob: "***" } },
			],
			structured: { list: ["x ***"], n: 3, "***": true },
		});
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
