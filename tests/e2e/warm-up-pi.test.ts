// The learned warm-up, in the real `pi -p` on both Pi lines: a project's session calls one of its
// two servers; the next sessions in that project start it at their first prompt, before the model
// has answered anything (the scripted model waits for the start, so without the warm-up it never
// answers), and never start the server the project did not call. The second session builds its
// runtime at the start, the third starts from the start-up snapshot the second kept.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countedServer, MEMORY, startsIn, waitUntil } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage, type Step } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const TEST_MS = 240_000;

describe.each(PI_HOSTS)("servers the project called start at the next session's first prompt ($name)", (host) => {
	let home: PiHome;
	let used: string;
	let unused: string;
	const run = (steps: Step[]) => runPi(home, "go", { host, steps, timeoutMs: TEST_MS });
	const echo = { toolCall: { name: "mcp", arguments: { tool: "everything_echo", args: { message: "warm" } } } };
	const answer = (req: ChatRequest) => ({ text: `said: ${lastToolMessage(req)}` });

	beforeEach(async () => {
		home = await createPiHome({});
		used = join(home.root, "everything.log");
		unused = join(home.root, "memory.log");
		const memory = { ...countedServer(unused, [MEMORY]), env: { MEMORY_FILE_PATH: join(home.root, "memory.jsonl") } };
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { everything: countedServer(used), memory } }));
	});
	afterEach(async () => home.dispose());

	it(
		"the server called before starts before the model answers; the one never called does not start",
		async () => {
			const first = await run([() => echo, answer]);
			expect(first.code, first.stderr).toBe(0);
			expect(lastToolMessage(first.model.requests[1])).toContain("Echo: warm");

			for (const session of ["the runtime built at start", "from the start-up snapshot"]) {
				const [usedBefore, unusedBefore] = [startsIn(used), startsIn(unused)];
				const warmed = async () => {
					await waitUntil(() => startsIn(used) > usedBefore, `everything to start (${session})`, TEST_MS);
					return echo;
				};
				const next = await run([warmed, answer]);
				expect(next.code, next.stderr).toBe(0);
				expect(lastToolMessage(next.model.requests[1]), session).toContain("Echo: warm");
				expect(startsIn(used) - usedBefore, session).toBe(1); // the call found it started
				expect(startsIn(unused) - unusedBefore, session).toBe(0);
			}
		},
		TEST_MS * 2,
	);
});
