// Pi 1.x: every MCP tool is a Pi tool. Each check runs, on each Pi 1.x line, first against its built-in MCP (the
// control: the extension not loaded, the built-in loaded) and then against the extension, with the
// real `pi` CLI, a scripted model and the real server-everything (its starts counted by pid).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countedServer, ROOT, startedPids } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS, PI1_HOSTS } from "../support/pi-hosts.ts";

const SUM = "const r = await tools.mcp__everything__get_sum({ a: 40, b: 2 }); return r.content[0].text;";
const ECHO = 'const r = await tools.mcp__everything__echo({ message: "hi" }); return r.content[0].text;';
const PROBE = join(ROOT, "tests/fixtures/permission-probe.ts");
const say = (req: ChatRequest) => ({ text: `said: ${lastToolMessage(req)}` });
const codemode = (code: string) => () => ({ toolCall: { name: "codemode", arguments: { code } } });

describe.each(
	PI1_HOSTS.flatMap((host) => [
		{ host, name: "built-in MCP (control)", ours: false },
		{ host, name: "the extension", ours: true },
	]),
)("$host.name with $name", ({ host, ours }) => {
	let home: PiHome;
	let log: string;
	const run = (prompt: string, steps: unknown[], extra: { args?: string[]; env?: Record<string, string> } = {}) =>
		runPi(home, prompt, {
			host,
			steps: steps as never,
			noExtension: !ours,
			builtins: ours ? ["codemode", "tool-search"] : ["mcp", "codemode", "tool-search"],
			extraArgs: extra.args,
			env: extra.env,
		});
	const configure = (everything: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) =>
		home.writeAgentFile(
			"mcp.json",
			JSON.stringify({ mcpServers: { everything: { ...countedServer(log), ...everything } }, settings }),
		);
	beforeEach(async () => {
		home = await createPiHome({});
		log = join(home.root, "starts.log");
		configure();
	});
	afterEach(async () => home.dispose());

	it("a codemode script gets get_sum's 42; warm, no server starts before the call and one at it", async () => {
		// The first run's call teaches the learned warm-up to start the server at the next prompt
		// (warm-up-pi.test.ts); without it, ours starts nothing before the call.
		configure({}, { warmUp: false });
		const first = await run("add", [codemode(SUM), say]);
		expect(first.code, first.stderr).toBe(0);
		expect(first.stdout).toContain("The sum of 40 and 2 is 42");
		const before = startedPids(log).length;
		let atFirstRequest = -1;
		const warm = await run("add again", [
			() => {
				atFirstRequest = startedPids(log).length - before;
				return codemode(SUM)();
			},
			say,
		]);
		expect(warm.stdout).toContain("The sum of 40 and 2 is 42");
		// Pi 1.5's built-in starts every server with the session; ours only at the call.
		if (ours) {
			expect(atFirstRequest).toBe(0);
			expect(startedPids(log).length - before).toBe(1);
		}
	}, 90_000);

	it("tool_search loads mcp__everything__get_sum (deferred) and the next call answers 42", async () => {
		configure({ exposure: "deferred" });
		const steps = [
			() => ({ toolCall: { name: "tool_search", arguments: { query: "get sum of two numbers" } } }),
			() => ({ toolCall: { name: "mcp__everything__get_sum", arguments: { a: 40, b: 2 } } }),
			say,
		];
		const result = await run("add", steps);
		expect(result.code, result.stderr).toBe(0);
		expect(result.stdout).toContain("The sum of 40 and 2 is 42");
	}, 90_000);

	it("a permission extension blocks mcp__everything__echo from codemode (and through mcp) and sees the real name", async () => {
		const probe = join(home.root, "probe.jsonl");
		const env = { PROBE_FILE: probe, PROBE_BLOCK: "mcp__everything__echo" };
		// With a start ahead of the call (the default) the script's words start the server before the
		// hook decides; `prestart: false` is how a user keeps a blocked call from starting it.
		configure({}, { prestart: false });
		const args = ["-e", PROBE];
		await run("warm", [codemode(SUM), say], { args, env });
		const startsBefore = startedPids(log).length;
		const viaScript = await run("echo", [codemode(ECHO), say], { args, env });
		expect(viaScript.stdout).toContain("mcp__everything__echo is not allowed here");
		if (ours) {
			// The mcp tool is callable from scripts (not declared: codemode is the surface here).
			const viaMcp = 'return await tools.mcp({ tool: "everything_echo", args: { message: "hi" } });';
			const viaProxy = await run("echo", [codemode(viaMcp), say], { args, env });
			expect(viaProxy.stdout).toContain("mcp__everything__echo is not allowed here");
			// Blocked before it reached the server: on a warm cache, echo never started it.
			expect(startedPids(log).length).toBe(startsBefore);
		}
		const seen = readFileSync(probe, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line).tool);
		expect(seen.filter((name: string) => name === "mcp__everything__echo").length).toBe(ours ? 2 : 1);
	}, 120_000);

	it("the resource tools under Pi 1.5's names: a script lists everything's resources and reads one", async () => {
		const script = [
			// Naming the namespace makes Pi 1.5 wait for the server (its resource tools appear once it connects).
			"await describeNamespace('mcp__everything');",
			"const listed = await tools.list_mcp_resources({ server: 'everything' });",
			"const doc = listed.resources.find((r) => r.uri.endsWith('.md'));",
			"const read = await tools.read_mcp_resource({ server: 'everything', uri: doc.uri });",
			"return `${listed.resources.length} resources; ${doc.uri}: ${read.contents[0].text.length > 0}`;",
		].join("\n");
		const result = await run("resources", [codemode(script), say]);
		expect(result.code, result.stderr).toBe(0);
		expect(result.stdout).toMatch(
			/said: Script completed[\s\S]*[1-9]\d* resources; demo:\/\/resource\/static\/document\/\S+\.md: true/,
		);
	}, 90_000);

	it("--tools read,codemode still reaches the MCP tool from a script", async () => {
		const result = await run("add", [codemode(SUM), say], { args: ["--tools", "read,codemode"] });
		expect(result.code, result.stderr).toBe(0);
		expect(result.stdout).toContain("The sum of 40 and 2 is 42");
	}, 90_000);

	it("--no-mcp starts nothing and reaches nothing", async () => {
		const result = await run("add", [codemode(SUM), say], { args: ["--no-mcp"] });
		expect(result.code, result.stderr).toBe(0);
		expect(result.stdout).not.toContain("The sum of 40 and 2 is 42");
		expect(existsSync(log) ? startedPids(log) : []).toEqual([]);
	}, 90_000);
});

