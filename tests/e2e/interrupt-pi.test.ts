// Ctrl-C of `pi -p` in the middle of a call (SIGINT: Pi leaves it to Node's default, which ends
// the process at once): no server is left, however it behaves (one ignores SIGTERM and stdin's end,
// one started a helper with setsid), no result file of the output guard stays, and the exit status
// is the shell's 130. On both Pi lines.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING, faultStdio, marked, waitUntil } from "../support/helpers.ts";
import { createPiHome, type PiHome, piCommand } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

describe.each(PI_HOSTS)("Ctrl-C of pi -p mid-call ($name)", (host) => {
	let home: PiHome | undefined;
	afterEach(async () => {
		await home?.dispose();
	});

	it("exits 130 leaving no process and no file", async () => {
		const marker = randomUUID();
		const env = { INTERRUPT_MARKER: marker };
		const servers = {
			ok: { command: process.execPath, args: [EVERYTHING, "stdio"], env, lifecycle: "eager" },
			stubborn: { ...faultStdio("ignore-sigterm", env), lifecycle: "eager" },
			// A helper that leaves the server's process group and session (as daemons do).
			detached: {
				command: "sh",
				args: ["-c", `setsid sleep 300 & exec "${process.execPath}" "${EVERYTHING}" stdio`],
				env,
				lifecycle: "eager",
			},
		};
		home = await createPiHome({ mcpConfig: { mcpServers: servers, settings: { outputGuard: { maxBytes: 1024 } } } });
		const tmp = join(home.root, "tmp");
		mkdirSync(tmp);
		let calling = false;
		home.model.script([
			() => ({ toolCall: { name: "mcp", arguments: { tool: "ok_get-env" } } }),
			() => {
				calling = true;
				return {
					toolCall: {
						name: "mcp",
						arguments: { tool: "ok_trigger-long-running-operation", args: { duration: 120, steps: 120 } },
					},
				};
			},
		]);
		const { node, args, env: piEnv } = piCommand(home, ["-p"], { host, extraArgs: ["work"], env: { TMPDIR: tmp } });
		const child = spawn(node, args, { cwd: home.cwd, env: piEnv, stdio: "ignore" });
		const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
			child.on("close", (code, signal) => resolve({ code, signal })),
		);
		const guardFiles = () => readdirSync(tmp).filter((n) => n.startsWith("pi-mcp-output-"));
		// Mid-call: the long call was asked for, the big result was saved, every server and helper runs.
		await waitUntil(() => calling && guardFiles().length > 0 && marked(marker).length >= 5, "the call in flight");
		child.kill("SIGINT");
		const { code, signal } = await closed;
		expect(code ?? (signal === "SIGINT" ? 130 : signal)).toBe(130);
		await waitUntil(() => marked(marker).length === 0, "every server process to be gone");
		expect(guardFiles()).toEqual([]);
	}, 120_000);
});
