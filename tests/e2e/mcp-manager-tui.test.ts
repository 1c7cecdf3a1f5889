// The /mcp manager in the real TUI (both Pi lines): bare /mcp opens the server list as a menu,
// Enter on a server opens its actions, Esc goes back.
import { describe, expect, it } from "vitest";
import { everythingStdio } from "../support/helpers.ts";
import { createPiHome } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";
import { startPiTui } from "../support/pi-tui-harness.ts";

describe.each(PI_HOSTS)("the /mcp manager in the TUI ($name)", (host) => {
	it("/mcp shows the servers as a menu, and a server's actions", async () => {
		const home = await createPiHome({ mcpConfig: { mcpServers: { everything: everythingStdio() } } });
		const tui = startPiTui(home, { host, cols: 120, rows: 30 });
		try {
			await tui.waitForText("MCP ");
			tui.press("/mcp");
			await tui.waitForText("/mcp");
			tui.press("\r");
			const list = await tui.waitForScreen(/MCP servers \(\d\/1 connected\)[\s\S]*everything — [\s\S]*Close/, 40_000);
			expect(list).toContain("codemode · ~/agent/mcp.json");
			tui.press("\r");
			const menu = await tui.waitForScreen(/MCP server everything[\s\S]*Exposure: codemode[\s\S]*Back/, 40_000);
			expect(menu).toContain("Disable (saved to ~/agent/mcp.json)");
			tui.press("\x1b");
			await tui.waitForScreen(/MCP servers \(\d\/1 connected\)/);
		} finally {
			await tui.close();
			await home.dispose();
		}
	});
});
