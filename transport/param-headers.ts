// SEP-2243 (2026-07-28, Streamable HTTP): a tool's inputSchema may mark arguments with
// `x-mcp-header: "Name"`, and the client then sends each such argument as an `Mcp-Param-Name`
// header too, so gateways and load balancers can route on it without reading the body; a server
// refuses a call whose headers and body disagree. Tools whose declarations break the rules (an
// empty or non-token name, a non-primitive type, a duplicate) must be left out of the list.
// The SDK's Client holds both rules: callTool() mirrors the headers from a tool definition we
// pass it, and its strict listTools() drops the invalid tools. Our listing is lenient (one tool
// lacking `type: "object"` must not lose the whole list), so each page is handed to the same
// exclusion the SDK's own listing runs.
import type { Client, Tool } from "@modelcontextprotocol/client";
import type { TransportKind } from "../types.ts";
import type { ToolsPage } from "./mcp-sdk.ts";

type ExcludingClient = { _excludeInvalidXMcpHeaderTools?: (page: ToolsPage) => void };

/**
 * Drops, in place, the tools of a page whose `x-mcp-header` declarations are invalid: on a
 * 2026-07-28 connection over HTTP only (stdio carries no headers, so every tool stays callable).
 */
export function dropInvalidHeaderTools(client: Client, kind: TransportKind, page: ToolsPage): void {
	if (kind === "stdio" || client.getProtocolEra() !== "modern") return;
	const exclude = (client as unknown as ExcludingClient)._excludeInvalidXMcpHeaderTools;
	// Without the SDK's method (a future SDK may move it) the tools stay listed: a call to an invalid
	// one fails with the server's own error. tests/e2e/modern-server.test.ts fails if that happens.
	if (typeof exclude === "function") exclude.call(client, page);
}

/** What callTool needs to mirror a tool's headers: its listed input schema (no outputSchema, which would add strict result checks). */
export function headerSource(tool: { name: string; inputSchema: unknown } | undefined): Tool | undefined {
	return tool ? ({ name: tool.name, inputSchema: tool.inputSchema } as Tool) : undefined;
}
