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
	return checker(schema as Schema)(value);
}

/** The top-level properties of an object that do not satisfy their part of `schema` ("" for the object itself). */
export function failingFields(schema: unknown, value: unknown): string[] {
	const s = schema as Schema;
	if (!isObject(value)) return [""];
	const failed = Object.entries(s.properties ?? {})
		.filter(([key, sub]) => (key in value ? !checker(sub)(value[key]) : (s.required ?? []).includes(key)))
		.map(([key]) => key);
	return failed.length > 0 || checker(s)(value) ? failed : [""];
}

type Check = (value: unknown) => boolean;

/**
 * A schema read once into a function per node (kept per schema object): a session start checks
 * the whole metadata cache (hundreds of tools) with the same schema, and reading the schema
 * again for every value, with its patterns compiled anew, was most of that cost.
 */
const compiled = new WeakMap<Schema, Check>();

function checker(s: Schema): Check {
	let check = compiled.get(s);
	if (!check) {
		check = compile(s);
		compiled.set(s, check);
	}
	return check;
}

function compile(s: Schema): Check {
	const parts: Check[] = [];
	if (s.anyOf) {
		const branches = s.anyOf.map(checker);
		parts.push((value) => branches.some((branch) => branch(value)));
	}
	if (s.const !== undefined) parts.push((value) => value === s.const);
	if (s.enum) {
		const allowed = s.enum;
		parts.push((value) => allowed.includes(value));
	}
	if (s.type !== undefined) {
		const types = Array.isArray(s.type) ? s.type : [s.type];
		parts.push((value) => types.some((t) => isType(t, value)));
	}
	const { minimum, exclusiveMinimum, maximum, minLength } = s;
	if (minimum !== undefined || exclusiveMinimum !== undefined || maximum !== undefined)
		parts.push(
			(value) =>
				typeof value !== "number" ||
				((minimum === undefined || value >= minimum) &&
					(exclusiveMinimum === undefined || value > exclusiveMinimum) &&
					(maximum === undefined || value <= maximum)),
		);
	if (minLength !== undefined) parts.push((value) => typeof value !== "string" || value.length >= minLength);
	if (s.items) {
		const item = checker(s.items);
		parts.push((value) => !Array.isArray(value) || value.every(item));
	}
	if (s.properties || s.patternProperties || s.required || s.additionalProperties !== undefined) {
		const object = compileObject(s);
		parts.push((value) => !isObject(value) || object(value));
	}
	return (value) => {
		for (const part of parts) if (!part(value)) return false;
		return true;
	};
}

function compileObject(s: Schema): (value: Record<string, unknown>) => boolean {
	const required = s.required ?? [];
	const own = new Map(Object.entries(s.properties ?? {}).map(([key, sub]) => [key, checker(sub)]));
	const patterns = Object.entries(s.patternProperties ?? {}).map(
		([pattern, sub]) => [new RegExp(pattern, "u"), checker(sub)] as const,
	);
	const additional =
		s.additionalProperties === false
			? () => false
			: typeof s.additionalProperties === "object"
				? checker(s.additionalProperties)
				: () => true;
	return (value) => {
		for (const key of required) if (!(key in value)) return false;
		for (const key in value) {
			if (!Object.hasOwn(value, key)) continue;
			const item = value[key];
			const check = own.get(key);
			if (check) {
				if (!check(item)) return false;
				continue;
			}
			let matched = false;
			for (const [re, sub] of patterns) {
				if (!re.test(key)) continue;
				matched = true;
				if (!sub(item)) return false;
			}
			if (!matched && !additional(item)) return false;
		}
		return true;
	};
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
