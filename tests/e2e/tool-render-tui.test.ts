// How calls look in the real TUI (both Pi lines): a call shows its server, tool and arguments,
// and its result as one line.
import { describe, expect, it } from "vitest";
import { everythingStdio } from "../support/helpers.ts";
import { createPiHome } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";
import { startPiTui } from "../support/pi-tui-harness.ts";

describe.each(PI_HOSTS)("in the real TUI ($name)", (host) => {
	it("a call reads `mcp everything echo(...)` with its one-line result", async () => {
		const home = await createPiHome({
			mcpConfig: { mcpServers: { everything: everythingStdio() } },
			steps: [
				() => ({
					toolCall: { name: "mcp", arguments: { tool: "everything_echo", args: { message: "rendered in the TUI" } } },
				}),
				() => ({ text: "all done" }),
			],
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
