// Servers shared between sessions, in the real `pi` (both lines) against the real server-everything:
// eight `pi -p` runs at once start one server process, a ninth starts none; an elicitation reaches
// the session whose call caused it (rpc); a broker killed mid-call gives that call a clear error,
// never a second run, and the next call works; a pi 0.73 and a Pi 1.5 session share one server;
// and no process is left once the idle times pass.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { isAlive as alive } from "../../bounds/process-tree.ts";
import { brokerStatus } from "../../broker/client.ts";
import { readBrokerFile } from "../../broker/wire.ts";
import { CACHE_FILE } from "../../metadata-cache.ts";
import { countedServer, MEMORY, startedPids, waitUntil } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, type PiRpc, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { converse, steps, toolResults } from "../support/pi-conversation.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

/** A home whose everything server (and memory) is shared and lingers `idleTimeout` minutes (3 s) after its last session; the broker idles out after 1 s. */
async function sharedHome(
	options: Parameters<typeof createPiHome>[0],
	withMemory = false,
	idleTimeout = 0.05,
): Promise<{ home: PiHome; log: string; memoryLog: string }> {
	const home = await createPiHome(options);
	const log = join(home.root, "starts.log");
	const memoryLog = join(home.root, "memory.log");
	const memory = {
		...countedServer(memoryLog, [MEMORY]),
		env: { MEMORY_FILE_PATH: join(home.root, "memory.jsonl") },
		idleTimeout,
	};
	const mcpServers = { everything: { ...countedServer(log), idleTimeout }, ...(withMemory ? { memory } : {}) };
	home.writeAgentFile("mcp.json", JSON.stringify({ settings: { shareServers: true }, mcpServers }));
	return { home, log, memoryLog };
}
const env = { PI_MCP_BROKER_IDLE_MS: "1000" };

