// Tool schemas as servers send them are untrusted data: a schema nested 8,000 levels deep broke
// the cache for every server and crashed search with "Maximum call stack size exceeded". Every
// schema is copied here once, without recursion, within a depth and size budget; what lies beyond
// becomes an empty schema (any value), so the tool stays usable and nothing downstream recurses deep.
import type { JsonSchema } from "../types.ts";

/** Deeper than this, a sub-schema is replaced by {} (no real tool needs more). */
export const MAX_SCHEMA_DEPTH = 24;
/** At most this many values (objects, arrays, scalars) are kept per schema. */
export const MAX_SCHEMA_NODES = 20_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A schema the model and Pi can use: always an object schema, bounded in depth and size. */
export function safeSchema(raw: unknown): JsonSchema {
	if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { type: "object", properties: {} };
	const copy = boundedCopy(raw) as { [key: string]: Json };
	return copy.type === undefined ? { type: "object", ...copy } : copy;
}

/** A JSON copy of `value` cut at MAX_SCHEMA_DEPTH and MAX_SCHEMA_NODES, built with an explicit stack. */
function boundedCopy(value: unknown): Json {
	let budget = MAX_SCHEMA_NODES;
	const root: { value?: Json } = {};
	const stack: { source: unknown; depth: number; assign: (v: Json) => void }[] = [
		{ source: value, depth: 0, assign: (v) => (root.value = v) },
	];
	while (stack.length > 0) {
		const { source, depth, assign } = stack.pop() as (typeof stack)[number];
		if (--budget < 0) {
			assign({});
			continue;
		}
		if (source === null || typeof source === "boolean" || typeof source === "string") assign(source);
		else if (typeof source === "number") assign(Number.isFinite(source) ? source : null);
		else if (typeof source !== "object") assign(null);
		else if (depth >= MAX_SCHEMA_DEPTH) assign({});
		else if (Array.isArray(source)) {
			const out: Json[] = new Array(source.length).fill(null);
			assign(out);
			for (const [i, item] of source.entries()) {
				stack.push({ source: item, depth: depth + 1, assign: (v) => (out[i] = v) });
			}
		} else {
			const out: { [key: string]: Json } = {};
			assign(out);
			const entries = Object.entries(source);
			for (const [key] of entries) out[key] = null; // keys keep their order; values are filled as the stack unwinds
			for (const [key, item] of entries) stack.push({ source: item, depth: depth + 1, assign: (v) => (out[key] = v) });
		}
	}
	return root.value ?? {};
}

/**
 * The schema without its regular expressions (`pattern`, `patternProperties`), for Pi's own
 * argument check: Pi runs them with JavaScript's backtracking engine, where a server's
 * `^(a+)+$` freezes the whole session on one argument. The server still checks them itself.
 */
export function withoutPatterns(schema: JsonSchema): JsonSchema {
	// A copy through JSON (native, and depth is bounded by safeSchema); most schemas have no pattern
	// at all, and only those are walked by the reviver.
	const text = JSON.stringify(schema);
	return JSON.parse(text, text.includes('"pattern') ? dropPattern : undefined) as JsonSchema;
}

/** A reviver that leaves out `pattern` strings and `patternProperties` objects (undefined drops the key). */
function dropPattern(key: string, value: unknown): unknown {
	if (key === "pattern" && typeof value === "string") return undefined;
	if (key === "patternProperties" && typeof value === "object" && value !== null) return undefined;
	return value;
}
