// Every one of the 656 catalog tools listed and found through a real stdio server (the catalog
// fixture serving the 35 real catalogs).
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerLifecycle } from "../../lifecycle.ts";
import { searchCatalog } from "../../search/engine.ts";
import { CATALOG_DIR, loadCatalogs } from "../support/catalogs.ts";
import { configOf, fixture, lifecycleOf } from "../support/helpers.ts";

describe("all 35 catalogs through a real stdio server", () => {
	let lifecycle: ServerLifecycle;
	const files = loadCatalogs().map((c) => `${c.server}.json`);
	beforeAll(() => {
		const server = {
			...fixture("catalog-server.ts", ...files.map((f) => join(CATALOG_DIR, f))),
			env: { PREFIX: "1", PAGE_SIZE: "100", RESOURCES: "0" },
		};
		lifecycle = lifecycleOf(configOf({ catalogs: server }));
	});
	afterAll(() => lifecycle?.shutdown());

	it("lists every tool (gitlab's schemas without type: object included) and finds each by its name", async () => {
		const connection = await lifecycle.ensureConnected("catalogs");
		const expected = loadCatalogs().flatMap((c) => c.tools.map((t) => `${c.server}__${t.name}`));
		expect(expected.length).toBe(656);
		expect(connection.tools.map((t) => t.name)).toEqual(expected);
		const missed = lifecycle.catalog
			.forServer("catalogs")
			.filter((tool) => searchCatalog(lifecycle.catalog, tool.name, { limit: 1 })[0]?.tool !== tool);
		expect(missed.map((t) => t.name)).toEqual([]);
	});
});
