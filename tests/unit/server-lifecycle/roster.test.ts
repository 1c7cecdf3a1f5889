// server-lifecycle/roster.ts: which servers the config names, which may run, and the words a
// user (or the model) gets for one that is unknown, turned off, unconfigured or held by the gate.
import { describe, expect, it } from "vitest";
import { ServerRoster } from "../../../server-lifecycle/roster.ts";
import type { GateState } from "../../../trust/project-approval.ts";
import type { McpConfig } from "../../../types.ts";
import { configOf } from "../../support/helpers.ts";

const source = { kind: "pi-global", scope: "user", path: "/home/u/.pi/agent/mcp.json" } as const;

/** A config with usable servers `a` and `b`, and `c`, which needs a variable set. */
function config(over: Partial<McpConfig> = {}): McpConfig {
	const base = configOf({ a: { command: "a" }, b: { command: "b" } });
	const reason = "uses ${C_TOKEN}, which is not set";
	return { ...base, unconfigured: new Map([["c", { name: "c", source, reason }]]), ...over };
}

describe("which servers exist and may run (server-lifecycle/roster.ts)", () => {
	it("lists the usable servers, then those that need configuration; knows both", () => {
		const roster = new ServerRoster(config());
		expect(roster.serverNames()).toEqual(["a", "b", "c"]);
		expect([roster.knows("c"), roster.knows("d")]).toEqual([true, false]);
		expect(() => roster.entry("c")).toThrow('Unknown server "c"');
	});

	it("says why an unconfigured server may not run, and in which file", () => {
		const roster = new ServerRoster(config());
		expect(roster.blocked("c")).toBe(
			'Server "c" needs configuration: uses ${C_TOKEN}, which is not set (in /home/u/.pi/agent/mcp.json)',
		);
		expect(roster.blocked("a")).toBeUndefined();
	});

	it("holds a server the gate has not let through, saying how to let it", () => {
		let gate: GateState = "pending";
		const roster = new ServerRoster(config(), (entry) => (entry.name === "b" ? gate : "allowed"));
		expect(roster.blocked("b")).toBe('Server "b" is awaiting approval: ask the user to run /mcp approve b');
		expect(roster.allowed(roster.entry("b"))).toBe(false);
		gate = "denied";
		expect(roster.gateOf("b")).toBe("denied");
		expect(roster.blocked("b")).toContain("was denied by the user for this project");
		gate = "allowed";
		expect(roster.blocked("b")).toBeUndefined();
	});

	it("answers an unknown server with the ones that can be used, a turned-off one with where it was turned off", () => {
		const roster = new ServerRoster(config({ disabled: new Map([["off", "/p/.pi/mcp.json"]]) }));
		expect(roster.unknownServer("zz")).toBe('Unknown server "zz". Configured servers: a, b, c');
		expect(roster.unknownServer("off")).toBe(
			'Server "off" is turned off ("enabled": false in /p/.pi/mcp.json). Ask the user if it should be turned on; servers that can be used: a, b, c.',
		);
	});

	it("adds the config's errors to an unknown server: they may be why", () => {
		const problems = [{ severity: "error", file: "/p/.mcp.json", message: "Unexpected token at line 3" }] as const;
		const roster = new ServerRoster(config({ problems }));
		expect(roster.unknownServer("zz")).toContain(
			"The MCP config has problems, which may be why: error: /p/.mcp.json: Unexpected token at line 3",
		);
	});

	it("follows a new config given to it", () => {
		const roster = new ServerRoster(config());
		roster.config = configOf({ d: { command: "d" } });
		expect(roster.serverNames()).toEqual(["d"]);
	});
});
