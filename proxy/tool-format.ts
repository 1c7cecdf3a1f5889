// How tools are written for the model: one compact line for lists and search hits, and a full
// parameter table for describe. JSON Schemas from servers are untyped, so every read is guarded.
import type { CatalogTool } from "../catalog/tool-catalog.ts";
import type { JsonSchema } from "../types.ts";

interface Param {
	readonly name: string;
	readonly type: string;
	readonly required: boolean;
	readonly description?: string;
	readonly default?: unknown;
	readonly enum?: readonly unknown[];
}

const asSchema = (v: unknown): JsonSchema =>
	typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonSchema) : {};

export function schemaParams(schema: JsonSchema): Param[] {
	const properties = asSchema(schema.properties);
	const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
	return Object.entries(properties).map(([name, raw]) => {
		const prop = asSchema(raw);
		return {
			name,
			type: typeName(prop),
			required: required.has(name),
			description: typeof prop.description === "string" ? prop.description : undefined,
			default: prop.default,
			enum: Array.isArray(prop.enum) ? prop.enum : undefined,
		};
	});
}

/** A short type: string, number, string[], "a"|"b", object, or a union of those. */
export function typeName(schema: JsonSchema): string {
	if (Array.isArray(schema.enum)) {
		const values = schema.enum.slice(0, 6).map((v) => JSON.stringify(v));
		return values.join("|") + (schema.enum.length > 6 ? "|..." : "");
	}
	if (schema.const !== undefined) return JSON.stringify(schema.const);
	const variants = (schema.anyOf ?? schema.oneOf) as unknown;
	if (Array.isArray(variants)) {
		const names = [...new Set(variants.map((v) => typeName(asSchema(v))))].filter((n) => n !== "null");
		return names.join("|") || "any";
	}
	const type = schema.type;
	if (Array.isArray(type)) return type.filter((t) => t !== "null").join("|") || "any";
	if (type === "array") return `${typeName(asSchema(schema.items))}[]`;
	if (typeof type === "string") return type;
	return schema.properties ? "object" : "any";
}

/** `(message: string, count?: integer)`: what a model needs to form a call, in few tokens. */
export function compactParams(schema: JsonSchema): string {
	const params = schemaParams(schema);
	if (params.length === 0) return "()";
	return `(${params.map((p) => `${p.name}${p.required ? "" : "?"}: ${p.type}`).join(", ")})`;
}

/** The first sentence of a description, at most `max` characters. */
export function firstSentence(text: string, max = 160): string {
	const flat = text.replace(/\s+/g, " ").trim();
	const match = /^(.+?[.!?])(\s|$)/.exec(flat);
	const sentence = match ? match[1] : flat;
	return sentence.length > max ? `${sentence.slice(0, max - 3).trimEnd()}...` : sentence;
}

export function toolLine(tool: CatalogTool, withParams: boolean): string {
	const summary = firstSentence(tool.description);
	return `- ${tool.qualifiedName}${withParams ? ` ${compactParams(tool.inputSchema)}` : ""}${summary ? `: ${summary}` : ""}`;
}

/** Everything about one tool: description, then each parameter with type, required, default, enum. */
export function describeTool(tool: CatalogTool): string {
	const lines = [`${tool.qualifiedName} (server "${tool.server}", tool "${tool.name}")`];
	if (tool.title && tool.title !== tool.name) lines.push(tool.title);
	if (tool.description) lines.push("", tool.description.trim());
	lines.push("", ...paramLines(tool.inputSchema));
	return lines.join("\n");
}

export function paramLines(schema: JsonSchema): string[] {
	const params = schemaParams(schema);
	if (params.length === 0) return ["Parameters: none"];
	const lines = ["Parameters:"];
	for (const p of params) {
		let line = `- ${p.name} (${p.type}${p.required ? ", required" : ", optional"}`;
		if (p.default !== undefined) line += `, default ${JSON.stringify(p.default)}`;
		line += ")";
		if (p.enum && p.enum.length > 6) line += ` one of ${p.enum.map((v) => JSON.stringify(v)).join(", ")}`;
		if (p.description) line += `: ${p.description.replace(/\s+/g, " ").trim()}`;
		lines.push(line);
	}
	return lines;
}
