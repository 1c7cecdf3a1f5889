// A tool's schema as Pi is given it: references written out within a budget, so Pi's own argument
// check takes bounded time whatever the `$ref` structure (issue 35: a chain of 21 `$defs`, each
// referring to the next twice, froze pi 0.73 for a minute on one wrong-typed argument).
import { validateToolArguments } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { MAX_INLINED_NODES, piParameters } from "../../catalog/pi-schema.ts";
import { MAX_SCHEMA_DEPTH, safeSchema } from "../../catalog/safe-schema.ts";
import type { JsonSchema } from "../../types.ts";

/** `x` refers to d0, each dN to dN+1 twice: 2^steps paths through the definitions. */
function doublingChain(steps: number, keyword: "oneOf" | "anyOf" | "allOf"): JsonSchema {
	const defs: Record<string, unknown> = { [`d${steps}`]: { type: "string" } };
	for (let i = 0; i < steps; i++) {
		const next = { $ref: `#/$defs/d${i + 1}` };
		defs[`d${i}`] = { [keyword]: [next, next] };
	}
	return safeSchema({ type: "object", properties: { x: { $ref: "#/$defs/d0" } }, $defs: defs });
}

const nodes = (value: unknown): number =>
	typeof value !== "object" || value === null ? 1 : 1 + Object.values(value).reduce((n: number, v) => n + nodes(v), 0);
const depth = (value: unknown): number =>
	typeof value !== "object" || value === null ? 0 : 1 + Math.max(0, ...Object.values(value).map(depth));
/** What pi 0.73 says of these arguments against this schema: "ok" or its message. */
const verdict = (parameters: JsonSchema, args: unknown) => {
	try {
		validateToolArguments({ name: "t", description: "", parameters } as never, {
			type: "toolCall",
			id: "1",
			name: "t",
			arguments: args as Record<string, unknown>,
		});
		return "ok";
	} catch (error) {
		return (error as Error).message.split("\n\nReceived")[0];
	}
};

describe("a tool's schema as Pi is given it", () => {
	it.each(["oneOf", "anyOf", "allOf"] as const)(
		"a doubling %s chain of $refs is written out within the budget: no reference left for Pi to follow",
		(keyword) => {
			const schema = doublingChain(40, keyword);
			const prepared = piParameters(schema);
			const text = JSON.stringify(prepared);
			expect(text).not.toContain("$ref");
			expect(text).not.toContain("$defs");
			expect(nodes(prepared)).toBeLessThanOrEqual(nodes(schema) + MAX_INLINED_NODES);
			expect(depth(prepared)).toBeLessThanOrEqual(MAX_SCHEMA_DEPTH + 2);
			// Pi's own check of a wrong-typed argument now ends (2^40 paths before).
			expect(typeof verdict(prepared, { x: 5 })).toBe("string");
		},
	);

	it("small shared definitions are written out whole: Pi accepts and refuses exactly what the server's schema does", () => {
		const schema = safeSchema({
			type: "object",
			properties: {
				parent: { $ref: "#/$defs/parent", description: "where it goes" },
				children: { type: "array", items: { anyOf: [{ $ref: "#/$defs/block" }, { type: "string" }] } },
			},
			required: ["parent"],
			$defs: {
				parent: { type: "object", properties: { page_id: { type: "string" } }, required: ["page_id"] },
				block: { type: "object", properties: { text: { $ref: "#/$defs/text" } }, required: ["text"] },
				text: { type: "string", minLength: 1 },
			},
		});
		const prepared = piParameters(schema);
		expect(prepared.properties).toEqual({
			parent: {
				description: "where it goes",
				allOf: [{ type: "object", properties: { page_id: { type: "string" } }, required: ["page_id"] }],
			},
			children: {
				type: "array",
				items: {
					anyOf: [
						{ type: "object", properties: { text: { type: "string", minLength: 1 } }, required: ["text"] },
						{ type: "string" },
					],
				},
			},
		});
		expect(verdict(prepared, { parent: { page_id: "p" }, children: ["a", { text: "b" }] })).toBe("ok");
		expect(verdict(prepared, { parent: {} })).toContain("page_id");
		expect(verdict(prepared, { parent: { page_id: "p" }, children: [{ text: "" }] })).not.toBe("ok");
	});

	it("a reference to a reference is followed to its end", () => {
		const schema = safeSchema({
			type: "object",
			properties: { id: { $ref: "#/$defs/a" } },
			$defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/definitions/c" } },
			definitions: { c: { type: "string", format: "uuid" } },
		});
		expect(piParameters(schema)).toEqual({ type: "object", properties: { id: { type: "string", format: "uuid" } } });
	});

	it("a definition that refers to itself is written out once, then accepts any value there", () => {
		const schema = safeSchema({
			type: "object",
			properties: { tree: { $ref: "#/$defs/node" } },
			$defs: {
				node: { type: "object", properties: { name: { type: "string" }, kids: { items: { $ref: "#/$defs/node" } } } },
			},
		});
		expect(piParameters(schema).properties).toEqual({
			tree: { type: "object", properties: { name: { type: "string" }, kids: { items: {} } } },
		});
	});

	it("references it cannot follow (an anchor, another document, a missing definition) accept any value", () => {
		const schema = safeSchema({
			type: "object",
			properties: {
				a: { $ref: "#anchor" },
				b: { $ref: "https://example.com/schema.json" },
				c: { $ref: "#/$defs/missing" },
				d: { $ref: "#/$defs/bad%ZZ" },
			},
			$defs: {},
		});
		expect(piParameters(schema).properties).toEqual({ a: {}, b: {}, c: {}, d: {} });
	});

	it("a schema with no $ref is left as it is, and a $ref key inside data is not a reference", () => {
		const plain = safeSchema({ type: "object", properties: { q: { type: "string", const: { $ref: "#/x" } } } });
		expect(piParameters(plain)).toEqual(plain);
	});
});
