// Text on its way to a screen: what draws nothing or reads as something else is found by Unicode's
// own properties, not a hand list (issue 35: U+3164, U+00AD and tag characters passed as look-alikes).
import { describe, expect, it } from "vitest";
import { hasHiddenCharacters, oneLine, terminalSafe, visible } from "../../trust/safe-text.ts";

/** Characters that draw nothing (or nothing but a blank) in a terminal, beside the controls the old list had. */
const INVISIBLE = [
	"\u3164", // Hangul filler
	"\u115f", // Hangul choseong filler
	"\u1160", // Hangul jungseong filler
	"\uffa0", // halfwidth Hangul filler
	"\u00ad", // soft hyphen
	"\u034f", // combining grapheme joiner
	"\u180e", // Mongolian vowel separator
	"\ufe0f", // variation selector 16
	"\u{e0100}", // variation selector 17
	"\u{e0001}", // language tag
	"\u{e0041}", // tag latin capital A
	"\u{1d173}", // musical symbol begin beam
	"\u2064", // invisible plus
	"\u200b", // zero width space
	"\u202e", // right-to-left override
	"\u001b", // escape
	"\u0085", // next line (C1)
];
/** Blanks that look like a space or like nothing: kept in shown text, but escaped where the user decides. */
const BLANKS = ["\u2800", "\u00a0", "\u3000", "\u2007"];

describe("safe text", () => {
	it("a name holding any invisible character or look-alike blank is caught, and each is shown as an escape", () => {
		for (const c of [...INVISIBLE, ...BLANKS]) {
			const name = `git${c}hub`;
			expect(hasHiddenCharacters(name), visible(name)).toBe(true);
			expect(visible(name)).toBe(`git\\u{${(c.codePointAt(0) ?? 0).toString(16)}}hub`);
		}
		for (const name of ["github", "my server", "café", "日本語", "emoji 😀", "x-y_z.1"])
			expect(hasHiddenCharacters(name), name).toBe(false);
	});

	it("invisible characters are removed from what is shown; blanks, tabs, newlines and ordinary text stay", () => {
		for (const c of INVISIBLE) expect(terminalSafe(`a${c}b`), visible(c)).toBe("ab");
		for (const c of BLANKS) expect(terminalSafe(`a${c}b`)).toBe(`a${c}b`);
		expect(terminalSafe("line 1\n\tline 2 é → 😀")).toBe("line 1\n\tline 2 é → 😀");
		expect(terminalSafe("title\u001b]0;pwned\u0007 and clipboard\u001b]52;c;ZWNobyBoaQ==\u0007")).toBe(
			"title and clipboard",
		);
		expect(oneLine("a\n\tb\u3164")).toBe("a b");
	});
});
