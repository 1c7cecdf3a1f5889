// Pi 1.5 reads the same ~/.pi/agent/mcp.json in its own format, and `pi mcp add` writes it:
// written here by the real Pi 1.5 CLI, then edited as Pi's /mcp would (enabled: false, timeout in
// seconds). With this extension installed, each field does what Pi 1.5's docs say; servers other
// extensions register with pi.registerMcpServer are served too.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING, fixture, markerServer, ROOT } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI1_HOSTS } from "../support/pi-hosts.ts";

describe.each(PI1_HOSTS)("Pi 1.x's mcp.json and registered servers ($name)", (host) => {
	let home: PiHome;
	afterEach(async () => home.dispose());

	/** `pi mcp add ...` with the real Pi 1.5 CLI, in this home. */
	const piMcpAdd = (args: string[]) =>
		execFileSync(host.node, [host.cli, "mcp", "add", ...args], {
			cwd: home.cwd,
			env: { ...process.env, PI_CODING_AGENT_DIR: home.agentDir, HOME: home.root, PI_OFFLINE: "1" },
			encoding: "utf8",
		});

	it("a `pi mcp add` config: enabled false, timeout in seconds, description and exposure direct behave as Pi 1.5 says", async () => {
		home = await createPiHome({});
		const offMarker = join(home.root, "off-started");
		piMcpAdd([
			"everything",
			"--description",
			"Demo tools for testing",
			"--exposure",
			"direct",
			"--",
			process.execPath,
			EVERYTHING,
			"stdio",
		]);
		piMcpAdd(["off", "--", ...[markerServer(offMarker).command, ...markerServer(offMarker).args]]);
		const slow = fixture("fault-server.ts");
		piMcpAdd(["slow", "--", slow.command, ...slow.args]);
		const file = join(home.agentDir, "mcp.json");
		const config = JSON.parse(readFileSync(file, "utf8"));
		expect(config.mcpServers.everything).toMatchObject({ exposure: "direct", description: "Demo tools for testing" });
		config.mcpServers.off.enabled = false; // what /mcp's "Disable" writes
		config.mcpServers.slow.timeout = 2; // seconds
		writeFileSync(file, JSON.stringify(config));

		let startedAt = 0;
		const first = await runPi(home, "check", {
			host,
			steps: [
				() => ({ toolCall: { name: "mcp", arguments: {} } }),
				() => ({ toolCall: { name: "mcp", arguments: { server: "off" } } }),
				(req) => {
					startedAt = Date.now();
					return {
						toolCall: { name: "mcp", arguments: { tool: "slow_hang", args: { status: lastToolMessage(req) } } },
					};
				},
				(req) => ({ text: `${Date.now() - startedAt} ms: ${lastToolMessage(req)}` }),
			],
		});
		expect(first.code, first.stderr).toBe(0);
		expect(first.stderr).not.toMatch(/unknown field "(enabled|description|exposure)"/);
		const mcp = home.model.requests[0].tools?.find((t) => t.function.name === "mcp");
		expect(mcp?.function.description).toContain("Servers: everything (Demo tools for testing), slow.");
		const status = lastToolMessage(home.model.requests[1]);
		expect(status).toContain("- everything:");
		expect(status).not.toContain("off");
		// Asked for by name, the turned-off server is not "unknown": the model learns where it was turned off.
		expect(lastToolMessage(home.model.requests[2])).toContain(
			`Server "off" is turned off ("enabled": false in ${file})`,
		);
		expect(existsSync(offMarker)).toBe(false);
		// timeout: 2 means two seconds (not 2 ms, not the 60 s default).
		const [, ms] = /^(\d+) ms: /.exec(first.stdout.trim()) ?? [];
		expect(first.stdout).toContain('No answer from "slow" within 2 s.');
		expect(Number(ms)).toBeGreaterThanOrEqual(1800);

		// exposure: direct → everything's tools are first-class Pi tools from the next run on (from the cache),
		// named as Pi 1.5 names them (mcp__server__tool, what a user's permission rules and --tools
		// patterns say), carrying the server's annotations, which a permission extension reads from pi.getAllTools().
		const probeFile = join(home.root, "probe.jsonl");
		const second = await runPi(home, "echo", {
			host,
			env: { PROBE_FILE: probeFile },
			extraArgs: ["-e", join(ROOT, "tests/fixtures/permission-probe.ts")],
			steps: [
				() => ({ toolCall: { name: "mcp__everything__echo", arguments: { message: "direct" } } }),
				(req) => ({ text: lastToolMessage(req) }),
			],
		});
		expect(second.code, second.stderr).toBe(0);
		expect(second.stdout).toContain("Echo: direct");
		const offered = (home.model.requests[0].tools ?? []).map((t) => t.function.name);
		expect(offered).toContain("mcp__everything__echo");
		expect(offered).toContain("mcp__everything__get_sum");
		expect(offered).not.toContain("everything_echo");
		expect(offered).not.toContain("slow_hang");
		const probed = JSON.parse(readFileSync(probeFile, "utf8").trim().split("\n")[0]);
		expect(probed).toEqual({
			tool: "mcp__everything__echo",
			annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
		});
	}, 90_000);

	it("a server another extension registers is served through mcp, with no 'nothing connects it' error", async () => {
		home = await createPiHome({ mcpConfig: { mcpServers: {} } });
		const run = await runPi(home, "use the shipped server", {
			host,
			extraArgs: ["-e", join(ROOT, "tests/fixtures/registering-extension.ts")],
			steps: [
				() => ({
					toolCall: { name: "mcp", arguments: { tool: "shipped_echo", args: { message: "via another extension" } } },
				}),
				(req) => ({ text: lastToolMessage(req) }),
			],
		});
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain("Echo: via another extension");
		expect(run.stderr).not.toContain("no loaded extension connects MCP servers");
		expect(home.model.requests[0].tools?.find((t) => t.function.name === "mcp")?.function.description).toContain(
			"shipped (Shipped with an extension)",
		);
	}, 60_000);

	it("a server registered after the session started is served too (mcp_servers_change)", async () => {
		home = await createPiHome({ mcpConfig: { mcpServers: {} } });
		const run = await runPi(home, "use the late server", {
			host,
			env: { REGISTER_LATER: "1" },
			extraArgs: ["-e", join(ROOT, "tests/fixtures/registering-extension.ts")],
			steps: [
				() => ({ toolCall: { name: "mcp", arguments: { tool: "later_echo", args: { message: "registered late" } } } }),
				(req) => ({ text: lastToolMessage(req) }),
			],
		});
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain("Echo: registered late");
	}, 60_000);
});
