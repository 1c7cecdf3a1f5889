// How calls look in Pi's TUI: the renderers show server, tool and arguments, the result as one
// line, and fit any width, wide characters included (the real TUI: tests/e2e/tool-render-tui.test.ts).
import { describe, expect, it } from "vitest";
import { renderProxyCall, renderProxyResult, type ThemeLike } from "../../pi/tool-render.ts";

const plain: ThemeLike = { fg: (_c, t) => t, bold: (t) => t };
const lookup = (name: string) => (name === "everything_echo" ? { server: "everything", tool: "echo" } : undefined);

describe("the mcp call renderers", () => {
	it("show server, tool and arguments, and fit the width", () => {
		expect(
			renderProxyCall({ tool: "everything_echo", args: { message: "hi", n: 3 } }, plain, lookup).render(80),
		).toEqual(['mcp everything echo(message: "hi", n: 3)']);
		expect(renderProxyCall({ search: "add numbers" }, plain, lookup).render(80)).toEqual(['mcp search "add numbers"']);
		expect(renderProxyCall({}, plain, lookup).render(80)).toEqual(["mcp status"]);
		const [narrow] = renderProxyCall(
			{ tool: "everything_echo", args: { message: "日本語のとても長いメッセージです" } },
			plain,
			lookup,
		).render(30);
		expect(narrow.endsWith("…")).toBe(true);
		expect([...narrow].reduce((w, ch) => w + ((ch.codePointAt(0) as number) > 0x2e80 ? 2 : 1), 0)).toBeLessThanOrEqual(
			30,
		);
	});

	it("draw once per width until invalidated: the same read-only lines at each frame (what Pi 1.6 keeps)", () => {
		let built = 0;
		const counting: ThemeLike = {
			fg: (_c, t) => {
				built++;
				return t;
			},
			bold: (t) => t,
		};
		const result = { content: [{ type: "text", text: "line one\nline two" }] };
		const component = renderProxyResult(result, { expanded: true, isPartial: false }, counting);
		const first = component.render(40);
		const drawn = built;
		expect(component.render(40)).toBe(first);
		expect(built).toBe(drawn);
		expect(component.render(5)).not.toBe(first);
		component.render(40);
		const again = component.render(40);
		component.invalidate();
		expect(component.render(40)).not.toBe(again);
		expect(component.render(40)).toEqual(first);
	});

	it("collapse a result to its first line, and show all of it expanded", () => {
		const result = { content: [{ type: "text", text: "line one\nline two\nline three" }] };
		expect(renderProxyResult(result, { expanded: false, isPartial: false }, plain).render(80)).toEqual([
			"line one (+2 more lines)",
		]);
		expect(renderProxyResult(result, { expanded: true, isPartial: false }, plain).render(5)).toEqual([
			"line ",
			"one",
			"line ",
			"two",
			"line ",
			"three",
		]);
	});
});
