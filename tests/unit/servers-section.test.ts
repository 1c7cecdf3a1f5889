// Pi 1.x's `mcp_servers` section as the extension writes it (pi/servers-section.ts): each server's
// one line by Pi 1.6's `mcpServerSummary` rule, fixed for the session (the real Pi beside its
// built-in: tests/e2e/pi15-exposure.test.ts).
import { describe, expect, it } from "vitest";
import type { McpRuntime } from "../../mcp-runtime.ts";
import { serverSummary, serversSection } from "../../pi/servers-section.ts";

/** A runtime with these servers (all `codemode`), whose instructions the test may change. */
function runtimeOf(servers: Record<string, { description?: string }>, instructions: Record<string, string>) {
	return {
		config: { servers: new Map(Object.entries(servers).map(([name, entry]) => [name, { name, ...entry }])) },
		lifecycle: {
			serverNames: () => Object.keys(servers),
			blocked: () => false,
			instructions: (name: string) => instructions[name],
		},
	} as unknown as McpRuntime;
}

describe("a server's one line (Pi 1.6's mcpServerSummary)", () => {
	it("is the configured description's first line, else the instructions', each trimmed first", () => {
		expect(serverSummary("  Issue tracker\nfor the team", "ignored")).toBe("Issue tracker");
		expect(serverSummary(undefined, "\n\n  Use it for tickets.  \nMore.")).toBe("Use it for tickets.");
		expect(serverSummary("   ", "From the instructions")).toBe("From the instructions");
		expect(serverSummary(undefined, undefined)).toBe("");
	});
});

describe("the mcp_servers section", () => {
	it("summarises a server without a description by its instructions, as the session first read them", () => {
		const instructions: Record<string, string> = { docs: "# Docs server\nSearch the docs." };
		const runtime = runtimeOf({ docs: {}, tracker: { description: "Issue tracker\nmore" }, quiet: {} }, instructions);
		const first = serversSection(runtime);
		expect(first?.split("\n").slice(1)).toEqual([
			"- mcp__docs (codemode): # Docs server",
			"- mcp__quiet (codemode)",
			"- mcp__tracker (codemode): Issue tracker",
		]);
		// The quiet server connects and sends instructions: this session's section stays (the prompt cache holds).
		instructions.quiet = "Quiet things.";
		expect(serversSection(runtime)).toBe(first);
		// The next session (a new runtime, the cache knowing them) summarises it.
		expect(serversSection(runtimeOf({ quiet: {} }, instructions))).toContain("- mcp__quiet (codemode): Quiet things.");
	});
});
