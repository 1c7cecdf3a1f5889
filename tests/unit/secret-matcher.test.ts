// The matcher behind the Redactor: no pattern compiled from a secret, any size and number of
// secrets, every form they take in text, overlapping secrets masked as one, and a failure that
// withholds the text rather than showing it.
import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { AhoCorasick } from "../../trust/aho-corasick.ts";
import { Redactor, WITHHELD } from "../../trust/redaction.ts";
import { SecretMatcher } from "../../trust/secret-matcher.ts";
import { canonicalText, percentDecoded } from "../../trust/text-views.ts";

/** A small seeded generator, so a failure repeats. */
function random(seed: number) {
	let s = seed;
	const next = () => {
		s = (Math.imul(s, 1103515245) + 12345) >>> 0;
		return s / 2 ** 32;
	};
	const pick = (text: string, n: number) => {
		const chars = [...text];
		return Array.from({ length: n }, () => chars[Math.floor(next() * chars.length)]).join("");
	};
	return { next, pick };
}

/** The longest pattern ending at each position, read the slow way. */
function naiveLongest(patterns: string[], text: string): number[] {
	return [...text].map((_, i) =>
		Math.max(0, ...patterns.filter((p) => text.slice(0, i + 1).endsWith(p)).map((p) => p.length)),
	);
}

describe("the Aho-Corasick automaton", () => {
	it("finds the longest pattern ending at each position, as a slow search does, on random small alphabets", () => {
		const rnd = random(7);
		for (let round = 0; round < 200; round++) {
			const patterns = Array.from({ length: 1 + Math.floor(rnd.next() * 6) }, () =>
				rnd.pick("ab", 1 + Math.floor(rnd.next() * 5)),
			);
			const text = rnd.pick("abc", 40);
			const automaton = new AhoCorasick(patterns);
			let state = AhoCorasick.ROOT;
			const found = [...text].map((c) => {
				state = automaton.step(state, c.charCodeAt(0));
				return automaton.longestEndingAt(state);
			});
			expect(found, `${patterns} in ${text}`).toEqual(naiveLongest(patterns, text));
		}
	});
});

