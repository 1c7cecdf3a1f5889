// TypeBox's builders as the package's schemas use them, for the shell command outside Pi. Inside
// Pi the extension gets Pi's own TypeBox; outside, installing TypeBox (6 MB) for every user for the
// CLI alone was the only other way. Each builds the JSON Schema TypeBox 0.34 builds (the same keys
// and values, and its Kind symbols): tests/unit/typebox-lite.test.ts compares every schema the
// package exports, so a builder used but not here fails that test, not a user's CLI.
type Schema = { readonly [key: string | symbol]: unknown };
type Options = Readonly<Record<string, unknown>>;

const Kind = Symbol.for("TypeBox.Kind");
const OptionalKind = Symbol.for("TypeBox.Optional");

const build = (kind: string, options: Options | undefined, fields: Schema): Schema => ({
	...options,
	[Kind]: kind,
	...fields,
});

export const Type = {
	String: (options?: Options) => build("String", options, { type: "string" }),
	Number: (options?: Options) => build("Number", options, { type: "number" }),
	Integer: (options?: Options) => build("Integer", options, { type: "integer" }),
	Boolean: (options?: Options) => build("Boolean", options, { type: "boolean" }),
	Unknown: (options?: Options) => build("Unknown", options, {}),
	Unsafe: (options: Options = {}) => build("Unsafe", options, {}),
	Literal: (value: string | number | boolean, options?: Options) =>
		build("Literal", options, { const: value, type: typeof value }),
	Array: (items: Schema, options?: Options) => build("Array", options, { type: "array", items }),
	Union: (anyOf: readonly Schema[], options?: Options): Schema => {
		if (anyOf.length < 2) throw new Error("typebox-lite: Type.Union of fewer than two types is not supported");
		return build("Union", options, { anyOf });
	},
	Optional: (schema: Schema): Schema => ({ ...schema, [OptionalKind]: "Optional" }),
	Object: (properties: Readonly<Record<string, Schema>>, options?: Options) => {
		const required = Object.keys(properties).filter((key) => !(OptionalKind in properties[key]));
		return build("Object", options, { type: "object", properties, ...(required.length > 0 ? { required } : {}) });
	},
	/** Keys of any string only (TypeBox's `^(.*)$`), as every schema here has them. */
	Record: (key: Schema, value: Schema, options?: Options) => {
		if (key[Kind] !== "String" || "pattern" in key)
			throw new Error("typebox-lite: Type.Record needs Type.String() keys");
		return build("Record", options, { type: "object", patternProperties: { "^(.*)$": value } });
	},
};
