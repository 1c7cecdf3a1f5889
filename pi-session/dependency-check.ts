// A copy of the package whose dependencies are missing (a folder copied without node_modules, an
// install cut short) says so in one line with the command that fixes it, wherever the user looks
// first: Pi's start, `/mcp`, the first `mcp` result. Nothing that imports a dependency has loaded
// when this runs (tests/e2e/startup-imports.test.ts keeps it so). On Pi 1.5 it registers nothing
// of Pi's built-in MCP (`/mcp`), so the built-in is not switched off for nothing: it serves the
// same mcp.json until the fix.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { missingDependencies, missingDependenciesLine } from "../bin/dependencies.mjs";
import { say } from "../pi-commands/command-io.ts";
import { isPi15 } from "../pi-tools/pi-tools.ts";
import { PROXY_TOOL_NAME, ProxyParams } from "../proxy/surface.ts";

/** True when every dependency is installed; else registers what tells the user, and returns false. */
export function dependenciesInstalled(pi: ExtensionAPI, missing = missingDependencies()): boolean {
	if (missing.length === 0) return true;
	const builtIn = isPi15(pi);
	const line = missingDependenciesLine(
		missing,
		builtIn ? { meanwhile: "Pi's built-in MCP is not replaced meanwhile" } : {},
	);
	pi.on("session_start", (_event, ctx) => {
		if (ctx.hasUI) ctx.ui.notify(line, "error");
		else console.error(line);
	});
	if (builtIn) return false;
	for (const name of ["mcp", "mcp-auth"]) {
		pi.registerCommand(name, {
			description: "MCP (not installed: see the fix)",
			handler: async (_args, ctx) => say(ctx, undefined, line, "error"),
		});
	}
	pi.registerTool({
		name: PROXY_TOOL_NAME,
		label: "MCP",
		description: "MCP servers (not available: the extension's dependencies are not installed; tell the user)",
		parameters: ProxyParams,
		execute: async () => {
			throw new Error(line);
		},
	});
	return false;
}
