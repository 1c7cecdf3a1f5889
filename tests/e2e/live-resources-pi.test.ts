// Live resources in the real Pi (both lines), against a server built on the SDK v2 server package
// that the test changes (tests/fixtures/live-resources.ts): the model reads a resource; it changes
// while Pi is idle (a session message tells the model, with the next prompt) or during a run (the
// next tool result tells it); the next read has the new content; the note comes once, starts no
// model turn, and every request extends the one before (the provider's prompt cache holds).
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, ROOT, TSX } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, type PiRpc, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { converse, steps, toolResults } from "../support/pi-conversation.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const FIXTURE = join(ROOT, "tests", "fixtures", "live-resources.ts");
/** The note telling of note://status, as often as it is in `text` (quotes JSON-escaped or not). */
const notes = (text: string) =>
	text.match(/MCP: the resource note:\/\/status of server \\*"live\\*" changed since it was read/g)?.length ?? 0;

/** A home whose `live` server takes its control requests on `port`. */
async function liveHome(port: number): Promise<PiHome> {
	const live = { command: process.execPath, args: [TSX, FIXTURE, "stdio", String(port)] };
	return createPiHome({ mcpConfig: { mcpServers: { live } } });
}

/** Waits (polling the server) until it holds a subscription to `uri`. */
async function subscribed(port: number, uri: string): Promise<void> {
	for (;;) {
		const uris = await fetch(`http://127.0.0.1:${port}/control/subscribed`)
			.then((r) => r.json() as Promise<string[]>)
			.catch((): string[] => []);
		if (uris.includes(uri)) return;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

const setNote = async (port: number, text: string) =>
	(
		await fetch(`http://127.0.0.1:${port}/control/set?name=status&text=${encodeURIComponent(text)}`, { method: "POST" })
	).json() as Promise<{ notified: boolean }>;

/** Each request the model got starts with everything the one before it sent: nothing cached was rewritten. */
function extendsEachOther(requests: readonly ChatRequest[]): void {
	for (let k = 1; k < requests.length; k++) {
		const before = requests[k - 1];
		const after = requests[k];
		expect(JSON.stringify(after.messages.slice(0, before.messages.length))).toBe(JSON.stringify(before.messages));
		expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
	}
}

const text = (request: ChatRequest | undefined) => JSON.stringify(request?.messages ?? []);

describe.each(PI_HOSTS)("live resources in the real $name", (host) => {
	let home: PiHome | undefined;
	let pi: PiRpc | undefined;
	afterEach(async () => {
		await pi?.close();
		await home?.dispose();
		pi = undefined;
		home = undefined;
	});

	it("changed while Pi is idle: the model is told in the session, once, and its next read has the new content (rpc)", async () => {
		const port = await freePort();
		home = await liveHome(port);
		pi = await startPiRpc({ home, host, steps });
		const first = await converse(pi, 'call {"tool":"live_get_status"}', () => ({ cancelled: true }));
		expect(toolResults(first.events)).toContain("status v0");
		await subscribed(port, "note://status");

		const from = pi.events.length;
		expect(await setNote(port, "status v1")).toEqual({ notified: true });
		const told = await pi.waitFor(
			(e) => e.type === "message_end" && (e.message as { customType?: string }).customType === "mcp-resource-changed",
			from,
		);
		expect(notes(JSON.stringify(told.message))).toBe(1);
		await setNote(port, "status v2"); // a second change before the next read: not told again

		const second = await converse(pi, 'call {"tool":"live_get_status"}', () => ({ cancelled: true }));
		expect(toolResults(second.events)).toContain("status v2");
		const requests = home.model.requests;
		expect(notes(text(requests.at(-1)))).toBe(1);
		expect(requests).toHaveLength(4); // two prompts, each a call and its answer: the note started no turn
		extendsEachOther(requests);
	}, 180_000);

	it("changed during a run: the next tool result tells the model, and its read after has the new content (-p)", async () => {
		const port = await freePort();
		home = await liveHome(port);
		const call = (tool: string, args?: Record<string, unknown>) => ({
			toolCall: { name: "mcp", arguments: { tool, ...(args ? { args } : {}) } },
		});
		const run = await runPi(home, "read the status, change it, read it again", {
			host,
			steps: [
				() => call("live_get_status"),
				// The read is subscribed by the time the change is made.
				async () => {
					await subscribed(port, "note://status");
					return call("live_set_note", { name: "status", text: "status v9" });
				},
				() => call("live_get_status"),
				(request) => ({ text: `last read: ${lastToolMessage(request)}` }),
			],
		});
		expect(run.code, run.stderr).toBe(0);
		const requests = home.model.requests;
		expect(requests).toHaveLength(4);
		const afterChange = lastToolMessage(requests[2]);
		expect(afterChange).toContain("note status is now: status v9");
		expect(notes(afterChange)).toBe(1);
		expect(lastToolMessage(requests[3])).toContain("status v9");
		expect(notes(text(requests[3]))).toBe(1);
		extendsEachOther(requests);
	}, 180_000);
});
