// The real Pi, in process, with the faux model: the model searches through `mcp`, calls the
// tool it found, and its next turn sees the real result from server-everything.
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { everythingStdio } from "../support/helpers.ts";
import { lastToolResult, type PiHarness, startPi } from "../support/pi-harness.ts";
import { toolDefinitionTokens } from "../support/token-count.ts";

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

	it("progress reaches Pi as tool updates; a malformed call is refused without harm", async () => {
		pi = await startPi({
			mcpConfig: { mcpServers: { everything: everythingStdio() } },
			responses: [
				() => fauxAssistantMessage(fauxToolCall("mcp", { tool: 42 })),
				() =>
					fauxAssistantMessage(
						fauxToolCall("mcp", { tool: "everything_trigger-long-running-operation", args: { duration: 1, steps: 2 } }),
					),
				() => fauxAssistantMessage(fauxText("done")),
			],
		});
		const updates: string[] = [];
		pi.session.subscribe((event) => {
			if (event.type === "tool_execution_update")
				updates.push((event.partialResult as { content: { text: string }[] }).content[0].text);
		});
		await pi.session.prompt("run the long operation");
		const refused = lastToolResult(pi.contexts[1]);
		expect(refused?.isError).toBe(true);
		expect(refused?.text).toContain(`Unknown tool "42"`); // Pi coerces the number; the answer stays clear
		expect(lastToolResult(pi.contexts[2])).toMatchObject({ isError: false });
		// The server's own progress (before it, a "waiting for everything: starting" update when the
		// call found the server still starting, as a start ahead of the call makes likely).
		expect(updates.find((u) => !u.startsWith("waiting for"))).toMatch(/^1\/2\b/);
	});
});
