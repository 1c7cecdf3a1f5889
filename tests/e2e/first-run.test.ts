// A first run that sticks, on the path a user walks: an empty agent dir, one short real `pi -p`
// (the model answers at once), then a second. The first run's cache fill is not cut off by its
// exit; the second run starts no server before a call and exactly one at the call, and offers
// the direct tools configured before the first run. No cache is written by the test.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CACHE_FILE } from "../../metadata-cache.ts";
import { countedServer, startsIn } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

describe.each(PI_HOSTS)("the first run sticks ($name)", (host) => {
	let home: PiHome;
	afterEach(async () => home.dispose());

	it("run 1 fills the cache for every server; run 2 spawns none before the call, one at it, and offers direct tools", async () => {
		home = await createPiHome({});
		const log = (name: string) => join(home.root, `${name}.starts`);
		const servers = {
			alpha: { ...countedServer(log("alpha")), directTools: ["echo"] },
			beta: countedServer(log("beta")),
			gamma: countedServer(log("gamma")),
		};
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: servers }));
		const cacheFile = join(home.agentDir, CACHE_FILE);
		expect(existsSync(cacheFile)).toBe(false);

		const first = await runPi(home, "hi", { host, steps: [() => ({ text: "hello" })] });
		expect(first.code, first.stderr).toBe(0);
		const cached = Object.values(
			JSON.parse(readFileSync(cacheFile, "utf8")).servers as Record<string, { name: string; tools: unknown[] }>,
		);
		expect(cached.map((s) => s.name).sort()).toEqual(["alpha", "beta", "gamma"]);
		for (const server of cached) expect(server.tools.length).toBeGreaterThan(10);
		const afterFirst = { alpha: startsIn(log("alpha")), beta: startsIn(log("beta")), gamma: startsIn(log("gamma")) };

		const seen: number[] = [];
		const total = () => startsIn(log("alpha")) + startsIn(log("beta")) + startsIn(log("gamma"));
		const before = total();
		const second = await runPi(home, "use beta", {
			host,
			steps: [
				() => {
					seen.push(total() - before);
					return { toolCall: { name: "mcp", arguments: { tool: "beta_echo", args: { message: "from run 2" } } } };
				},
				(req) => {
					seen.push(total() - before);
					return { text: lastToolMessage(req) };
				},
			],
		});
		expect(second.code, second.stderr).toBe(0);
		expect(second.stdout).toContain("Echo: from run 2");
		expect(seen).toEqual([0, 1]);
		expect(startsIn(log("beta"))).toBe(afterFirst.beta + 1);
		// The direct tool configured before run 1 is offered in run 2, registered from the cache.
		const offered = (home.model.requests[0].tools ?? []).map((t) => t.function.name);
		expect(offered).toContain("alpha_echo");
		expect(offered).toContain("mcp");
	}, 90_000);
});
