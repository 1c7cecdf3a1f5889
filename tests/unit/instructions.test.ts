// A server's instructions in a listing: short ones whole, long ones their opening and how to get the rest.
import { describe, expect, it } from "vitest";
import { instructionsInListing, SUMMARY_CHARS, wholeInstructions } from "../../proxy/instructions.ts";

const long = (words: number) => Array.from({ length: words }, (_, i) => `word${i}`).join(" ");

describe("instructions in a listing", () => {
	it("short instructions are shown whole", () => {
		expect(instructionsInListing("calc", "  Evaluate expressions.\nUse radians.  ")).toBe(
			'Instructions from "calc":\nEvaluate expressions.\nUse radians.',
		);
	});

	it("long ones show the first paragraph after the title, and how to get them all", () => {
		const text = `# Calc Server – Instructions\n\nEvaluates math.\nAngles in radians.\n\n## Tools\n${long(200)}`;
		expect(instructionsInListing("calc", text)).toBe(
			`Instructions from "calc", the start (all ${text.length.toLocaleString("en-US")} characters: mcp({server:"calc",instructions:true})):\nEvaluates math. Angles in radians.`,
		);
	});

	it("an opening paragraph past the limit is cut at a sentence, else at a word", () => {
		const sentences = `${"This sentence says one thing. ".repeat(20)}`;
		const atSentence = instructionsInListing("s", sentences).split("\n")[1];
		expect(atSentence.length).toBeLessThanOrEqual(SUMMARY_CHARS);
		expect(atSentence.endsWith("one thing.")).toBe(true);
		const atWord = instructionsInListing("s", long(100)).split("\n")[1];
		expect(atWord.length).toBeLessThanOrEqual(SUMMARY_CHARS + 3);
		expect(atWord).toMatch(/ word\d+\.\.\.$/);
	});

	it("on request they come whole, within a cap no real server nears", () => {
		expect(wholeInstructions("x", long(300))).toBe(`Instructions from "x":\n${long(300)}`);
		const huge = "a".repeat(20_000);
		expect(wholeInstructions("x", huge)).toMatch(/\.\.\. \(4000 more characters\)$/);
	});
});
