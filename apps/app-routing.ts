// What becomes of each request an MCP App's view sends the host, decided before anything runs:
// which of its server's tools it may call and by which route, which links open, which messages
// reach the conversation. Pure, so every refusal is tested without a browser or a server.
import { callableByApp, visibleToModel } from "../catalog/tool-ui.ts";
import { isWebAddress } from "../oauth/open-browser.ts";
import type { ToolMetadata } from "../types.ts";

/**
 * How an app's `tools/call` runs. A tool the model may call too takes the model's own route (on Pi
 * 1.5 its Pi tool through Pi's hooks; everywhere `approveTools` and the project's approval). A tool
 * for the app only has no Pi tool (it would be shown to the model): `approveTools` and the
 * project's approval apply to it, Pi's `tool_call` hooks cannot see it.
 */
export type ToolRoute =
	| { readonly kind: "as-model"; readonly tool: ToolMetadata }
	| { readonly kind: "app-only"; readonly tool: ToolMetadata }
	| { readonly kind: "refused"; readonly reason: string };

/**
 * The route of a view's `tools/call` of `name`, among the tools its own server lists now (a view
 * never reaches another server's tools). `configured` says whether the user's config lets the tool
 * be used at all (exposure `hidden`, `includeTools`/`excludeTools`).
 */
export function routeToolCall(
	server: string,
	name: unknown,
	serverTools: readonly ToolMetadata[],
	configured: (tool: ToolMetadata) => boolean,
): ToolRoute {
	if (typeof name !== "string" || name === "") return { kind: "refused", reason: "tools/call needs a tool name" };
	const tool = serverTools.find((t) => t.name === name);
	if (!tool) return { kind: "refused", reason: `"${server}" has no tool "${name}"` };
	if (!callableByApp(tool))
		return { kind: "refused", reason: `"${name}" is not for apps: "${server}" declares it for the model only` };
	if (!configured(tool))
		return {
			kind: "refused",
			reason: `"${name}" is turned off in your MCP config (exposure, includeTools, excludeTools)`,
		};
	return { kind: visibleToModel(tool) ? "as-model" : "app-only", tool };
}

/** The longest address a view may ask to open (the user reads it whole before it opens). */
export const MAX_LINK_CHARS = 4096;

/**
 * The address a view's `ui/open-link` may open, as a browser reads it (`URL.href`: what the user is
 * shown is what opens): http(s) only, as every other page this package opens, within a size.
 */
export function linkToOpen(url: unknown): string | undefined {
	if (typeof url !== "string" || !isWebAddress(url)) return undefined;
	const { href } = new URL(url);
	return href.length <= MAX_LINK_CHARS ? href : undefined;
}

/** The longest message a view may put into the conversation (it is shown whole before it is sent). */
export const MAX_PROMPT_CHARS = 8000;

/**
 * The text a view's `ui/message` asks to send as the user's message, or why it cannot: only the
 * user's role and text (images and other blocks are not sent), and no longer than MAX_PROMPT_CHARS.
 */
export function promptOf(params: unknown): { text: string } | { refusal: string } {
	const message = (params ?? {}) as { role?: unknown; content?: unknown };
	if (message.role !== undefined && message.role !== "user") return { refusal: "only the user's messages are sent" };
	const blocks = Array.isArray(message.content) ? message.content : [message.content];
	const text = blocks
		.map((block) => (block as { type?: unknown; text?: unknown } | undefined) ?? {})
		.filter((block) => block.type === "text" && typeof block.text === "string")
		.map((block) => block.text as string)
		.join("\n")
		.replace(/\r\n?/g, "\n") // line ends as a screen shows them: the text sent is the text shown
		.trim();
	if (text === "") return { refusal: "the message has no text" };
	if (text.length > MAX_PROMPT_CHARS) return { refusal: `the message is over ${MAX_PROMPT_CHARS} characters` };
	return { text };
}