describe("the matcher", () => {
	const masked = (secrets: string[], text: string) => {
		const r = new Redactor();
		r.add(...secrets);
		return r.scrubSecrets(text);
	};

	it("masks secrets far past what one regular expression can hold (V8 refused the old pattern at ~40,000 characters)", () => {
		for (const size of [40_000, 140_000]) {
			const secret = randomBytes(size).toString("base64").slice(0, size); // `/` and `+` made the old pattern longest
			const text = `a ${secret} b ${JSON.stringify({ v: secret })} c ${encodeURIComponent(secret)} d`;
			expect(masked([secret], text)).toBe('a *** b {"v":"***"} c *** d');
		}
	});

	it("10,000 secrets: each masked where it is, and text between them kept", () => {
		const secrets = Array.from({ length: 10_000 }, (_, i) => `tok-${i}-${randomBytes(6 + (i % 40)).toString("hex")}`);
		const picked = [0, 1, 4_999, 9_998, 9_999].map((i) => secrets[i]);
		expect(masked(secrets, picked.map((s, i) => `<${i}:${s}>`).join(" "))).toBe(
			"<0:***> <1:***> <2:***> <3:***> <4:***>",
		);
	});

	it("overlapping and nested secrets are masked as one span; adjacent ones too", () => {
		expect(masked(["abcd-1234", "1234-wxyz"], "x abcd-1234-wxyz y")).toBe("x *** y");
		expect(masked(["secret-outer-value", "outer"], "[secret-outer-value] [outer]")).toBe("[***] [***]");
		expect(masked(["aaaa-bbbb", "cccc-dddd"], "aaaa-bbbbcccc-dddd")).toBe("***");
		const long = randomBytes(60).toString("hex"); // the fingerprint side, overlapping the automaton side
		expect(masked([long, `${long.slice(-10)}-tail-9`], `${long}-tail-9 end`)).toBe("*** end");
	});

	it("a long secret is masked even cut short: every whole 32-character block of it the text holds", () => {
		const secret = randomBytes(300).toString("hex");
		const out = masked([secret], `start ${secret.slice(50, 250)} end`);
		expect(out).toMatch(/^start .{0,31}\*\*\*.{0,31} end$/);
		expect(out).not.toContain(secret.slice(100, 140));
	});

	it("every form, for random secrets in random text: raw, JSON at three depths, ASCII-only JSON, percent and form encoding", () => {
		const rnd = random(42);
		const alphabet = 'abcXYZ019-_./+ "\\\n\t%&=é€😀';
		for (let round = 0; round < 300; round++) {
			let secret = rnd.pick(alphabet, 4 + Math.floor(rnd.next() * 60));
			if (/^u|\\$/.test(secret) || secret.trim().length < 4) secret = `k${secret}k`; // the two readings the header names
			const jsonEscape = (text: string) => JSON.stringify(text).slice(1, -1);
			const json = jsonEscape(secret);
			const forms = [
				secret,
				json,
				jsonEscape(json),
				jsonEscape(jsonEscape(json)),
				json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
				encodeURIComponent(secret),
				new URLSearchParams({ s: secret }).toString().slice(2),
			];
			for (const form of forms) {
				const out = masked([secret], `{"before": 1} ${form} [after]`);
				expect(out, `${JSON.stringify(secret)} as ${JSON.stringify(form)}`).toBe('{"before": 1} *** [after]');
			}
		}
	});

	it("base64 at the three offsets, standard and URL-safe, percent-encoded: no core of the secret's bytes is left", () => {
		const secret = `${randomBytes(30).toString("binary")}/+?`;
		for (const prefix of ["", "u:", "us:"]) {
			for (const encoded of [
				Buffer.from(prefix + secret).toString("base64"),
				Buffer.from(prefix + secret).toString("base64url"),
				encodeURIComponent(Buffer.from(prefix + secret).toString("base64")),
			]) {
				const out = masked([secret], `basic ${encoded} end`);
				expect(out).toMatch(/^basic .{0,12}\*\*\*.{0,12} end$/);
			}
		}
	});

	it("ordinary text, JSON and URLs are left as they are", () => {
		const plain = 'a "quoted" path/with+plus, 100% sure, C:\\Users\\new, {"a":"b\\n"} %E2%82%AC %zz %C3';
		expect(masked(["tok-unrelated-1234", randomBytes(80).toString("hex")], plain)).toBe(plain);
	});

	it("a fault while matching withholds the text and says so, without the text or the error's words", () => {
		const r = new Redactor();
		r.add("sk-live-0123456789");
		const find = vi.spyOn(SecretMatcher.prototype, "find").mockImplementation(() => {
			throw new RangeError("Invalid array length sk-live-0123456789");
		});
		try {
			expect(r.scrub("the key is sk-live-0123456789")).toBe(WITHHELD);
		} finally {
			find.mockRestore();
		}
		expect(r.scrub("the key is sk-live-0123456789")).toBe("the key is ***");
	});
});

describe("the views of a text", () => {
	it("canonical units: a character and its JSON escapes at any depth read alike", () => {
		for (const s of ['a"b', "a\nb", "a\\b", "é/x", "a\u0001b"]) {
			const json = JSON.stringify(s).slice(1, -1);
			expect(canonicalText(json)).toBe(canonicalText(s));
			expect(canonicalText(JSON.stringify(json).slice(1, -1))).toBe(canonicalText(s));
		}
	});

	it("the percent-decoded view maps each position back to the original", () => {
		const text = "a%C3%A9b+c%F0%9F%98%80d%zz";
		const view = percentDecoded(text);
		expect(view.text).toBe("aéb c😀d%zz");
		const back = (from: number, to: number) => text.slice(view.toSource(from), view.toSource(to));
		expect(back(1, 2)).toBe("%C3%A9");
		expect(back(2, 4)).toBe("b+");
		expect(back(5, 7)).toBe("%F0%9F%98%80");
		expect(back(7, view.text.length)).toBe("d%zz");
	});
});
