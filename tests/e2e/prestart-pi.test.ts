// A server starts while the model's tool call still streams, once what has arrived names it: the
// scripted model sends the call's opening and holds the rest until the server has started (its
// launcher leaves a marker). Without the start on the streamed call nothing starts the server
// before the call is complete, and the held stream never ends. Both Pi lines, as users call:
// through `mcp` on pi 0.73, a codemode script on Pi 1.5.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { markerServer, waitUntil } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage, type StepReply } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const TEST_MS = 240_000;

describe.each(PI_HOSTS)("a server starts as the call naming it streams ($name)", (host) => {
	let home: PiHome;
	let marker: string;
	const pi15 = host.pi1;
	const run = (steps: unknown[]) =>
		runPi(home, "go", {
			host,
			steps: steps as never,
			builtins: pi15 ? ["codemode", "tool-search"] : [],
			timeoutMs: TEST_MS,
		});

	/** The call, held after its opening names the server (and not yet the tool), until the server started. */
	const heldCall = (): StepReply => {
		const started = () => waitUntil(() => existsSync(marker), "the server to start while the call streams", TEST_MS);
		if (pi15) {
			const code = 'const r = await tools.mcp__everything__echo({ message: "early" }); return r.content[0].text;';
			const opening = JSON.stringify({ code }).indexOf("mcp__everything__") + "mcp__everything__".length;
			return { toolCall: { name: "codemode", arguments: { code } }, hold: { after: opening, until: started } };
		}
		const args = { tool: "everything_echo", args: { message: "early" } };
		const opening = JSON.stringify(args).indexOf("everything_") + "everything_".length;
		return { toolCall: { name: "mcp", arguments: args }, hold: { after: opening, until: started } };
	};

	beforeEach(async () => {
		home = await createPiHome({});
		marker = join(home.root, "started");
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { everything: markerServer(marker) } }));
	});
	afterEach(async () => home.dispose());

	it(
		"the held call goes on once the server has started, and the call answers from it",
		async () => {
			// The first run fills the cache (the tool names a streamed call is matched against).
			const filling = await run([() => ({ text: "ok" })]);
			expect(filling.code, filling.stderr).toBe(0);
			rmSync(marker, { force: true });

			const held = await run([heldCall, (req: ChatRequest) => ({ text: `said: ${lastToolMessage(req)}` })]);
			expect(held.code, held.stderr).toBe(0);
			expect(lastToolMessage(held.model.requests[1])).toContain("Echo: early");
		},
		TEST_MS,
	);
});
