// Turns MCP results into what Pi shows the model: text stays text, images stay images, embedded
// resources, resource links and audio become readable text, and structuredContent is shown when
// the server sent no text for it.
import type { ImageContent, TextContent } from "@mariozechner/pi-ai";

export type PiContent = TextContent | ImageContent;

/** The content-block shapes of the MCP spec, loosely typed: servers vary in what they send. */
interface McpBlock {
	readonly type: string;
	readonly [key: string]: unknown;
}

export interface McpResultLike {
	readonly content?: readonly McpBlock[];
	readonly structuredContent?: unknown;
	readonly isError?: boolean;
}

export function toPiContent(result: McpResultLike): PiContent[] {
	const out: PiContent[] = [];
	for (const block of result.content ?? []) out.push(...convertBlock(block));
	const hasText = out.some((c) => c.type === "text" && c.text.trim().length > 0);
	if (result.structuredContent !== undefined && !hasText) {
		out.push({ type: "text", text: JSON.stringify(result.structuredContent, null, 2) });
	}
	if (out.length === 0) out.push({ type: "text", text: result.isError ? "(the tool failed and sent no message)" : "(no output)" });
	return out;
}

function convertBlock(block: McpBlock): PiContent[] {
	switch (block.type) {
		case "text":
			return [{ type: "text", text: String(block.text ?? "") }];
		case "image":
			if (typeof block.data === "string" && typeof block.mimeType === "string") {
				return [{ type: "image", data: block.data, mimeType: block.mimeType }];
			}
			return [{ type: "text", text: "[image without data]" }];
		case "audio":
			return [{ type: "text", text: `[audio: ${String(block.mimeType ?? "unknown type")}, ${base64Size(block.data)} — audio cannot be shown to the model]` }];
		case "resource":
			return [convertEmbedded(block.resource)];
		case "resource_link": {
			const parts = [`[resource link] ${String(block.name ?? "")} ${String(block.uri ?? "")}`.trim()];
			if (block.mimeType) parts.push(`(${String(block.mimeType)})`);
			if (block.description) parts.push(`— ${String(block.description)}`);
			return [{ type: "text", text: parts.join(" ") }];
		}
		default:
			return [{ type: "text", text: JSON.stringify(block) }];
	}
}

function convertEmbedded(resource: unknown): PiContent {
	const r = (resource ?? {}) as { uri?: string; mimeType?: string; text?: string; blob?: string };
	const label = `${r.uri ?? "resource"}${r.mimeType ? ` (${r.mimeType})` : ""}`;
	if (typeof r.text === "string") return { type: "text", text: `[resource ${label}]\n${r.text}` };
	if (typeof r.blob === "string") {
		if (r.mimeType?.startsWith("image/")) return { type: "image", data: r.blob, mimeType: r.mimeType };
		return { type: "text", text: `[resource ${label}: binary, ${base64Size(r.blob)}, not shown]` };
	}
	return { type: "text", text: `[resource ${label}: empty]` };
}

function base64Size(data: unknown): string {
	if (typeof data !== "string") return "size unknown";
	const bytes = Math.floor((data.length * 3) / 4);
	return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
}

/** All text of a content list joined, for the CLI and for error messages. */
export function contentText(content: readonly PiContent[]): string {
	return content.map((c) => (c.type === "text" ? c.text : `[image ${c.mimeType}, ${base64Size(c.data)}]`)).join("\n");
}
