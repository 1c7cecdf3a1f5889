// Pi 1.5: every MCP tool is a Pi tool. Each check runs first against Pi 1.5.2's built-in MCP (the
// control: the extension not loaded) and then against the extension, with the real `pi` CLI, a
// scripted model and the real server-everything.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { everythingStdio } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_15 } from "../support/pi-hosts.ts";

const SUM_SCRIPT = "const r = await tools.mcp__everything__get_sum({ a: 40, b: 2 }); return r.content[0].text;";

describe.each([
	{ name: "built-in MCP (control)", noExtension: true, builtins: ["mcp", "codemode", "tool-search"] },
	{ name: "the extension", noExtension: false, builtins: ["codemode", "tool-search"] },
])("Pi 1.5 with $name", ({ noExtension, builtins }) => {
	let home: PiHome;
	beforeEach(async () => {
		home = await createPiHome({ mcpConfig: { mcpServers: { everything: everythingStdio() } } });
	});
	afterEach(async () => home.dispose());

	it("a codemode script calls an MCP tool and gets its result", async () => {
		const steps = [
			() => ({ toolCall: { name: "codemode", arguments: { code: SUM_SCRIPT } } }),
			(req: Parameters<typeof lastToolMessage>[0]) => ({ text: `said: ${lastToolMessage(req)}` }),
		];
		const run = await runPi(home, "add 40 and 2", { host: PI_15, steps, noExtension, builtins });
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain("The sum of 40 and 2 is 42");
	}, 60_000);
});
