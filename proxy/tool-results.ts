// MCP results as Pi content. Text stays text and images stay images; embedded text resources are
// shown with their URI, binary ones saved to a file the model can read; resource links say how
// to read them through `mcp`; audio is described. structuredContent reaches the model as compact
// JSON unless a text block already carries it. Content whose `audience` leaves out the assistant
// is kept for the user (the UI shows it), not sent to the model.
import type { ImageContent, TextContent } from "@mariozechner/pi-ai";

export type PiContent = TextContent | ImageContent;

/** The content-block shapes of the MCP spec, loosely typed: servers vary in what they send. */
interface McpBlock {
	readonly type: string;
	readonly annotations?: { readonly audience?: unknown };
	readonly [key: string]: unknown;
}

export interface McpResultLike {
	readonly content?: readonly McpBlock[];
	readonly structuredContent?: unknown;
	readonly isError?: boolean;
}

export interface ResultOptions {
	/** Saves a binary resource and returns the file's path. Without it, binaries are only described. */
	readonly saveBlob?: (base64: string, mimeType: string | undefined, uri: string | undefined) => string;
	/** How the model reads a linked resource (an `mcp` call), when it can. */
	readonly readHint?: (uri: string) => string | undefined;
}

export interface ConvertedResult {
	/** What the model gets. */
	readonly content: PiContent[];
	/** Text meant for the user only (`audience: ["user"]`): shown in the UI, not sent to the model. */
	readonly forUser: string[];
}

export function convertResult(result: McpResultLike, options: ResultOptions = {}): ConvertedResult {
	const content: PiContent[] = [];
	const forUser: string[] = [];
	for (const block of result.content ?? []) {
		const converted = convertBlock(block, options);
		if (forAssistant(block)) content.push(...converted);
		else forUser.push(...converted.map((c) => (c.type === "text" ? c.text : `[image ${c.mimeType}]`)));
	}
	const structured = structuredText(result.structuredContent, content);
	if (structured) content.push({ type: "text", text: structured });
	if (content.length === 0) {
		const empty = result.isError ? "(the tool failed and sent no message)" : "(no output)";
		content.push({
			type: "text",
			text:
				forUser.length > 0
					? `(the result was addressed to the user and shown to them: ${forUser.length} part(s))`
					: empty,
		});
	}
	return { content, forUser };
}

/** Blocks without an audience are for everyone; one naming only the user is not for the model. */
function forAssistant(block: McpBlock): boolean {
	const audience = block.annotations?.audience;
	return !Array.isArray(audience) || audience.length === 0 || audience.includes("assistant");
}

/** Compact JSON of structuredContent, unless a text block already holds the same data. */
function structuredText(structured: unknown, content: readonly PiContent[]): string | undefined {
	if (structured === undefined || structured === null) return undefined;
	const compact = JSON.stringify(structured);
	const texts = content.filter((c): c is TextContent => c.type === "text");
	if (texts.some((t) => sameJson(t.text, compact))) return undefined;
	// The text already says it: every value of the structured copy appears in the text (a file read
	// as text and again as {"content": "..."}): sending it twice only doubles the tokens.
	if (saysEverything(structured, texts.map((t) => t.text).join("\n"))) return undefined;
	return texts.some((t) => t.text.trim()) ? `structuredContent: ${compact}` : compact;
}

/** Most values checked; a structure with more is sent (checking would cost more than it saves). */
const MAX_VALUES = 1000;

/** Whether every string, number and boolean of `value` appears in `text` (a non-empty text). */
function saysEverything(value: unknown, text: string): boolean {
	if (!text.trim()) return false;
	const stack: unknown[] = [value];
	for (let seen = 0; stack.length > 0; seen++) {
		if (seen > MAX_VALUES) return false;
		const item = stack.pop();
		if (item === null || item === undefined) continue;
		if (typeof item === "object") stack.push(...(Array.isArray(item) ? item : Object.values(item)));
		else if (!text.includes(String(item))) return false;
	}
	return true;
}

function sameJson(text: string, compact: string): boolean {
	const trimmed = text.trim();
	if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return false;
	try {
		return JSON.stringify(JSON.parse(trimmed)) === compact;
	} catch {
		return false;
	}
}

function convertBlock(block: McpBlock, options: ResultOptions): PiContent[] {
	switch (block.type) {
		case "text":
			return [{ type: "text", text: String(block.text ?? "") }];
		case "image":
			if (typeof block.data === "string" && typeof block.mimeType === "string") {
				return [{ type: "image", data: block.data, mimeType: block.mimeType }];
			}
			return [{ type: "text", text: "[image without data]" }];
		case "audio":
			return [
				{
					type: "text",
					text: `[audio: ${String(block.mimeType ?? "unknown type")}, ${base64Size(block.data)}; audio cannot be shown to the model]`,
				},
			];
		case "resource":
			return [convertEmbedded(block.resource, options)];
		case "resource_link": {
			const uri = String(block.uri ?? "");
			const parts = [`[resource link] ${String(block.name ?? "")} ${uri}`.trim()];
			if (block.mimeType) parts.push(`(${String(block.mimeType)})`);
			if (block.description) parts.push(`- ${String(block.description)}`);
			const read = uri ? options.readHint?.(uri) : undefined;
			if (read) parts.push(`- read it with ${read}`);
			return [{ type: "text", text: parts.join(" ") }];
		}
		default:
			return [{ type: "text", text: JSON.stringify(block) }];
	}
}

function convertEmbedded(resource: unknown, options: ResultOptions): PiContent {
	const r = (resource ?? {}) as { uri?: string; mimeType?: string; text?: string; blob?: string };
	const label = `${r.uri ?? "resource"}${r.mimeType ? ` (${r.mimeType})` : ""}`;
	if (typeof r.text === "string") return { type: "text", text: `[resource ${label}]\n${r.text}` };
	if (typeof r.blob === "string") {
		if (r.mimeType?.startsWith("image/")) return { type: "image", data: r.blob, mimeType: r.mimeType };
		const saved = options.saveBlob?.(r.blob, r.mimeType, r.uri);
		if (saved) return { type: "text", text: `[resource ${label}: binary, ${base64Size(r.blob)}, saved to ${saved}]` };
		return { type: "text", text: `[resource ${label}: binary, ${base64Size(r.blob)}, not shown]` };
	}
	return { type: "text", text: `[resource ${label}: empty]` };
}

export function base64Size(data: unknown): string {
	if (typeof data !== "string") return "size unknown";
	const bytes = Math.floor((data.length * 3) / 4);
	return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
}

/** All text of a content list joined, for the CLI and for error messages. */
export function contentText(content: readonly PiContent[]): string {
	return content.map((c) => (c.type === "text" ? c.text : `[image ${c.mimeType}, ${base64Size(c.data)}]`)).join("\n");
}