describe.each(PI_HOSTS)("a subagent limited to named servers ($name)", (host) => {
	let home: PiHome;
	afterEach(async () => home.dispose());

	it("--mcp-servers (or PI_MCP_SERVERS) reaches only those servers; the others never start", async () => {
		home = await createPiHome({});
		const logs = { wanted: join(home.root, "wanted.log"), other: join(home.root, "other.log") };
		const servers = {
			wanted: { ...countedServer(logs.wanted), lifecycle: "eager" },
			other: { ...countedServer(logs.other), lifecycle: "eager" },
		};
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: servers }));
		const call = (tool: string) => () => ({ toolCall: { name: "mcp", arguments: { tool, args: { a: 1, b: 2 } } } });
		const flag = await runPi(home, "add", {
			host,
			steps: [call("wanted_get-sum"), say],
			extraArgs: ["--mcp-servers", "wanted"],
		});
		expect(flag.code, flag.stderr).toBe(0);
		expect(flag.stdout).toContain("The sum of 1 and 2 is 3");
		const env = await runPi(home, "add", {
			host,
			steps: [call("other_get-sum"), say],
			env: { PI_MCP_SERVERS: "wanted" },
		});
		expect(env.stdout).toContain('Unknown tool "other_get-sum"');
		expect(existsSync(logs.other) ? startedPids(logs.other) : []).toEqual([]);
	}, 90_000);
});
