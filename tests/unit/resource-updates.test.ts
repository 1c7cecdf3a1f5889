// How the model is told that a resource it read changed (pi/resource-updates.ts), over a stand-in
// for Pi's extension API: while idle a session message that starts no turn; during a run the next
// result the model reads (not a codemode script's), else the next prompt; each note once, masked.
import { describe, expect, it } from "vitest";
import { changeNote, RESOURCE_CHANGED_MESSAGE, ResourceUpdates } from "../../pi-session/resource-updates.ts";
import { Redactor } from "../../trust/redaction.ts";
import { piStandIn } from "../support/pi-stand-in.ts";

function fakePi() {
	const host = piStandIn();
	const fire = (event: string, payload: Record<string, unknown> = {}) =>
		host.fire(event, payload) as Record<string, unknown> | undefined;
	return { pi: host.pi, sent: host.messages, fire };
}

const result = (text: string, extra: Record<string, unknown> = {}) => ({
	toolName: "bash",
	content: [{ type: "text", text }],
	...extra,
});

describe("ResourceUpdates", () => {
	it("idle: a session message at once, shown to the user, starting no turn", () => {
		const { pi, sent, fire } = fakePi();
		const updates = new ResourceUpdates(pi, () => true);
		updates.tell("note one");
		expect(sent).toEqual([
			{
				message: { customType: RESOURCE_CHANGED_MESSAGE, content: "note one", display: true },
				options: { triggerTurn: false },
			},
		]);
		expect(fire("tool_result", result("ls output"))).toBeUndefined();
		expect(fire("before_agent_start")).toBeUndefined();
	});

	it("during a run: appended to the next result the model reads, once; a script's result is left alone", () => {
		const { pi, sent, fire } = fakePi();
		const updates = new ResourceUpdates(pi, () => false);
		updates.tell("note one");
		updates.tell("note two");
		expect(fire("tool_result", result("inner", { parentToolCallId: "code-1" }))).toBeUndefined();
		const patched = fire("tool_result", result("ls output", { structuredContent: { files: 2 } }));
		expect(patched).toEqual({
			content: [
				{ type: "text", text: "ls output" },
				{ type: "text", text: "\n(note one\nnote two)" },
			],
			structuredContent: { files: 2 },
		});
		expect(fire("tool_result", result("next"))).toBeUndefined();
		expect(fire("before_agent_start")).toBeUndefined();
		expect(sent).toEqual([]);
	});

	it("a run that ended before any result: the next prompt carries the note", () => {
		const { pi, fire } = fakePi();
		const updates = new ResourceUpdates(pi, () => false);
		updates.tell("note one");
		expect(fire("before_agent_start")).toEqual({
			message: { customType: RESOURCE_CHANGED_MESSAGE, content: "note one", display: true },
		});
		expect(fire("before_agent_start")).toBeUndefined();
	});

	it("the session's end drops what it did not get to", () => {
		const { pi, fire } = fakePi();
		const updates = new ResourceUpdates(pi, () => false);
		updates.tell("note one");
		fire("session_shutdown");
		expect(fire("before_agent_start")).toBeUndefined();
	});

	it("the note names the URI with known secrets masked, on one line without terminal sequences", () => {
		const redactor = new Redactor();
		redactor.add("tok-5ecret-value");
		const note = changeNote(
			{ server: "docs\u001b]0;x\u0007", uri: "https://docs.example/page?key=tok-5ecret-value\nnext" },
			redactor,
		);
		expect(note).not.toContain("tok-5ecret-value");
		expect([...note].filter((c) => c.charCodeAt(0) < 0x20)).toEqual([]); // no ESC, BEL or newline
		expect(note).toMatch(/^MCP: the resource https:\/\/docs\.example\/page\?key=\S+ .* of server "docs.*" changed/);
	});
});
