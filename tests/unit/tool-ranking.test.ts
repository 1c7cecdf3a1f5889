// Pi 1.5's tool_search and codemode's searchTools() rank Pi's tools with this package's engine: an
// MCP tool of ours is ranked with what its server said of it, its annotations from Pi's tool list
// (which carries them) and its title from this package (Pi's list has no place for one).
import { describe, expect, it } from "vitest";
import { type McpToolTitles, type PiToolInfo, PiToolRanker } from "../../pi-tools/tool-ranking.ts";
import type { ToolAnnotations } from "../../types.ts";

const namespace = { name: "mcp__tracker", aliases: ["tracker"] };
const piTool = (name: string, description: string, annotations?: ToolAnnotations): PiToolInfo => ({
	name: `mcp__tracker__${name}`,
	description,
	parameters: { type: "object", properties: {} },
	namespace,
	...(annotations ? { annotations } : {}),
});

describe("Pi's search tools, ranked by this package's engine", () => {
	it("rank an MCP tool with the annotations Pi's tool list carries: a question finds the tool that reads", async () => {
		const question = "which issues are assigned to me";
		const annotated = [
			piTool("assign_issue", "Assign an issue to a user.", { readOnlyHint: false }),
			piTool("search_issues", "Search issues by assignee, state or text.", { readOnlyHint: true }),
		];
		expect((await new PiToolRanker().rank(question, annotated, 2))[0]).toBe("mcp__tracker__search_issues");
		// Without them, the tool named for the question's verb comes first.
		const bare = annotated.map(({ annotations: _, ...tool }) => tool);
		expect((await new PiToolRanker().rank(question, bare, 2))[0]).toBe("mcp__tracker__assign_issue");
	});

	it("rank an MCP tool with its title, which Pi's tool list does not carry", async () => {
		const tools = [piTool("op_17", "Runs operation 17."), piTool("list_projects", "Lists the projects.")];
		const titles: McpToolTitles = (name) => (name === "mcp__tracker__op_17" ? "Archive a project" : undefined);
		expect((await new PiToolRanker(titles).rank("archive a project", tools, 2))[0]).toBe("mcp__tracker__op_17");
		expect((await new PiToolRanker().rank("archive a project", tools, 2))[0]).toBe("mcp__tracker__list_projects");
	});

	it("find a tool kept out of the ranking only by its name", async () => {
		const proxy: PiToolInfo = { name: "mcp", description: "MCP servers: tracker (issues, projects)." };
		const tools = [proxy, piTool("list_projects", "Lists the projects.")];
		const byName = (tool: PiToolInfo) => tool.name === "mcp";
		expect(await new PiToolRanker().rank("tracker projects", tools, 5, undefined, byName)).toEqual([
			"mcp__tracker__list_projects",
		]);
		expect((await new PiToolRanker().rank("MCP", tools, 5, undefined, byName))[0]).toBe("mcp");
	});
});
