// Pi 1.5's tool_search and codemode's searchTools() rank Pi's tools with this package's engine: an
// MCP tool of ours is ranked with what its server said of it that Pi's tool list does not carry.
import { describe, expect, it } from "vitest";
import { type McpToolFacts, type PiToolInfo, PiToolRanker } from "../../pi/tool-ranking.ts";
import type { ToolAnnotations } from "../../types.ts";

const namespace = { name: "mcp__tracker", aliases: ["tracker"] };
const piTool = (name: string, description: string): PiToolInfo => ({
	name: `mcp__tracker__${name}`,
	description,
	parameters: { type: "object", properties: {} },
	namespace,
});
const tools = [
	piTool("assign_issue", "Assign an issue to a user."),
	piTool("search_issues", "Search issues by assignee, state or text."),
];
const annotations: Record<string, ToolAnnotations> = {
	mcp__tracker__assign_issue: { readOnlyHint: false },
	mcp__tracker__search_issues: { readOnlyHint: true },
};

describe("Pi's search tools, ranked by this package's engine", () => {
	it("rank an MCP tool with its server's annotations: a question finds the tool that reads", async () => {
		const facts: McpToolFacts = (name) => ({ annotations: annotations[name] });
		const question = "which issues are assigned to me";
		expect((await new PiToolRanker(facts).rank(question, tools, 2))[0]).toBe("mcp__tracker__search_issues");
		// Pi's tool list alone carries no annotations: the tool named for the question's verb comes first.
		expect((await new PiToolRanker().rank(question, tools, 2))[0]).toBe("mcp__tracker__assign_issue");
	});
});
