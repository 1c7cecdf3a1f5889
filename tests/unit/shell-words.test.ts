// Words for a person: the model's instructions ("ask the user to run ...") become the command to run;
// at a shell the command is the shell's own; a long call's progress on stderr (a line per message
// in a log, one line rewritten on a terminal, how long it has waited when the server says nothing);
// a command line split as a shell splits it (/mcp setup).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forPerson } from "../../errors.ts";
import { shellWords } from "../../pi-commands/config-dialogs.ts";
import { CallProgress, QUIET_MS } from "../../shell/call-progress.ts";
import { forShell } from "../../shell/output.ts";

describe("a person's words", () => {
	it("the command to run, not the instruction to relay it; the shell's own commands at a shell", () => {
		const model = 'Server "proj" is awaiting approval: ask the user to run /mcp approve proj';
		expect(forPerson(model)).toBe('Server "proj" is awaiting approval: run /mcp approve proj');
		expect(forShell(model)).toBe('Server "proj" is awaiting approval: run pi-mcp-proxy approve proj');
		expect(forPerson("Config problems (tell the user):\nerror: x")).toBe("Config problems:\nerror: x");
		expect(forShell("needs sign-in: ask the user to run /mcp-auth gh (HTTP 401)")).toBe(
			"needs sign-in: run pi-mcp-proxy login gh (HTTP 401)",
		);
		expect(forShell("needs authentication: /mcp-auth gh explains (HTTP 401)")).toBe(
			"needs authentication: /mcp-auth gh in Pi explains (HTTP 401)",
		);
		expect(forShell('Find tools with mcp({search:"words"}).')).toBe("Find tools with pi-mcp-proxy search <words>.");
		// A status row names its server once.
		expect(forShell('- gh: failed: Server "gh" failed to connect: Cannot reach https://x/mcp')).toBe(
			"- gh: failed: Cannot reach https://x/mcp",
		);
		expect(forShell('- gh: Server "gh" needs sign-in: ask the user to run /mcp-auth gh')).toBe(
			"- gh: needs sign-in: run pi-mcp-proxy login gh",
		);
	});

	it("a command line split as a shell does: quotes group, a backslash escapes", () => {
		expect(shellWords(`npx -y "@scope/pkg" 'a b' c\\ d --flag="x y"`)).toEqual([
			"npx",
			"-y",
			"@scope/pkg",
			"a b",
			"c d",
			"--flag=x y",
		]);
		expect(shellWords("  ")).toEqual([]);
	});
});

describe("a long call's progress on stderr", () => {
	let written: string[];
	let now: number;
	beforeEach(() => {
		written = [];
		now = 0;
		vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
			written.push(String(chunk));
			return true;
		});
	});
	afterEach(() => vi.restoreAllMocks());

	it("in a log: a line per message, the same message once, a silent wait told after a few seconds and rarely", () => {
		const progress = new CallProgress("docs_build", { tty: false, now: () => now });
		progress.progress({ progress: 1, total: 4, message: "compiling" });
		progress.progress({ progress: 1, total: 4, message: "compiling" });
		progress.progress({ progress: 2, total: 4 });
		now += QUIET_MS - 1;
		progress.quiet();
		now += 1;
		progress.quiet();
		now += 1000;
		progress.quiet();
		progress.end();
		expect(written).toEqual([
			"docs_build: 1/4 compiling\n",
			"docs_build: 2/4\n",
			"docs_build: waiting for the answer, 3 s (Ctrl-C cancels)\n",
		]);
	});

	it("on a terminal: one line rewritten in place, cleared when the call ends", () => {
		const progress = new CallProgress("docs_build", { tty: true, now: () => now });
		progress.progress({ progress: 1, total: 2 });
		now += QUIET_MS;
		progress.quiet();
		progress.end();
		expect(written).toEqual([
			"\r\x1b[Kdocs_build: 1/2",
			"\r\x1b[Kdocs_build: waiting for the answer, 3 s (Ctrl-C cancels)",
			"\r\x1b[K",
		]);
	});
});
