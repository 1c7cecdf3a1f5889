// Direct tool names: never a Pi tool's or another direct tool's, deterministic by config order,
// Pi 1.5's mcp__server__tool for its exposure; selection reports; schemas without regexes.
import { describe, expect, it } from "vitest";
import { ToolCatalog } from "../../catalog/tool-catalog.ts";
import { directSelection, planDirectTools } from "../../tool-registrar.ts";
import { configOf } from "../support/helpers.ts";

describe("direct tool names", () => {
	const tool = (server: string, name: string) => ({
		server,
		name,
		description: `${name} of ${server}`,
		inputSchema: { type: "object" },
	});

	it("never take Pi's own tool names or each other's, deterministically by config order", () => {
		const config = configOf(
			{ files: { command: "x", directTools: true }, other: { command: "y", directTools: ["search", "read"] } },
			{ toolPrefix: "none" },
		);
		const plan = () => {
			const catalog = new ToolCatalog("none", ["files", "other"]);
			catalog.set("other", { tools: [tool("other", "search"), tool("other", "read")], resources: [] }, true);
			catalog.set(
				"files",
				{ tools: [tool("files", "read"), tool("files", "search"), tool("files", "bash")], resources: [] },
				true,
			);
			return planDirectTools(catalog, directSelection(config, {}), ["files", "other"]).tools.map(
				(t) => `${t.tool.server}/${t.tool.name}=${t.name}`,
			);
		};
		const first = plan();
		expect(first).toEqual([
			"files/read=files_read",
			"files/search=search",
			"files/bash=files_bash",
			"other/search=other_search",
			"other/read=other_read",
		]);
		expect(plan()).toEqual(first);
	});

	it("with toolPrefix none, never replace Pi 1.5's codemode, tool_search, powershell or another extension's tool", () => {
		const config = configOf({ s: { command: "x", directTools: true } }, { toolPrefix: "none" });
		const catalog = new ToolCatalog("none", ["s"]);
		const names = ["codemode", "tool_search", "powershell", "read_mcp_resource", "todo", "ok"];
		catalog.set("s", { tools: names.map((n) => tool("s", n)), resources: [] }, true);
		const planned = planDirectTools(catalog, directSelection(config, {}), ["s"], ["todo"]).tools.map((t) => t.name);
		expect(planned).toEqual(["s_codemode", "s_tool_search", "s_powershell", "s_read_mcp_resource", "s_todo", "ok"]);
	});

	it("hand Pi their schema without regular expressions (Pi's engine backtracks: ^(a+)+$ froze it)", () => {
		const config = configOf({ s: { command: "x", directTools: true } });
		const catalog = new ToolCatalog("server", ["s"]);
		const inputSchema = {
			type: "object",
			properties: {
				q: { type: "string", pattern: "^(a+)+$" },
				m: { type: "object", patternProperties: { "^(a+)+$": {} } },
				// A parameter named "pattern" (grep's) stays; only its regex goes.
				pattern: { type: "string", pattern: "^(a+)+$" },
			},
		};
		catalog.set("s", { tools: [{ ...tool("s", "t"), inputSchema }], resources: [] }, true);
		const [planned] = planDirectTools(catalog, directSelection(config, {}), ["s"]).tools;
		expect(planned.parameters).toEqual({
			type: "object",
			properties: { q: { type: "string" }, m: { type: "object" }, pattern: { type: "string" } },
		});
	});

	it("made direct by Pi 1.5's exposure, they keep Pi 1.5's names (mcp__server__tool); directTools keeps ours", () => {
		const config = configOf({
			"dev-radius": {
				command: "x",
				exposure: "hidden",
				toolExposure: { "get.item": "direct", get_item: "direct", ping: "direct" },
			},
			mine: { command: "y", directTools: ["search"] },
		});
		const catalog = new ToolCatalog("server", ["dev-radius", "mine"]);
		catalog.set(
			"dev-radius",
			{ tools: ["get.item", "get_item", "ping", "secret"].map((n) => tool("dev-radius", n)), resources: [] },
			true,
		);
		catalog.set("mine", { tools: [tool("mine", "search")], resources: [] }, true);
		const names = planDirectTools(catalog, directSelection(config, {}), ["dev-radius", "mine"]).tools.map(
			(t) => `${t.tool.name}=${t.name}`,
		);
		expect(names).toEqual([
			"get.item=mcp__dev_radius__get_item",
			// Same name once cleaned: told apart by a stable hash, as Pi 1.5 does.
			expect.stringMatching(/^get_item=mcp__dev_radius__get_item_[0-9a-f]+$/),
			"ping=mcp__dev_radius__ping",
			"search=mine_search",
		]);
	});

	it("reports selected tools a server does not have, and servers not cached yet", () => {
		const config = configOf({
			a: { command: "x", directTools: ["real", "ghost"] },
			b: { command: "y", directTools: true },
		});
		const catalog = new ToolCatalog("server", ["a", "b"]);
		catalog.set("a", { tools: [tool("a", "real")], resources: [] }, true);
		const plan = planDirectTools(catalog, directSelection(config, {}), ["a", "b"]);
		expect(plan.tools.map((t) => t.name)).toEqual(["a_real"]);
		expect(plan.unknown).toEqual(["a/ghost"]);
		expect(plan.uncached).toEqual(["b"]);
		expect(plan.tokens).toBeGreaterThan(0);
	});
});
