// Checks a value against the JSON Schemas our TypeBox schemas produce (config files, the cache):
// type, properties/required, patternProperties, additionalProperties, items, anyOf, const, enum,
// minimum/exclusiveMinimum/maximum, minLength. TypeBox's own `Value` would do it, but inside Pi it is
// Pi's TypeBox (0.34 or 1.x, with different error shapes) and loading it costs ~26 ms of every
// Pi start; the schemas stay TypeBox, this only reads them as the JSON Schema they are.

type Schema = {
	readonly type?: string | readonly string[];
	readonly properties?: Readonly<Record<string, Schema>>;
	readonly required?: readonly string[];
	readonly patternProperties?: Readonly<Record<string, Schema>>;
	readonly additionalProperties?: boolean | Schema;
	readonly items?: Schema;
	readonly anyOf?: readonly Schema[];
	readonly const?: unknown;
	readonly enum?: readonly unknown[];
	readonly minimum?: number;
	readonly exclusiveMinimum?: number;
	readonly maximum?: number;
	readonly minLength?: number;
};

/** Whether `value` satisfies `schema`. */
export function checks(schema: unknown, value: unknown): boolean {
	return matches(schema as Schema, value);
}

/** The top-level properties of an object that do not satisfy their part of `schema` ("" for the object itself). */
export function failingFields(schema: unknown, value: unknown): string[] {
	const s = schema as Schema;
	if (!isObject(value)) return [""];
	const failed = Object.entries(s.properties ?? {})
		.filter(([key, sub]) => (key in value ? !matches(sub, value[key]) : (s.required ?? []).includes(key)))
		.map(([key]) => key);
	return failed.length > 0 || matches(s, value) ? failed : [""];
}

function matches(s: Schema, value: unknown): boolean {
	if (s.anyOf && !s.anyOf.some((branch) => matches(branch, value))) return false;
	if (s.const !== undefined && value !== s.const) return false;
	if (s.enum && !s.enum.includes(value)) return false;
	if (s.type !== undefined && !(Array.isArray(s.type) ? s.type : [s.type]).some((t) => isType(t, value))) return false;
	if (typeof value === "number") {
		if (s.minimum !== undefined && value < s.minimum) return false;
		if (s.exclusiveMinimum !== undefined && value <= s.exclusiveMinimum) return false;
		if (s.maximum !== undefined && value > s.maximum) return false;
	}
	if (typeof value === "string" && s.minLength !== undefined && value.length < s.minLength) return false;
	if (Array.isArray(value) && s.items && !value.every((item) => matches(s.items as Schema, item))) return false;
	if (isObject(value) && (s.properties || s.patternProperties || s.required || s.additionalProperties !== undefined))
		return objectMatches(s, value);
	return true;
}

function objectMatches(s: Schema, value: Record<string, unknown>): boolean {
	if ((s.required ?? []).some((key) => !(key in value))) return false;
	const patterns = Object.entries(s.patternProperties ?? {}).map(
		([pattern, sub]) => [new RegExp(pattern, "u"), sub] as const,
	);
	for (const [key, item] of Object.entries(value)) {
		const own = s.properties?.[key];
		if (own) {
			if (!matches(own, item)) return false;
			continue;
		}
		const byPattern = patterns.filter(([re]) => re.test(key));
		if (byPattern.length > 0) {
			if (!byPattern.every(([, sub]) => matches(sub, item))) return false;
			continue;
		}
		if (s.additionalProperties === false) return false;
		if (typeof s.additionalProperties === "object" && !matches(s.additionalProperties, item)) return false;
	}
	return true;
}

function isType(type: string, value: unknown): boolean {
	switch (type) {
		case "object":
			return isObject(value);
		case "array":
			return Array.isArray(value);
		case "string":
			return typeof value === "string";
		case "number":
			return typeof value === "number" && Number.isFinite(value);
		case "integer":
			return Number.isInteger(value);
		case "boolean":
			return typeof value === "boolean";
		case "null":
			return value === null;
		default:
			return true;
	}
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
