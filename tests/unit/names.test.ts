// Tool names: prefix modes, sanitizing to [A-Za-z0-9_-], and the 64-character limit.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ToolCatalog } from "../../catalog/tool-catalog.ts";
import { formatToolName, MAX_TOOL_NAME_LENGTH } from "../../types.ts";
import { ROOT } from "../support/helpers.ts";

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

describe("formatToolName", () => {
	it("applies the three prefix modes", () => {
		expect(formatToolName("github", "create_issue", "server")).toBe("github_create_issue");
		expect(formatToolName("context7-mcp", "resolve-library-id", "short")).toBe("context7_resolve-library-id");
		expect(formatToolName("context7-mcp", "resolve-library-id", "server")).toBe("context7-mcp_resolve-library-id");
		expect(formatToolName("github", "create_issue", "none")).toBe("create_issue");
	});

	it("sanitizes hostile names to the characters providers accept", () => {
		const hostile = [
			"my server",
			"tool.with.dots",
			"émoji🚀tool",
			"../../etc/passwd",
			"a/b:c",
			"   ",
			"名前",
			"x\ny\u0000z",
		];
		for (const tool of hostile) {
			for (const server of ["srv", "bad server/name", "💥"]) {
				const name = formatToolName(server, tool, "server");
				expect(name, `${server} + ${JSON.stringify(tool)}`).toMatch(VALID);
			}
		}
		expect(formatToolName("my server", "tool.with.dots", "server")).toBe("my_server_tool_with_dots");
	});

	it("keeps a readable head and a stable hash instead of cutting long names blindly", () => {
		const server = "a-very-long-server-name-for-an-enterprise-platform";
		const one = formatToolName(server, "list_all_repository_collaborators_with_permissions", "server");
		const two = formatToolName(server, "list_all_repository_collaborators_with_permissions_v2", "server");
		expect(one.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
		expect(one).toMatch(/^a-very-l_list_all_repository_collaborators_with_permiss_[0-9a-f]{8}$/);
		expect(formatToolName(server, "get_me", "server")).toBe(`${server}_get_me`);
		expect(one).not.toBe(two);
		expect(formatToolName(server, "list_all_repository_collaborators_with_permissions", "server")).toBe(one);
		expect(formatToolName("s", "x".repeat(64 - 2), "server")).toBe(`s_${"x".repeat(62)}`);
	});

	it("every tool of the 35 real catalogs gets a valid, unique name in every mode", () => {
		const dir = join(ROOT, "tests", "data", "tool-catalogs");
		const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
		expect(files.length).toBe(35);
		for (const mode of ["server", "short", "none"] as const) {
			const catalog = new ToolCatalog(mode, []);
			let total = 0;
			for (const file of files) {
				const data = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
					server: string;
					tools: { name: string; description?: string }[];
				};
				const server = `${data.server}-mcp`;
				total += data.tools.length;
				catalog.set(
					server,
					{
						tools: data.tools.map((t) => ({ server, name: t.name, description: t.description ?? "", inputSchema: {} })),
						resources: [],
					},
					true,
				);
			}
			const names = catalog.all().map((t) => t.qualifiedName);
			expect(names).toHaveLength(total);
			expect(new Set(names).size).toBe(total);
			for (const name of names) expect(name).toMatch(VALID);
		}
	});

	it("resolves collisions deterministically: the server listed first keeps the bare name", () => {
		const catalog = new ToolCatalog("none", ["first", "second"]);
		const tool = (server: string) => ({ server, name: "search", description: "", inputSchema: {} });
		catalog.set("second", { tools: [tool("second")], resources: [] }, true);
		catalog.set("first", { tools: [tool("first")], resources: [] }, true);
		expect(catalog.all().map((t) => t.qualifiedName)).toEqual(["search", "second_search"]);
	});

	it("a change to one server rebuilds that server's tools only; a name a clash took comes back when the clash ends", () => {
		const catalog = new ToolCatalog("none", ["first", "second", "third", "fourth"]);
		const tool = (server: string, name = "search") => ({ server, name, description: "", inputSchema: {} });
		catalog.set("first", { tools: [tool("first")], resources: [] }, false);
		catalog.set("second", { tools: [tool("second")], resources: [] }, false);
		catalog.set("third", { tools: [tool("third", "fetch")], resources: [] }, false);
		catalog.set("fourth", { tools: [tool("fourth", "list")], resources: [] }, false);
		const before = catalog.byServer();
		catalog.set("third", { tools: [tool("third", "fetch"), tool("third", "post")], resources: [] }, false);
		const after = catalog.byServer();
		// The search index sees by identity which servers changed.
		expect(after.get("first")).toBe(before.get("first"));
		expect(after.get("fourth")).toBe(before.get("fourth"));
		expect(after.get("third")).not.toBe(before.get("third"));
		expect(after.get("third")?.map((t) => t.qualifiedName)).toEqual(["fetch", "post"]);
		expect(after.get("second")?.map((t) => t.qualifiedName)).toEqual(["second_search"]);
		catalog.delete("first");
		expect(catalog.all().map((t) => t.qualifiedName)).toEqual(["search", "fetch", "post", "list"]);
		expect(catalog.resolve("search")).toMatchObject({ kind: "found", tool: { server: "second" } });
	});
});
