// What the MCP SDK prints itself (a warning naming a server's tool, header or schema format) reaches
// the console cleaned of terminal sequences; what anything else prints is left alone (issue 35:
// OSC 52 and OSC 0 from a hostile server reached the terminal through the SDK's own warning).
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import { describe, expect, it } from "vitest";
import { guardSdkConsole } from "../../trust/sdk-console.ts";

const METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;

/** A console that keeps what it is given, made the global one while `work` runs (the SDK prints to the global console). */
function capture(work: (target: Console) => void): unknown[][] {
	const printed: unknown[][] = [];
	const target = Object.fromEntries(
		METHODS.map((m) => [m, (...args: unknown[]) => void printed.push(args)]),
	) as unknown as Console;
	guardSdkConsole(target);
	const saved = globalThis.console;
	globalThis.console = target;
	try {
		work(target);
	} finally {
		globalThis.console = saved;
	}
	return printed;
}

describe("the MCP SDK's own console output", () => {
	it("a schema format carrying OSC 0 and OSC 52 is printed by the SDK's bundled ajv without a single escape", () => {
		const hostile = "date\u001b]0;PWNED-TITLE\u0007\u001b]52;c;cHduZWQ=\u0007";
		const printed = capture(() => {
			new AjvJsonSchemaValidator().getValidator({ type: "string", format: hostile })("x");
		});
		const text = printed.flat().map(String).join("\n");
		expect(text).toContain('unknown format "date"'); // the warning itself is kept
		expect(text).not.toContain("\u001b");
		expect(text).not.toContain("PWNED");
	});

	it("anything else's output passes untouched, colours and all", () => {
		const printed = capture((target) => {
			target.warn("own %s", "\u001b[31mred\u001b[0m");
			target.log({ a: 1 });
		});
		expect(printed).toEqual([["own %s", "\u001b[31mred\u001b[0m"], [{ a: 1 }]]);
	});
});
