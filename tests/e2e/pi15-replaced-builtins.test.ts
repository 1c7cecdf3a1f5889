// Installed with `pi install` beside Pi 1.x's built-ins, as a user has it (the real CLI and TUI,
// extensions loaded from Pi's settings). Pi warns at every start while its built-in `mcp` and
// `tool-search` stay on: `pi -p` says why once, naming `pi config`; the TUI asks once, and one
// Enter switches them off as `pi config` would, so the next start is quiet. With pi-mcp-adapter
// still installed, Pi stopped at its start ("Tool "mcp" conflicts with ..."): this extension
// stands down, the session runs, and one message names the command that removes the other.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { everythingStdio, ROOT } from "../support/helpers.ts";
import { runCommand } from "../support/install-harness.ts";
import { ensurePeerAdapter } from "../support/peer-adapter.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI1_HOSTS, type PiHost } from "../support/pi-hosts.ts";
import { startPiTui } from "../support/pi-tui-harness.ts";

/** Pi's environment in the home (as the harness runs it), for its package commands. */
const piEnv = (home: PiHome) => ({
	...process.env,
	PI_CODING_AGENT_DIR: home.agentDir,
	HOME: home.root,
	PI_OFFLINE: "1",
});

/** `pi install <source>` in the home, as a user runs it. */
async function piInstall(home: PiHome, host: PiHost, source: string): Promise<void> {
	const installed = await runCommand(host.node, [host.cli, "install", source], home.cwd, piEnv(home));
	expect(installed.code, installed.out).toBe(0);
}

const PI_WARNS = /so built-in extension `(mcp|tool-search)` was not loaded/g;
const OUR_LINE = "pi-mcp-proxy replaces Pi's built-in `mcp` and `tool-search`";
const settingsOf = (home: PiHome) =>
	JSON.parse(readFileSync(join(home.agentDir, "settings.json"), "utf8")) as { extensions?: string[] };

describe.each(PI1_HOSTS)("$name with its built-in MCP on", (host) => {
	it("pi -p: one line says why Pi warns and names pi config, at the first start only", async () => {
		const home = await createPiHome({});
		try {
			await piInstall(home, host, ROOT);
			const first = await runPi(home, "hi", { host, fromSettings: true, steps: [() => ({ text: "ok" })] });
			expect(first.code, first.stderr).toBe(0);
			expect(first.stdout).toContain("ok");
			expect(first.stderr.match(PI_WARNS)).toHaveLength(2);
			expect(first.stderr.split(OUR_LINE)).toHaveLength(2);
			expect(first.stderr).toContain("run `pi config` and switch them off under Built-in extensions");
			// Nothing is changed without the user's yes.
			expect(settingsOf(home).extensions).toBeUndefined();
			const next = await runPi(home, "hi", { host, fromSettings: true, steps: [() => ({ text: "ok" })] });
			expect(next.code, next.stderr).toBe(0);
			expect(next.stderr).not.toContain(OUR_LINE);
		} finally {
			await home.dispose();
		}
	});

	it("TUI: asks once; Enter switches them off as pi config does, and the next start shows no warning", async () => {
		const home = await createPiHome({ mcpConfig: { mcpServers: { everything: everythingStdio() } } });
		try {
			await piInstall(home, host, ROOT);
			const first = startPiTui(home, { host, fromSettings: true });
			try {
				await first.waitForScreen("Switch off Pi's built-in `mcp` and `tool-search`?", 60_000);
				expect(first.text()).toMatch(PI_WARNS);
				first.press("\r"); // "Yes", the first choice
				await first.waitForText("are off from the next start");
			} finally {
				await first.close();
			}
			expect(settingsOf(home).extensions).toEqual(["-builtin:mcp", "-builtin:tool-search"]);
			expect(settingsOf(home)).toMatchObject({ retry: { enabled: false } });
			const next = startPiTui(home, { host, fromSettings: true });
			try {
				await next.waitForText("MCP 0/1", 60_000);
				expect(next.text()).not.toMatch(PI_WARNS);
				expect(next.text()).not.toContain("Switch off");
			} finally {
				await next.close();
			}
		} finally {
			await home.dispose();
		}
	}, 180_000);

	it("with pi-mcp-adapter still installed: the session runs, and one message names the command that removes it", async () => {
		const home = await createPiHome({});
		try {
			const adapter = ensurePeerAdapter();
			await piInstall(home, host, adapter);
			await piInstall(home, host, ROOT);
			const run = await runPi(home, "hi", { host, fromSettings: true, steps: [() => ({ text: "ok" })] });
			expect(run.code, run.stderr).toBe(0);
			expect(run.stdout).toContain("ok");
			expect(run.stderr).not.toContain("conflicts with");
			const said = run.stderr.split("\n").filter((line) => line.includes("pi-mcp-proxy is off"));
			expect(said).toEqual([expect.stringContaining(`pi remove ${adapter}`)]);
			// The command it names, run as written: the next start is this extension's.
			const remove = /pi remove (.+)$/.exec(said[0])?.[1].split(" ") ?? [];
			const removed = await runCommand(host.node, [host.cli, "remove", ...remove], home.cwd, piEnv(home));
			expect(removed.code, removed.out).toBe(0);
			const after = await runPi(home, "hi", { host, fromSettings: true, steps: [() => ({ text: "ok" })] });
			expect(after.code, after.stderr).toBe(0);
			expect(after.stderr).not.toContain("pi-mcp-proxy is off");
			expect(after.stderr).toContain(OUR_LINE);
		} finally {
			await home.dispose();
		}
	}, 180_000);
});
