// Pi 1.5: the output schema every MCP Pi tool declares, as Pi 1.5's own MCP declares it: the
// `CallToolResult` a codemode script receives (without `_meta`), with the tool's own `outputSchema`
// as the type of `structuredContent`. Codemode renders it into the tool's TypeScript declaration
// (the codemode listing, `describeTool`), so a script knows the fields of a structured result. Pi
// only renders it; it never checks a result against it.
import { DATA_KEYWORDS, NAME_MAP_KEYWORDS } from "../catalog/pi-schema.ts";
import type { JsonSchema } from "../types.ts";

/** MCP content blocks as one compact type with the fields scripts read most (Pi 1.5's own). */
const CONTENT_BLOCK_SCHEMA = {
	type: "object",
	properties: {
		type: { enum: ["text", "image", "audio", "resource_link", "resource"] },
		text: { type: "string" },
		data: { type: "string" },
		mimeType: { type: "string" },
	},
	required: ["type"],
	additionalProperties: true,
} as const;

/** Where the tool's own schema sits in the result schema: its local references are rewritten to point below it. */
const STRUCTURED_POINTER = "#/properties/structuredContent";
/** Keywords whose values map names to schemas; here the tool's own `$defs` too, which move with it. */
const MAP_KEYWORDS = new Set([...NAME_MAP_KEYWORDS, "$defs", "definitions"]);

/**
 * The output schema of an MCP tool as Pi gets it; `structuredContent` is any JSON value when the
 * tool declares no schema (servers may send it anyway).
 */
export function mcpResultSchema(outputSchema: JsonSchema | undefined): JsonSchema {
	return {
		type: "object",
		properties: {
			content: { type: "array", items: CONTENT_BLOCK_SCHEMA },
			structuredContent: outputSchema ? relocate(outputSchema) : {},
			isError: { type: "boolean" },
		},
		required: ["content"],
		// Fields newer protocol versions add.
		additionalProperties: true,
	};
}

/**
 * `schema` with its local references (`#`, `#/$defs/Item`) pointing below STRUCTURED_POINTER, so
 * they resolve to the same subschemas there. The schema was bounded in depth when it was listed
 * (catalog/safe-schema.ts), so this recursion is too.
 */
function relocate(schema: unknown): unknown {
	if (Array.isArray(schema)) return schema.map(relocate);
	if (typeof schema !== "object" || schema === null) return schema;
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(schema)) {
		if (key === "$ref" && typeof value === "string" && (value === "#" || value.startsWith("#/")))
			out[key] = `${STRUCTURED_POINTER}${value.slice(1)}`;
		else if (DATA_KEYWORDS.has(key)) out[key] = value;
		else if (MAP_KEYWORDS.has(key) && typeof value === "object" && value !== null && !Array.isArray(value))
			out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, relocate(sub)]));
		else out[key] = relocate(value);
	}
	return out;
}
