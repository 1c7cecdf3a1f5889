// What we write for the model stays within Latin-1 (why: scripts/lint/code-shape.ts, PEOPLE_ONLY).
// `npm run lint` reads every string of the package; here, the tool description as built, and the
// rule on small modules.
import { describe, expect, it } from "vitest";
import { PROXY_DESCRIPTION, proxyDescription } from "../../proxy/surface.ts";
import { BEYOND_LATIN1, wideLiterals } from "../../scripts/lint/code-shape.ts";
import { parseSource } from "../../scripts/lint/source-files.ts";

describe("text for the model is one-byte (Latin-1)", () => {
	it("the mcp tool's description, with and without servers", () => {
		expect(PROXY_DESCRIPTION).not.toMatch(BEYOND_LATIN1);
		expect(proxyDescription([{ name: "everything", about: "demo server" }, { name: "memory" }])).not.toMatch(
			BEYOND_LATIN1,
		);
	});

	it("finds a string or template beyond Latin-1, not one within it, in a module the model reads", () => {
		const text = [
			'const a = "caf\u00e9 ok";',
			'const b = "next \u2192 step";',
			"const c = `one\u2026${a}`;",
			"const d = `${a} tail \u{1f600}`;",
			"// a comment may say \u2192",
		].join("\n");
		expect(wideLiterals(parseSource("proxy/answer.ts", text)).map((p) => p.where)).toEqual([
			"proxy/answer.ts:2",
			"proxy/answer.ts:3",
			"proxy/answer.ts:4",
		]);
		expect(wideLiterals(parseSource("pi-ui/tool-render.ts", text))).toEqual([]);
	});
});
