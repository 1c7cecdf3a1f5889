// A cloned repository in the real Pi (both lines): its .mcp.json names a command that leaves a
// marker and a URL that records requests. Nothing runs or is contacted in -p, json, rpc or the
// TUI until the user approves; the model is told why; a changed command asks again; on Pi 1.5 an
// untrusted project's .pi/mcp.json is not read and --approve runs it.
import { existsSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { markerServer, waitUntil } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, type PiRpc, type RpcEvent, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { PI_HOSTS, PI1_HOSTS } from "../support/pi-hosts.ts";
import { startPiTui } from "../support/pi-tui-harness.ts";
import { type Recorder, startRecorder } from "../support/recorder.ts";

const AWAITING = 'Server "proj" is awaiting approval: ask the user to run /mcp approve proj';
/** The code printed with the launches shown where Pi cannot ask (the first one in `text`). */
const shownCode = (text: string) => {
	const code = /\/mcp approve ([a-z2-9]{3}-[a-z2-9]{3})/.exec(text)?.[1];
	if (!code) throw new Error(`no approval code in:\n${text}`);
	return code;
};
/**
 * Reads a question over rpc from `from` on: its pages are turned ("Next page") until the one with
 * the choices, left unanswered; returns the text of every page and that last dialog.
 */
async function readQuestion(pi: PiRpc, from: number): Promise<{ text: string; last: RpcEvent }> {
	const titles: string[] = [];
	for (let at = from; ; ) {
		const dialog = await pi.waitFor((e) => e.type === "extension_ui_request" && e.method === "select", at);
		at = pi.events.indexOf(dialog) + 1;
		titles.push(String(dialog.title).replace(/^\(page \d+ of \d+\)\n/, ""));
		const next = (dialog.options as string[])[0];
		if (!next.startsWith("Next page")) return { text: titles.join("\n"), last: dialog };
		pi.send({ type: "extension_ui_response", id: dialog.id, value: next });
	}
}
const callProj = () => ({ toolCall: { name: "mcp", arguments: { tool: "proj_echo", args: { message: "hi" } } } });
const answer = (req: Parameters<typeof lastToolMessage>[0]) => ({ text: `tool said: ${lastToolMessage(req)}` });

describe.each(PI_HOSTS)("a cloned repository's MCP servers ($name)", (host) => {
	let home: PiHome;
	let recorder: Recorder;
	let marker: string;
	beforeEach(async () => {
		recorder = await startRecorder();
		home = await createPiHome({ mcpConfig: { mcpServers: {} } });
		marker = join(home.root, "started");
		home.writeProjectFile(
			".mcp.json",
			JSON.stringify({
				mcpServers: {
					proj: markerServer(marker),
					remote: {
						url: `http://127.0.0.1:${recorder.port}/mcp`,
						headers: { Authorization: "Bearer ${PLANTED_TOKEN}" },
					},
				},
			}),
		);
	});
	afterEach(async () => {
		await home.dispose();
		await recorder.close();
	});
	const env = { PLANTED_TOKEN: "planted-4b1d9e2f" };

	it("-p and json: nothing starts or is contacted, even when the model calls it; the model is told to ask", async () => {
		const steps = [callProj, () => ({ toolCall: { name: "mcp", arguments: { connect: "remote" } } }), answer];
		const print = await runPi(home, "use the project server", { host, env, steps });
		expect(print.code, print.stderr).toBe(0);
		expect(lastToolMessage(home.model.requests[1])).toContain(AWAITING);
		expect(print.stdout).toContain('tool said: Server "remote" is awaiting approval');
		expect(print.stderr).toContain("2 server(s) from this project's config await approval and will not run:");
		expect(print.stderr).toContain(`    runs: sh -c "touch '${marker}'`);
		expect(print.stderr).toContain('    header Authorization: "Bearer ${PLANTED_TOKEN}" (sends your $PLANTED_TOKEN)');
		const code = shownCode(print.stderr);

		const json = await runPi(home, "again", { host, env, mode: "json", steps: [callProj, answer] });
		expect(json.code, json.stderr).toBe(0);
		expect(json.stdout).toContain("awaiting approval");
		expect(existsSync(marker)).toBe(false);
		expect(recorder.requests).toEqual([]);

		// The code approves what was printed with it; naming one server of the list approves only that one.
		const approve = await runPi(home, `/mcp approve proj ${code}`, { host, env, steps: [] });
		expect(approve.code, approve.stderr).toBe(0);
		// Pi sends an extension's stdout to stderr in print mode.
		expect(approve.stdout + approve.stderr).toContain("Approved (starting as configured)");
		const after = await runPi(home, "use it", { host, env, steps: [callProj, answer] });
		expect(after.stdout).toContain("tool said: Echo: hi");
		expect(existsSync(marker)).toBe(true);
		expect(recorder.requests).toEqual([]);
	}, 300_000); // four runs of Pi: a loaded machine takes 10 s or more for each

	it("-p: a pull between what was shown and /mcp approve <code> approves nothing; the new launch is shown, with its own code", async () => {
		const shown = await runPi(home, "hi", { host, env, steps: [() => ({ text: "hello" })] });
		const code = shownCode(shown.stderr);
		// The repository changes (a pull) after the user read the list and before they approve it.
		const pulled = join(home.root, "pulled");
		home.writeProjectFile(".mcp.json", JSON.stringify({ mcpServers: { proj: markerServer(pulled, ["--pulled"]) } }));
		const refused = await runPi(home, `/mcp approve ${code}`, { host, env, steps: [] });
		expect(refused.code, refused.stderr).toBe(0);
		const said = refused.stdout + refused.stderr;
		expect(said).toContain(
			`Nothing approved: this project's MCP config changed since the servers were shown with ${code}.`,
		);
		expect(said).toMatch(
			/proj changed; what it would run and send now that was not shown then:\n {4}\+ runs: sh -c .*--pulled/,
		);
		expect(said).toContain("remote is no longer in the config.");
		const used = await runPi(home, "use it", { host, env, steps: [callProj, answer] });
		expect(used.stdout).toContain("awaiting approval");
		expect(existsSync(pulled)).toBe(false);

		// What the refusal showed has its own code: that one approves the launch as it is now.
		const now = shownCode(said.slice(said.indexOf("Read what it is now")));
		const approved = await runPi(home, `/mcp approve ${now}`, { host, env, steps: [] });
		expect(approved.stdout + approved.stderr).toContain("Approved (starting as configured)");
		expect(approved.stdout + approved.stderr).toContain("--pulled");
	}, 300_000); // four runs of Pi

	it("a .mcp.json that links to /dev/zero: a clear error, and Pi answers and exits as usual", async () => {
		rmSync(join(home.cwd, ".mcp.json"));
		symlinkSync("/dev/zero", join(home.cwd, ".mcp.json"));
		const run = await runPi(home, "hi", { host, steps: [() => ({ text: "hello" })] });
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain("hello");
		expect(run.stderr).toContain(`${join(home.cwd, ".mcp.json")}: is not a regular file`);
	});

	it("rpc: the question is asked and nothing runs meanwhile; /mcp approve lets it run; a changed command asks again", async () => {
		const pi = await startPiRpc({ home, host, env, steps: [callProj, answer, callProj, answer] });
		try {
			const question = await readQuestion(pi, 0);
			expect(question.text).toContain(`    runs: sh -c "touch '${marker}'`);
			expect(question.text).toContain("    connects to: http://127.0.0.1");
			expect(question.text).toContain(
				'    header Authorization: "Bearer ${PLANTED_TOKEN}" (sends your $PLANTED_TOKEN)',
			);
			let from = pi.events.length;
			pi.send({ id: "p1", type: "prompt", message: "call it" });
			await pi.waitFor((e) => e.type === "agent_end", from);
			expect(lastToolMessage(home.model.requests[1])).toContain(AWAITING);
			expect(existsSync(marker)).toBe(false);

			from = pi.events.length;
			pi.send({ id: "a1", type: "prompt", message: "/mcp approve proj" });
			// With a dialog, /mcp approve shows what it approves and the yes is to that; the first choice is no yes.
			const asked = await readQuestion(pi, from);
			expect(asked.text).toContain(`    runs: sh -c "touch '${marker}'`);
			expect(asked.last.options).toEqual([
				"Not now (ask again next time)",
				"Approve all",
				"Choose one by one",
				"Deny all",
			]);
			pi.send({ type: "extension_ui_response", id: asked.last.id, value: "Approve all" });
			const approved = await pi.waitFor((e) => e.type === "extension_ui_request" && e.method === "notify", from);
			expect(String(approved.message)).toContain("Approved (starting as configured)");
			from = pi.events.length;
			pi.send({ id: "p2", type: "prompt", message: "call it again" });
			await pi.waitFor((e) => e.type === "agent_end", from);
			expect(lastToolMessage(home.model.requests[3])).toBe("Echo: hi");
			expect(existsSync(marker)).toBe(true);
			expect(recorder.requests).toEqual([]); // "remote" was not approved
		} finally {
			await pi.close();
		}

		const changed = join(home.root, "changed");
		home.writeProjectFile(".mcp.json", JSON.stringify({ mcpServers: { proj: markerServer(changed, ["--flag"]) } }));
		const run = await runPi(home, "call it", { host, env, steps: [callProj, answer] });
		expect(run.stdout).toContain("awaiting approval");
		expect(existsSync(changed)).toBe(false);
	});

	it("TUI: the user is asked at start, nothing runs until they answer, and Approve all starts the servers", async () => {
		// The server tells when it was started: before the user answered (no "answered" file yet) or after.
		const answered = join(home.root, "answered");
		const early = join(home.root, "started-early");
		const server = markerServer(marker);
		server.args[1] = server.args[1].replace(
			`touch '${marker}'`,
			`if [ -e '${answered}' ]; then touch '${marker}'; else touch '${early}'; fi`,
		);
		home.writeProjectFile(".mcp.json", JSON.stringify({ mcpServers: { proj: server } }));
		const tui = startPiTui(home, { host, env });
		try {
			await tui.waitForText("wants to run this server");
			await tui.waitForText("Approve all");
			// "Not now" comes first (Enter is no yes): down to "Approve all".
			tui.press("\x1b[B");
			await tui.waitForScreen("→ Approve all");
			writeFileSync(answered, "");
			tui.press("\r");
			await waitUntil(() => existsSync(marker) || existsSync(early), "the approved server to start");
			expect(existsSync(early)).toBe(false);
			expect(existsSync(marker)).toBe(true);
		} finally {
			await tui.close();
		}
	});

	it("TUI: a question taller than the terminal comes in pages that fit, and Enter on each approves nothing", async () => {
		const servers: Record<string, unknown> = {};
		for (let i = 0; i < 6; i++) servers[`s${i}`] = { command: "node", args: ["server.js", `--n=${i}`] };
		servers.hidden = markerServer(marker);
		home.writeProjectFile(".mcp.json", JSON.stringify({ mcpServers: servers }));
		const tui = startPiTui(home, { host, env, cols: 80, rows: 24 });
		try {
			const screens: string[] = [];
			for (let page = 1; ; page++) {
				// The whole dialog is on the screen: the question's first line (or its page's heading) at the top, its key hints at the bottom.
				const top = page === 1 ? "This project's MCP config wants to run" : `\\(page ${page} of \\d+\\)`;
				const screen = await tui.waitForScreen(new RegExp(`${top}[^]*↑↓ navigate`));
				screens.push(screen);
				const total = Number(/\(page \d+ of (\d+)\)/.exec(screen)?.[1] ?? 1);
				if (page === total) break;
				expect(screen).toContain(`→ Next page (${page + 1} of ${total})`);
				tui.press("\r");
			}
			const last = screens[screens.length - 1];
			for (const choice of ["→ Not now (ask again next time)", "Approve all", "Choose one by one", "Deny all"])
				expect(last).toContain(choice);
			const shown = screens.join("\n");
			for (const name of Object.keys(servers)) expect(shown).toContain(`${name} (from `);
			expect(shown).toContain('runs: sh -c "touch');
			tui.press("\r");
			await tui.waitForScreen((screen) => !screen.includes("↑↓ navigate"));
			await tui.waitForScreen("7 awaiting approval");
			expect(existsSync(marker)).toBe(false);
		} finally {
			await tui.close();
		}
	});
});

describe.each(PI1_HOSTS)("Pi 1.x project trust ($name)", (host) => {
	let home: PiHome;
	afterEach(async () => home.dispose());

	it("an untrusted project's .pi/mcp.json is not read; --approve (trust) runs its servers", async () => {
		home = await createPiHome({ mcpConfig: { mcpServers: {} } });
		const marker = join(home.root, "started");
		home.writeProjectFile(".pi/mcp.json", JSON.stringify({ mcpServers: { proj: markerServer(marker) } }));
		const untrusted = await runPi(home, "status", { host, steps: [callProj, answer] });
		expect(untrusted.code, untrusted.stderr).toBe(0);
		// No server to reach: as with Pi 1.5's own MCP, no MCP tool is declared (the call finds none).
		expect((home.model.requests[0].tools ?? []).map((t) => t.function.name)).not.toContain("mcp");
		expect(existsSync(marker)).toBe(false);

		rmSync(marker, { force: true });
		const trusted = await runPi(home, "status", { host, extraArgs: ["--approve"], steps: [callProj, answer] });
		expect(trusted.code, trusted.stderr).toBe(0);
		expect(trusted.stdout).toContain("tool said: Echo: hi");
		expect(existsSync(marker)).toBe(true);
	});
});
