// A first search and call to a server that is still starting (here: one that takes 10 s, like a
// cold npx install) wait for it and answer, in one cold `pi -p`: the search finds the tool, the
// call gets the result. Both Pi lines.

import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { countedServer, faultStdio, startedPids } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

describe.each(PI_HOSTS)("a cold first call ($name)", (host) => {
	let home: PiHome | undefined;
	afterEach(async () => home?.dispose());

	it("search, then a call to a server that takes 10 s to start: the search finds the tool, the call gets the result", async () => {
		home = await createPiHome({ mcpConfig: { mcpServers: { slow: faultStdio("slow-start", { START_MS: "10000" }) } } });
		const progress: string[] = [];
		const steps = [
			() => ({ toolCall: { name: "mcp", arguments: { search: "echo" } } }),
			(req: ChatRequest) => {
				progress.push(lastToolMessage(req));
				return { toolCall: { name: "mcp", arguments: { tool: "slow_echo", args: { text: "hi" } } } };
			},
			(req: ChatRequest) => ({ text: `said: ${lastToolMessage(req)}` }),
		];
		const run = await runPi(home, "echo hi", { host, steps });
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain("said: echo: hi");
		expect(progress[0]).toContain("slow_echo");
	}, 90_000);

	it("a first session that fills the cache and calls the server starts it once", async () => {
		home = await createPiHome({});
		const log = join(home.root, "starts.log");
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { everything: countedServer(log) } }));
		const steps = [
			() => ({ toolCall: { name: "mcp", arguments: { tool: "everything_echo", args: { message: "once" } } } }),
			(req: ChatRequest) => ({ text: `said: ${lastToolMessage(req)}` }),
		];
		const run = await runPi(home, "echo", { host, steps });
		expect(run.stdout).toContain("said: Echo: once");
		expect(startedPids(log)).toHaveLength(1);
	}, 60_000);
});
