// What a tool declares of MCP Apps (SEP-1865, extension `io.modelcontextprotocol/ui`) in its
// `_meta.ui`: the `ui://` resource that renders its results, and who may reach it. A tool whose
// `visibility` leaves out "model" exists for its server's app only: the spec says the host MUST
// keep it out of the agent's tools, so it never enters the catalog (search, list, describe, direct
// tools, Pi 1.5's tools, tool_search, codemode); the app still calls it. A tool whose visibility
// leaves out "app" is refused to apps.

import type { ToolAudience, ToolUi } from "../types.ts";

/** The client's declaration that it shows apps (SEP-1865's extension, with the one content type it defines). */
export const APPS_EXTENSION = { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } };

/** The spec's former flat key for the resource (`_meta["ui/resourceUri"]`), still sent by older servers. */
const FLAT_RESOURCE_KEY = "ui/resourceUri";

/** A tool's `_meta.ui` read from the `_meta` a server listed; undefined when it declares nothing. */
export function toolUiOf(meta: unknown): ToolUi | undefined {
	if (!isRecord(meta)) return undefined;
	const ui = isRecord(meta.ui) ? meta.ui : {};
	const uri = ui.resourceUri ?? meta[FLAT_RESOURCE_KEY];
	const resourceUri = typeof uri === "string" && uri.startsWith("ui://") ? uri : undefined;
	const visibility = "visibility" in ui ? audienceOf(ui.visibility) : undefined;
	if (resourceUri === undefined && visibility === undefined) return undefined;
	return { ...(resourceUri ? { resourceUri } : {}), ...(visibility ? { visibility } : {}) };
}

/**
 * The audience a `visibility` value names. Values this client does not know are left out (a later
 * revision may add some); a value that is not a list of strings reaches no one, as in 2.36: a
 * server that meant to restrict a tool and wrote it wrong must not hand it to the model.
 */
function audienceOf(value: unknown): readonly ToolAudience[] {
	if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) return [];
	return (["model", "app"] as const).filter((audience) => value.includes(audience));
}

/** Whether the model may see and call the tool (its visibility names "model", or it declares none). */
export function visibleToModel(tool: { readonly ui?: ToolUi }): boolean {
	return tool.ui?.visibility?.includes("model") ?? true;
}

/** Whether its server's app may call the tool (its visibility names "app", or it declares none). */
export function callableByApp(tool: { readonly ui?: ToolUi }): boolean {
	return tool.ui?.visibility?.includes("app") ?? true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
