// The real Pi, in process, with the faux model: the model searches through `mcp`, calls the
// tool it found, and its next turn sees the real result from server-everything.
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { toolDefinitionTokens } from "../bench/token-count.ts";
import { everythingStdio } from "./helpers.ts";
import { lastToolResult, type PiHarness, startPi } from "./pi-harness.ts";

describe("Pi in process with the faux model", () => {
	let pi: PiHarness | undefined;
	afterEach(async () => {
		await pi?.dispose();
		pi = undefined;
	});

	it("search, then call: the model sees the real result and was offered exactly one MCP tool", async () => {
		let foundName = "";
		pi = await startPi({
			mcpConfig: { mcpServers: { everything: everythingStdio() } },
			responses: [
				() => fauxAssistantMessage(fauxToolCall("mcp", { search: "add two numbers" })),
				(context) => {
					const result = lastToolResult(context);
					foundName = /^- (\S+)/.exec(result?.text ?? "")?.[1] ?? "not-found";
					return fauxAssistantMessage(fauxToolCall("mcp", { tool: foundName, args: { a: 1234, b: 4321 } }));
				},
				(context) => fauxAssistantMessage(fauxText(`The server said: ${lastToolResult(context)?.text}`)),
			],
		});
		await pi.session.prompt("What is 1234 + 4321? Use the MCP tools.");

		expect(foundName).toBe("everything_get-sum");
		const [first, , last] = pi.contexts;
		const toolNames = (first.tools ?? []).map((t) => t.name);
		expect(toolNames).toContain("mcp");
		expect(toolNames.filter((n) => n.startsWith("everything") || n === "mcp")).toEqual(["mcp"]);
		// The whole definition as the model receives it stays within the 250-token budget.
		const mcpTool = (first.tools ?? []).find((t) => t.name === "mcp");
		expect(toolDefinitionTokens(mcpTool as NonNullable<typeof mcpTool>)).toBeLessThanOrEqual(250);
		const final = lastToolResult(last);
		expect(final).toMatchObject({ toolName: "mcp", isError: false });
		expect(final?.text).toContain("5555");
	});

	it("a failing call reaches the model as an error result with the tool's parameters", async () => {
		pi = await startPi({
			mcpConfig: { mcpServers: { everything: everythingStdio() } },
			responses: [
				() => fauxAssistantMessage(fauxToolCall("mcp", { tool: "everything_get-sum", args: '{"a": "x"' })),
				() => fauxAssistantMessage(fauxText("done")),
			],
		});
		await pi.session.prompt("break it");
		const result = lastToolResult(pi.contexts[1]);
		expect(result?.isError).toBe(true);
		expect(result?.text).toContain("args is not valid JSON");
		expect(result?.text).toContain("- a (number, required)");
	});
});
