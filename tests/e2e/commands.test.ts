// /mcp and /mcp-auth in the real `pi --mode rpc`, and the status line they keep current.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { everythingStdio, marked, waitUntil } from "../support/helpers.ts";
import { createPiHome, type PiHome, type PiRpc, type RpcEvent, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const notify = (e: RpcEvent) => e.type === "extension_ui_request" && e.method === "notify";
const status = (e: RpcEvent) => e.type === "extension_ui_request" && e.method === "setStatus" && e.statusKey === "mcp";

describe.each(PI_HOSTS)("commands in rpc mode ($name)", (host) => {
	let pi: PiRpc | undefined;
	let home: PiHome | undefined;
	afterEach(async () => {
		await pi?.close();
		await home?.dispose();
		pi = undefined;
	});

	it("/mcp status, tools, reconnect and /mcp-auth answer through notify; the status line follows", async () => {
		const mcpServers = {
			everything: everythingStdio(),
			broken: { command: process.execPath, args: ["-e", "process.exit(2)"], lifecycle: "eager" },
		};
		// A server whose token variable is not set: not usable, but never "unknown".
		const needy = { command: "x", env: { TOKEN: "${PI_TEST_UNSET_TOKEN}" } };
		// Turned off (Pi 1.5's `enabled: false`): listed, never run.
		const off = { command: "x", enabled: false };
		home = await createPiHome({ mcpConfig: { mcpServers: { ...mcpServers, needy, off } } });
		await runPi(home, "hi", { host, steps: [() => ({ text: "hello" })] }); // a first run fills the cache
		pi = await startPiRpc({ home, host });
		const ask = async (message: string) => {
			const from = pi?.events.length ?? 0;
			pi?.send({ id: message, type: "prompt", message });
			return String((await pi?.waitFor(notify, from))?.message);
		};

		await pi.waitFor((e) => status(e) && e.statusText === "MCP 0/3 1 failed 1 need config");
		const report = await ask("/mcp status");
		expect(report).toContain("MCP servers (0/3 connected):");
		// Where each server is configured, as Pi 1.5's /mcp shows it (the home folder as ~).
		expect(report).toMatch(
			/everything: not running, \d+ tools, \d+ resources, \d+ resource templates known \(lazy\) from ~\/agent\/mcp\.json/,
		);
		// The row names the server: its reason follows without naming it again.
		expect(report).toMatch(/broken: failed: the server exited \(exit code \d+\) before it was ready.* \(eager\)/);
		expect(report).toContain(`off: turned off ("enabled": false in ${join(home.agentDir, "mcp.json")})`);

		expect(await ask("/mcp tools everything")).toMatch(
			/^everything \(\d+ tools, \d+ resources, \d+ resource templates\):\n {2}everything_echo/,
		);

		const from = pi.events.length;
		expect(await ask("/mcp reconnect everything")).toMatch(
			/^everything: reconnected, \d+ tools, \d+ resources, \d+ resource templates$/,
		);
		await pi.waitFor((e) => status(e) && e.statusText === "MCP 1/3 1 failed 1 need config", from);

		expect(await ask("/mcp-auth everything")).toContain("local (stdio) server");
		expect(await ask("/mcp-auth")).toContain("Usage: /mcp-auth <server>");
		const needs = 'needs configuration: field "env.TOKEN": ${PI_TEST_UNSET_TOKEN} is not set (in ';
		expect(report).toContain(`needy: ${needs}`);
		expect(await ask("/mcp-auth needy")).toContain(`Server "needy" ${needs}`);
		expect(await ask("/mcp tools nosuch")).toContain(
			'Unknown server "nosuch". Configured servers: everything, broken, needy',
		);
		expect(await ask("/mcp frobnicate")).toContain('Unknown subcommand "frobnicate"');

		// As Pi 1.5's /mcp: turned off and on again, saved in the file; the session follows at once.
		const file = join(home.agentDir, "mcp.json");
		let mark = pi.events.length;
		expect(await ask("/mcp disable everything")).toBe(
			`Turned "everything" off (saved in ${file}). MCP reloaded its config.`,
		);
		expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.everything.enabled).toBe(false);
		await pi.waitFor((e) => status(e) && String(e.statusText).startsWith("MCP 0/2"), mark);
		expect(await ask("/mcp status")).toContain(`everything: turned off ("enabled": false in ${file})`);
		mark = pi.events.length;
		expect(await ask("/mcp enable everything")).toBe(
			`Turned "everything" on (saved in ${file}). MCP reloaded its config.`,
		);
		await pi.waitFor((e) => status(e) && String(e.statusText).startsWith("MCP 0/3"), mark);
		expect(await ask("/mcp tools everything")).toMatch(/^everything \(\d+ tools/);
		expect(await ask("/mcp disable off")).toBe('"off" is already turned off.');
	});

	it("/mcp disable turns one server off and leaves the others running; enable starts only it", async () => {
		const markers = { kept: randomUUID(), toggled: randomUUID() };
		const server = (marker: string) => ({ ...everythingStdio(), env: { MCP_TEST_MARKER: marker } });
		home = await createPiHome({
			mcpConfig: { mcpServers: { kept: server(markers.kept), toggled: server(markers.toggled) } },
		});
		pi = await startPiRpc({ home, host });
		const ask = async (message: string) => {
			const from = pi?.events.length ?? 0;
			pi?.send({ id: message, type: "prompt", message });
			return String((await pi?.waitFor(notify, from))?.message);
		};
		expect(await ask("/mcp reconnect kept")).toMatch(/^kept: reconnected/);
		expect(await ask("/mcp reconnect toggled")).toMatch(/^toggled: reconnected/);
		const kept = marked(markers.kept);
		expect(kept.length).toBeGreaterThan(0);

		expect(await ask("/mcp disable toggled")).toContain('Turned "toggled" off');
		await waitUntil(() => marked(markers.toggled).length === 0, "the turned-off server to end");
		expect(marked(markers.kept)).toEqual(kept);
		expect(await ask("/mcp status")).toMatch(/kept: connected/);

		expect(await ask("/mcp enable toggled")).toContain('Turned "toggled" on');
		expect(await ask("/mcp tools toggled")).toMatch(/^toggled \(\d+ tools/);
		expect(marked(markers.kept)).toEqual(kept);
	});
});
