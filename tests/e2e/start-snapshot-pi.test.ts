// The start-up snapshot with the real `pi -p` on both lines: the first run fills the cache, the
// second starts the long way and keeps what it registered, the third starts from that. The model
// must see exactly what it saw before, and a call must work as before (one server start, at the
// call); a config edited afterwards is seen by the next start.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SNAPSHOT_DIR } from "../../pi/start-snapshot.ts";
import { countedServer, startedPids } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const say = (req: ChatRequest) => ({ text: `said: ${lastToolMessage(req)}` });

/** What the model is sent at the start of a run: its system prompt and every tool it may call. */
function modelView(request: ChatRequest | undefined) {
	const system = request?.messages.find((m) => m.role === "system" || m.role === "developer")?.content;
	return {
		system: String(system ?? "").replace(/Current date[^\n]*/g, ""),
		tools: (request?.tools ?? []).map((t) => [t.function.name, t.function.description, t.function.parameters]),
	};
}

describe.each(PI_HOSTS)("a start from the snapshot ($name)", (host) => {
	let home: PiHome;
	let log: string;
	const pi15 = host.pi1;
	// Pi 1.5 as users run it: MCP tools reached from codemode scripts; pi 0.73: through `mcp`.
	const sum = pi15
		? () => ({
				toolCall: {
					name: "codemode",
					arguments: {
						code: "const r = await tools.mcp__everything__get_sum({ a: 40, b: 2 }); return r.content[0].text;",
					},
				},
			})
		: () => ({ toolCall: { name: "mcp", arguments: { tool: "everything_get-sum", args: { a: 40, b: 2 } } } });
	const run = (steps: unknown[]) =>
		runPi(home, "go", { host, steps: steps as never, builtins: pi15 ? ["codemode", "tool-search"] : [] });
	const snapshots = () =>
		existsSync(join(home.agentDir, SNAPSHOT_DIR)) ? readdirSync(join(home.agentDir, SNAPSHOT_DIR)) : [];

	beforeEach(async () => {
		home = await createPiHome({});
		log = join(home.root, "starts.log");
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { everything: countedServer(log) } }));
	});
	afterEach(async () => home.dispose());

	it("the model sees what it saw, a call works with one server start, and an edited config is seen next time", async () => {
		const filling = await run([() => ({ text: "ok" })]);
		expect(filling.code, filling.stderr).toBe(0);
		expect(snapshots()).toEqual([]); // the cache was empty: this start had servers to start

		const long = await run([() => ({ text: "ok" })]);
		expect(long.code, long.stderr).toBe(0);
		const before = modelView(long.model.requests[0]);
		expect(snapshots()).toHaveLength(1);

		const startsBefore = startedPids(log).length;
		let startsAtFirstRequest = -1;
		let seen: ReturnType<typeof modelView> | undefined;
		const fast = await run([
			(request: ChatRequest) => {
				startsAtFirstRequest = startedPids(log).length - startsBefore;
				seen = modelView(request);
				return sum();
			},
			say,
		]);
		expect(fast.code, fast.stderr).toBe(0);
		expect(seen).toEqual(before);
		expect(fast.stdout).toContain("The sum of 40 and 2 is 42");
		expect(startsAtFirstRequest).toBe(0);
		expect(startedPids(log).length - startsBefore).toBe(1);
		// The call listed the server's tools again, as they were: the snapshot still holds, and says so.
		const status = await runPi(home, "/mcp status", { host });
		// Pi prints what an extension writes to stdout on stderr in print mode.
		expect(status.stderr).toContain("started from the start-up snapshot");

		home.writeAgentFile(
			"mcp.json",
			JSON.stringify({
				mcpServers: { everything: countedServer(log), notes: { ...countedServer(log), description: "Team notes" } },
			}),
		);
		const edited = await run([() => ({ text: "ok" })]);
		expect(edited.code, edited.stderr).toBe(0);
		const view = modelView(edited.model.requests[0]);
		// Pi 1.5 lists the servers in its system prompt (codemode); pi 0.73 names them in `mcp`'s description.
		expect(JSON.stringify(view)).toContain(pi15 ? "mcp__notes" : "notes");
		expect(JSON.stringify(view)).toContain("Team notes");
		const after = await runPi(home, "/mcp status", { host });
		expect(after.stderr).toContain("notes:");
		expect(after.stderr).not.toContain("started from the start-up snapshot"); // the notes server had no cache yet
	}, 120_000);
});
