// A folder the user gave a server stays reachable: the real server-filesystem configured with a
// folder of notes, Pi run from another folder (both Pi lines). That server replaces the folders of
// its arguments with the client's roots once it has asked for them (right after initialization,
// while the session goes on), so a read made before that moment would pass whatever the roots are:
// the model here reads only once the server has said (on its stderr, `debug: true`) that the
// roots are applied.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FILESYSTEM, waitUntil } from "../support/helpers.ts";
import type { Step } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, type PiRpc, startPiRpc } from "../support/pi-cli-harness.ts";
import { toolResults } from "../support/pi-conversation.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

/** What server-filesystem writes on stderr once the client's roots are its allowed folders. */
const ROOTS_APPLIED = "[mcp:notes] Updated allowed directories from MCP roots";
const STARTED = "Secure MCP Filesystem Server running on stdio";
/** The test's budget: the waits inside it are bounded by it alone (a loaded machine is slow, not wrong). */
const TEST_MS = 180_000;

const call = (tool: string, args: unknown): ReturnType<Step> => ({
	toolCall: { name: "mcp", arguments: { tool, args } },
});

describe.each(PI_HOSTS)("a folder named in a server's arguments ($name)", (host) => {
	let home: PiHome;
	let notes: string;
	beforeEach(async () => {
		home = await createPiHome();
		notes = join(home.root, "notes");
		mkdirSync(notes);
		writeFileSync(join(notes, "todo.md"), "buy oat milk\n");
		home.writeProjectFile("readme.md", "the project\n");
		const server = { command: process.execPath, args: [FILESYSTEM, notes], debug: true };
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { notes: server } }));
	});
	afterEach(async () => home.dispose());

	it(
		"stays readable from another folder once the roots apply, beside the session folder",
		async () => {
			let pi: PiRpc | undefined;
			const stderr = () => pi?.stderr() ?? "";
			const steps: Step[] = [
				// The first call starts the server (or joins the start that fills the cache).
				() => call("notes_list_allowed_directories", {}),
				async () => {
					await waitUntil(() => stderr().includes(ROOTS_APPLIED), "server-filesystem to apply the roots", TEST_MS);
					return call("notes_read_text_file", { path: join(notes, "todo.md") });
				},
				() => call("notes_read_text_file", { path: join(home.cwd, "readme.md") }),
				() => call("notes_list_allowed_directories", {}),
				() => ({ text: "done" }),
			];
			home.model.script(steps);
			pi = await startPiRpc({ home, host });
			try {
				const from = pi.events.length;
				pi.send({ id: "p", type: "prompt", message: "read my notes" });
				await pi.waitFor((e) => e.type === "agent_end", from, TEST_MS);
				// The model's own calls (on Pi 1.5 an `mcp` call of a tool runs it as its Pi tool, a second event).
				const results = pi.events
					.slice(from)
					.filter((e) => e.type === "tool_execution_end" && e.toolName === "mcp")
					.map((e) => toolResults([e]));
				expect(results).toHaveLength(4);
				expect(results[1]).toContain("buy oat milk");
				expect(results[2]).toContain("the project");
				expect(results[3]).toContain(notes);
				expect(results[3]).toContain(home.cwd);
				// One server process: the roots seen applied are those of the process that answered.
				expect(stderr().split(STARTED)).toHaveLength(2);
			} finally {
				await pi.close();
			}
		},
		TEST_MS,
	);
});
