// Direct tools: chosen MCP tools as first-class Pi tools, registered from the metadata cache at
// load with no server started, connecting lazily when called; MCP_DIRECT_TOOLS.
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listDescendants } from "../../bounds/process-tree.ts";
import { everythingStdio, tempDir } from "../support/helpers.ts";
import { firstSession, lastToolResult, type PiHarness, startPi } from "../support/pi-harness.ts";

describe("direct tools in Pi", () => {
	let pi: PiHarness | undefined;
	let home: ReturnType<typeof tempDir>;
	beforeEach(() => {
		home = tempDir();
	});
	afterEach(async () => {
		await pi?.dispose();
		pi = undefined;
		home.remove();
	});

	it("are offered from the cache with zero servers spawned, and a call works end to end", async () => {
		const everything = { ...everythingStdio(), directTools: ["echo", "get-sum"] };
		await firstSession(home.path, { mcpServers: { everything } });
		const before = listDescendants(process.pid).length;
		pi = await startPi({
			home: home.path,
			mcpConfig: { mcpServers: { everything } },
			responses: [
				() => fauxAssistantMessage(fauxToolCall("everything_get-sum", { a: 40, b: 2 })),
				(context) => fauxAssistantMessage(fauxText(`sum: ${lastToolResult(context)?.text}`)),
			],
		});
		expect(listDescendants(process.pid).length).toBe(before); // loaded, nothing started
		await pi.session.prompt("add 40 and 2");
		const offered = pi.contexts[0].tools ?? [];
		const names = offered.map((t) => t.name);
		expect(names).toEqual(expect.arrayContaining(["mcp", "everything_echo", "everything_get-sum"]));
		expect(names.filter((n) => n.startsWith("everything_"))).toHaveLength(2);
		const sum = offered.find((t) => t.name === "everything_get-sum");
		expect(sum?.parameters).toMatchObject({
			type: "object",
			properties: { a: { type: "number" }, b: { type: "number" } },
			required: ["a", "b"],
		});
		const result = lastToolResult(pi.contexts[1]);
		expect(result).toMatchObject({ toolName: "everything_get-sum", isError: false });
		expect(result?.text).toContain("42");
	});

	it("MCP_DIRECT_TOOLS picks them for one run, replacing the config", async () => {
		const everything = { ...everythingStdio(), directTools: true };
		await firstSession(home.path, { mcpServers: { everything } });
		pi = await startPi({
			home: home.path,
			mcpConfig: { mcpServers: { everything } },
			env: { MCP_DIRECT_TOOLS: "everything/echo, nosuchserver" },
			responses: [fauxAssistantMessage(fauxText("ok"))],
		});
		await pi.session.prompt("hi");
		const names = (pi.contexts[0].tools ?? []).map((t) => t.name).filter((n) => n.startsWith("everything_"));
		expect(names).toEqual(["everything_echo"]);
	});

	it("with no cache yet they are skipped: the proxy alone is offered", async () => {
		pi = await startPi({
			mcpConfig: { mcpServers: { everything: { ...everythingStdio(), directTools: true } } },
			responses: [fauxAssistantMessage(fauxText("ok"))],
		});
		await pi.session.prompt("hi");
		expect((pi.contexts[0].tools ?? []).map((t) => t.name).filter((n) => n.startsWith("everything_"))).toEqual([]);
	});
});
