// A tool's schema as Pi is given it (a direct tool's parameters, Pi 1.5's tools): what Pi checks
// arguments against in its own engines, so nothing there may take unbounded time. Regexes go
// (safe-schema.ts), and so do references: Pi (TypeBox on pi 0.73, its own checker on Pi 1.5)
// follows `$ref`s as it checks, and a chain of `$defs` where each refers to the next twice
// (`oneOf: [{$ref: next}, {$ref: next}]`) is walked once per path: 2^21 times at 21 steps, and one
// wrong-typed argument froze pi 0.73 for a minute.
// So Pi gets the schema with its references written out: shared definitions copied where they
// are used, breadth first, within a budget of values and depth, and a definition that refers back
// to itself written out once. Past the budget a reference becomes {} (any value): the server still
// checks its arguments. A schema without `$ref` is passed as it is.
import type { JsonSchema } from "../types.ts";
import { MAX_SCHEMA_DEPTH, withoutPatterns } from "./safe-schema.ts";

/** At most this many values are added by writing references out (the schema itself is bounded by safeSchema). */
export const MAX_INLINED_NODES = 1_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keywords whose value is data (a `$ref` key in it is no reference). */
export const DATA_KEYWORDS: ReadonlySet<string> = new Set(["const", "enum", "default", "examples", "required"]);
/** Keywords whose value maps names to schemas (its keys are names, not keywords). */
export const NAME_MAP_KEYWORDS: ReadonlySet<string> = new Set([
	"properties",
	"patternProperties",
	"dependentSchemas",
	"dependencies",
]);
/** Keywords whose value is a schema or a list of schemas. */
const SCHEMAS = new Set([
	"items",
	"prefixItems",
	"additionalItems",
	"additionalProperties",
	"unevaluatedItems",
	"unevaluatedProperties",
	"contains",
	"propertyNames",
	"not",
	"if",
	"then",
	"else",
	"allOf",
	"anyOf",
	"oneOf",
]);
/** Where definitions live: once every reference is written out, nothing points there. */
const DEFINITIONS = new Set(["$defs", "definitions"]);

/** A reference waiting to be written out: the object standing in its place, its pointer and where it sits. */
interface Pending {
	readonly holder: JsonObject;
	readonly pointer: string;
	readonly depth: number;
	/** The references being written out above it (one that refers back to itself is not unrolled again). */
	readonly within: readonly string[];
}

/** A tool's input schema as Pi's `parameters`: references written out, no regexes (the server checks both). */
export function piParameters(schema: JsonSchema): JsonSchema {
	return withoutPatterns(inlineRefs(schema));
}

/** The schema with every local `$ref` written out (bounded), and no `$defs` left; unchanged without `$ref`. */
export function inlineRefs(schema: JsonSchema): JsonSchema {
	if (!JSON.stringify(schema).includes('"$ref"')) return schema;
	const root = schema as JsonObject;
	const sizes = new WeakMap<object, number>();
	const queue: Pending[] = [];
	/** A copy of `value` (an object written into `out`), its references queued to be written out. */
	const copy = (value: Json, depth: number, within: readonly string[], out: JsonObject = {}): Json => {
		if (typeof value !== "object" || value === null) return value;
		if (depth >= MAX_SCHEMA_DEPTH) return out;
		if (Array.isArray(value)) return value.map((item) => copy(item, depth + 1, within));
		for (const [key, item] of Object.entries(value)) {
			if (key === "$ref" && typeof item === "string") continue;
			if (DEFINITIONS.has(key)) continue;
			if (DATA_KEYWORDS.has(key) || typeof item !== "object" || item === null) out[key] = item;
			else if (NAME_MAP_KEYWORDS.has(key) && !Array.isArray(item))
				out[key] = Object.fromEntries(Object.entries(item).map(([name, sub]) => [name, copy(sub, depth + 2, within)]));
			else if (SCHEMAS.has(key)) out[key] = copy(item, depth + 1, within);
			else out[key] = item; // an annotation or an unknown keyword: data to a validator
		}
		if (typeof value.$ref === "string") queue.push({ holder: out, pointer: value.$ref, depth, within });
		return out;
	};
	const result = copy(root, 0, []) as JsonObject;
	let budget = MAX_INLINED_NODES;
	// Breadth first: the references nearest the top (the arguments the model sees first) are written out first.
	for (let i = 0; i < queue.length; i++) {
		const { holder, pointer, depth, within } = queue[i];
		const target = within.includes(pointer) ? undefined : resolve(root, pointer);
		const size = target === undefined ? 0 : sizeOf(target, sizes);
		if (target === undefined || size > budget) continue; // stays as it is: its other keywords, or {}
		budget -= size;
		// A bare reference becomes its target (written into it: a target that is itself a reference
		// is queued on it); one with keywords beside it keeps them and adds the target to its allOf.
		if (Object.keys(holder).length === 0 && isObject(target)) copy(target, depth, [...within, pointer], holder);
		else
			holder.allOf = [
				...(Array.isArray(holder.allOf) ? holder.allOf : []),
				copy(target, depth + 2, [...within, pointer]),
			];
	}
	return result;
}

/** The value a local JSON pointer (`#`, `#/$defs/x`, `#/properties/a~1b`) names in `root`; undefined for any other reference. */
function resolve(root: Json, pointer: string): Json | undefined {
	if (pointer === "#") return root;
	if (!pointer.startsWith("#/")) return undefined; // an anchor, a remote document: not followed
	let node: Json | undefined = root;
	for (const raw of pointer.slice(2).split("/")) {
		const key = unescapePointer(raw);
		if (key === undefined || typeof node !== "object" || node === null) return undefined;
		node = Array.isArray(node) ? node[Number(key)] : Object.hasOwn(node, key) ? node[key] : undefined;
		if (node === undefined) return undefined;
	}
	return node;
}

/** One segment of a pointer in a URI fragment: percent-decoded, then `~1` and `~0`; undefined when malformed. */
function unescapePointer(raw: string): string | undefined {
	try {
		return decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
	} catch {
		return undefined; // a stray %: no such definition
	}
}

/** How many values a schema holds (counted once per object, remembered). */
function sizeOf(value: Json, sizes: WeakMap<object, number>): number {
	if (typeof value !== "object" || value === null) return 1;
	const known = sizes.get(value);
	if (known !== undefined) return known;
	let size = 1;
	for (const item of Object.values(value)) size += sizeOf(item, sizes);
	sizes.set(value, size);
	return size;
}

function isObject(value: Json): value is JsonObject {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
