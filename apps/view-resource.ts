// An MCP App's view: the `ui://` resource a tool names, read from its server (resources/read, as
// the spec says; through the lifecycle, so its answer is masked of known secrets like any other),
// as HTML with the origins and features it declares in its contents' `_meta.ui`.
import type { ServerLifecycle } from "../lifecycle.ts";
import type { ViewCsp, ViewPermissions } from "./csp.ts";

/** The spec's MIME type of a view (`text/html` is taken too, as 2.36 does). */
export const VIEW_MIME = "text/html;profile=mcp-app";

export interface View {
	readonly uri: string;
	readonly html: string;
	readonly csp?: ViewCsp;
	readonly permissions?: ViewPermissions;
}

interface Contents {
	readonly uri?: string;
	readonly mimeType?: string;
	readonly text?: string;
	readonly blob?: string;
	readonly _meta?: unknown;
}

/** Reads a view; throws with what is wrong (no such resource, not HTML, empty). */
export async function readView(
	lifecycle: ServerLifecycle,
	server: string,
	uri: string,
	signal?: AbortSignal,
): Promise<View> {
	const result = await lifecycle.readResource(server, uri, { signal });
	const contents = (result.contents ?? []) as Contents[];
	const chosen = contents.find((c) => c.uri === uri) ?? contents.find((c) => isHtml(c.mimeType)) ?? contents[0];
	if (!chosen) throw new Error(`"${server}" returned nothing for ${uri}`);
	if (chosen.mimeType && !isHtml(chosen.mimeType))
		throw new Error(`${uri} is ${chosen.mimeType}, not an app's HTML (${VIEW_MIME})`);
	const html =
		typeof chosen.text === "string" ? chosen.text : Buffer.from(chosen.blob ?? "", "base64").toString("utf8");
	if (html.trim() === "") throw new Error(`${uri} is empty`);
	const ui = record(record(chosen._meta)?.ui);
	return {
		uri,
		html,
		...(record(ui?.csp) ? { csp: ui?.csp as ViewCsp } : {}),
		...(record(ui?.permissions) ? { permissions: ui?.permissions as ViewPermissions } : {}),
	};
}

function isHtml(mimeType: string | undefined): boolean {
	const type = mimeType?.toLowerCase().split(";")[0].trim();
	return type === "text/html";
}

function record(value: unknown): Record<string, unknown> | undefined {
	return typeof value === "object" && value !== null && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}
