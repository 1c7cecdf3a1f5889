// The shell command builds the package's schemas with bin/typebox-lite.ts (outside Pi nothing lends
// it TypeBox): every schema the package exports must be the JSON Schema TypeBox builds, and the
// cache's schema must accept and refuse what TypeBox's does. The modules are loaded as the CLI
// loads them: through jiti, with TypeBox aliased to the stand-in.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createJiti } from "jiti";
import { describe, expect, it } from "vitest";
import * as schema from "../../config/schema.ts";
import { defineServer } from "../../config.ts";
import { MetadataCache } from "../../metadata-cache.ts";
import * as surface from "../../proxy/surface.ts";
import { ROOT } from "../support/helpers.ts";

const jiti = createJiti(import.meta.url, {
	alias: { "@sinclair/typebox": join(ROOT, "bin", "typebox-lite.ts") },
	moduleCache: false,
	fsCache: false,
});

/** The exports that are schemas, as JSON (what the checks and Pi read of them). */
function schemas(module: Record<string, unknown>): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [name, value] of Object.entries(module)) {
		if (value && typeof value === "object" && Symbol.for("TypeBox.Kind") in value)
			out[name] = JSON.parse(JSON.stringify(value));
	}
	return out;
}

describe("the CLI's TypeBox stand-in", () => {
	it.each([
		["config/schema.ts", schema],
		["proxy/surface.ts", surface],
	])("%s: every exported schema is TypeBox's", async (file, real) => {
		const lite = await jiti.import<Record<string, unknown>>(join(ROOT, file));
		const expected = schemas(real as Record<string, unknown>);
		expect(Object.keys(expected).length).toBeGreaterThan(0);
		expect(schemas(lite)).toEqual(expected);
	});

	it("the metadata cache reads back an entry the real schema wrote", async () => {
		const dir = mkdtempSync(join(tmpdir(), "typebox-lite-"));
		try {
			const entry = defineServer("s", { command: "node", args: ["x"] });
			await new MetadataCache(dir).store(entry, {
				tools: [{ server: "s", name: "t", description: "d", inputSchema: { type: "object" } }],
				resources: [],
			});
			const lite = await jiti.import<{ MetadataCache: typeof MetadataCache }>(join(ROOT, "metadata-cache.ts"));
			expect(new lite.MetadataCache(dir).lookup(entry)?.tools.map((t) => t.name)).toEqual(["t"]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
