// How calls look in Pi's TUI: in the real TUI (both Pi lines) a call shows its server, tool and
// arguments, and its result as one line; the renderers fit any width, wide characters included.
import { describe, expect, it } from "vitest";
import { renderProxyCall, renderProxyResult, type ThemeLike } from "../tool-render.ts";
import { everythingStdio } from "./helpers.ts";
import { createPiHome } from "./pi-cli-harness.ts";
import { PI_HOSTS } from "./pi-hosts.ts";
import { startPiTui } from "./pi-tui-harness.ts";

const plain: ThemeLike = { fg: (_c, t) => t, bold: (t) => t };
const lookup = (name: string) => (name === "everything_echo" ? { server: "everything", tool: "echo" } : undefined);

describe("the mcp call renderers", () => {
	it("show server, tool and arguments, and fit the width", () => {
		expect(renderProxyCall({ tool: "everything_echo", args: { message: "hi", n: 3 } }, plain, lookup).render(80)).toEqual(['mcp everything echo(message: "hi", n: 3)']);
		expect(renderProxyCall({ search: "add numbers" }, plain, lookup).render(80)).toEqual(['mcp search "add numbers"']);
		expect(renderProxyCall({}, plain, lookup).render(80)).toEqual(["mcp status"]);
		const [narrow] = renderProxyCall({ tool: "everything_echo", args: { message: "日本語のとても長いメッセージです" } }, plain, lookup).render(30);
		expect(narrow.endsWith("…")).toBe(true);
		expect([...narrow].reduce((w, ch) => w + (ch.codePointAt(0) as number > 0x2e80 ? 2 : 1), 0)).toBeLessThanOrEqual(30);
	});

	it("collapse a result to its first line, and show all of it expanded", () => {
		const result = { content: [{ type: "text", text: "line one\nline two\nline three" }] };
		expect(renderProxyResult(result, { expanded: false, isPartial: false }, plain).render(80)).toEqual(["line one (+2 more lines)"]);
		expect(renderProxyResult(result, { expanded: true, isPartial: false }, plain).render(5)).toEqual(["line ", "one", "line ", "two", "line ", "three"]);
	});
});

describe.each(PI_HOSTS)("in the real TUI ($name)", (host) => {
	it("a call reads `mcp everything echo(...)` with its one-line result", async () => {
		const home = await createPiHome({
			mcpConfig: { mcpServers: { everything: everythingStdio() } },
			steps: [() => ({ toolCall: { name: "mcp", arguments: { tool: "everything_echo", args: { message: "rendered in the TUI" } } } }), () => ({ text: "all done" })],
		});
		const tui = startPiTui(home, { host });
		try {
			await tui.waitForText("MCP 0/1");
			tui.press("echo something");
			tui.press("\r");
			await tui.waitForText("all done");
			expect(tui.text()).toContain('mcp everything echo(message: "rendered in the TUI")');
			expect(tui.text()).toContain("Echo: rendered in the TUI");
		} finally {
			await tui.close();
			await home.dispose();
		}
	}, 60_000);
});