describe.each(PI_HOSTS)("servers shared between sessions ($name)", (host) => {
	it("8 concurrent pi -p sessions start one server and each gets its own answer; a 9th starts none; nothing is left after", async () => {
		// A second shared server: a first run connects both at once to fill the cache.
		// The servers wait 45 s after their last session: the 9th session finds them however slowly it
		// starts (12 s ran out on a machine at load 30).
		const { home, log, memoryLog } = await sharedHome({ steps }, true, 0.75);
		try {
			const call = (i: number) =>
				runPi(home, `call {"tool":"everything_get-sum","args":{"a":${i},"b":1000}}`, { host, env, timeoutMs: 120_000 });
			const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => call(i)));
			runs.forEach((run, i) => {
				expect(run.code, run.stderr).toBe(0);
				expect(run.stdout, run.stdout).toContain(`The sum of ${i} and 1000 is ${i + 1000}`);
			});
			expect(startedPids(log)).toHaveLength(1);
			const cached = JSON.parse(readFileSync(join(home.agentDir, CACHE_FILE), "utf8")) as {
				servers: Record<string, unknown>;
			};
			expect(
				Object.keys(cached.servers)
					.map((key) => key.split(" ")[0])
					.sort(),
			).toEqual(["everything", "memory"]);
			expect(startedPids(memoryLog)).toHaveLength(1);
			const ninth = await call(8);
			expect(ninth.code, ninth.stderr).toBe(0);
			expect(ninth.stdout).toContain("The sum of 8 and 1000 is 1008");
			expect(startedPids(log)).toHaveLength(1);
			const broker = readBrokerFile(home.agentDir)?.pid as number;
			expect(broker).toBeGreaterThan(0);
			// The servers linger 45 s after their last session, then the broker exits after 1 s idle.
			await waitUntil(
				() => [...startedPids(log), ...startedPids(memoryLog), broker].every((pid) => !alive(pid)),
				"the shared servers and the broker to exit",
				120_000,
			);
		} finally {
			await home.dispose();
		}
	}, 300_000);

	it("an elicitation from a shared server reaches the session whose call caused it, and /mcp shows the broker (rpc)", async () => {
		const { home, log } = await sharedHome({ steps });
		const a = await startPiRpc({ home, host, env });
		const b = await startPiRpc({ home, host, env });
		try {
			// Both sessions use the server; b's long call is in flight when a's call asks a question.
			for (const pi of [a, b])
				expect(
					toolResults(
						(await converse(pi, 'call {"tool":"everything_get-sum","args":{"a":1,"b":2}}', () => ({ cancelled: true })))
							.events,
					),
				).toContain("The sum of 1 and 2 is 3");
			const bFrom = b.events.length;
			const bLong = converse(
				b,
				'call {"tool":"everything_trigger-long-running-operation","args":{"duration":4,"steps":4}}',
				() => ({ cancelled: true }),
			);
			await b.waitFor((e) => e.type === "tool_execution_start", bFrom, 30_000);
			const asked = await converse(a, 'call {"tool":"everything_trigger-elicitation-request"}', () => ({
				cancelled: true,
			}));
			expect(asked.dialogs.length).toBeGreaterThan(0);
			expect(toolResults(asked.events)).toMatch(/cancel/i);
			const bDone = await bLong;
			expect(bDone.dialogs).toEqual([]); // b was asked nothing
			expect(toolResults(bDone.events)).toMatch(/Long running operation completed/i);
			expect(startedPids(log)).toHaveLength(1);
			// /mcp tells the user what runs in the broker, for how many sessions.
			const from = a.events.length;
			a.send({ id: "status", type: "prompt", message: "/mcp status" });
			const status = String(
				(await a.waitFor((e) => e.method === "notify" && String(e.message).includes("MCP servers"), from)).message,
			);
			expect(status).toMatch(/everything: connected \(shared\), \d+ tools/);
			expect(status).toMatch(
				/Shared MCP broker \(pid \d+, since \d\d:\d\d\): 1 server\n {2}everything: 2 sessions, up since \d\d:\d\d, pid \d+/,
			);
		} finally {
			await a.close();
			await b.close();
			const pids = [...startedPids(log), readBrokerFile(home.agentDir)?.pid ?? 0].filter((p) => p > 0);
			await waitUntil(() => pids.every((p) => !alive(p)), "the shared server and the broker to exit", 20_000);
			await home.dispose();
		}
	}, 120_000);

	it("the broker killed mid-call: that call says so and is not run again, the next call works, nothing is left", async () => {
		let first = "";
		const { home, log } = await sharedHome({
			steps: [
				() => ({
					toolCall: {
						name: "mcp",
						arguments: { tool: "everything_trigger-long-running-operation", args: { duration: 8, steps: 4 } },
					},
				}),
				(req) => {
					first = lastToolMessage(req);
					return { toolCall: { name: "mcp", arguments: { tool: "everything_get-sum", args: { a: 20, b: 22 } } } };
				},
				(req) => ({ text: `second: ${lastToolMessage(req)}` }),
			],
		});
		try {
			const running = runPi(home, "run the long operation, then add", { host, env, timeoutMs: 90_000 });
			// The long operation is under way in the broker's server: then the broker dies.
			// The broker itself says when the call is in flight at the server: after the model asked for it,
			// a request still in flight 300 ms apart is the 8 s operation (a tools/list takes milliseconds).
			const busy = async () =>
				home.model.requests.length >= 1 &&
				Boolean((await brokerStatus(home.agentDir))?.servers.some((s) => s.inFlight > 0));
			for (
				const deadline = Date.now() + 60_000;
				!((await busy()) && (await delay(300)) === undefined && (await busy()));
			) {
				if (Date.now() > deadline) throw new Error("the long call never reached the shared server");
				await delay(100);
			}
			const broker = readBrokerFile(home.agentDir)?.pid as number;
			process.kill(broker, "SIGKILL");
			const run = await running;
			expect(run.code, run.stderr).toBe(0);
			expect(first).toContain("may or may not have run on the server and was not retried");
			expect(first).not.toMatch(/Long running operation completed/i);
			expect(run.stdout).toContain("second: The sum of 20 and 22 is 42");
			// One start for the killed broker's server, one for the next call: the long operation never ran twice.
			expect(startedPids(log)).toHaveLength(2);
			await waitUntil(
				() => startedPids(log).every((p) => !alive(p)) && !alive(readBrokerFile(home.agentDir)?.pid ?? broker),
				"every server and broker to exit",
				20_000,
			);
		} finally {
			await home.dispose();
		}
	}, 120_000);
});

/** The cross-line test's budget; each wait in it may take all of it (two Pi starting on a loaded machine are slow). */
const CROSS_LINE_MS = 240_000;

describe("servers shared between the Pi lines", () => {
	it(
		"a session of each Pi line uses one server process (Pi 1.x's AI_AGENT=pi does not split it)",
		async () => {
			const { home, log } = await sharedHome({ steps });
			const sessions: PiRpc[] = [];
			try {
				for (const host of PI_HOSTS) sessions.push(await startPiRpc({ home, host, env }));
				for (const pi of sessions) {
					const { events } = await converse(
						pi,
						'call {"tool":"everything_get-sum","args":{"a":1,"b":2}}',
						() => ({ cancelled: true }),
						CROSS_LINE_MS,
					);
					expect(toolResults(events)).toContain("The sum of 1 and 2 is 3");
				}
				expect(startedPids(log)).toHaveLength(1);
				const status = await brokerStatus(home.agentDir);
				expect(status?.servers.map((s) => [s.name, s.sessions])).toEqual([["everything", PI_HOSTS.length]]);
			} finally {
				for (const pi of sessions) await pi.close();
				const pids = [...startedPids(log), readBrokerFile(home.agentDir)?.pid ?? 0].filter((p) => p > 0);
				await waitUntil(() => pids.every((p) => !alive(p)), "the shared server and the broker to exit", CROSS_LINE_MS);
				await home.dispose();
			}
		},
		CROSS_LINE_MS,
	);
});
