// Pi 1.5: a permission rule on the real name holds on every route to a server. A permission
// extension (tests/fixtures/permission-probe.ts) blocks `mcp__a__danger` and `read_mcp_resource`;
// the model (`settings.surface: "mcp"`) and a codemode script try each route through `mcp`, with
// nothing cached (a fresh agent dir, each server's tool list held until its call has begun) and
// then cached, and through direct tools (a resource template's too). What the servers themselves log shows that no blocked
// call reached them, and the probe that the hook saw the real name each time.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ROOT, TSX } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage, type Step } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI1_HOSTS } from "../support/pi-hosts.ts";

const PROBE = join(ROOT, "tests/fixtures/permission-probe.ts");
const BLOCKED = "is not allowed here";

/** The calls through `mcp` that must be blocked, each the first contact with its own server (a to d). */
const COLD_ROUTES = [
	{ route: "tool", input: { tool: "a_danger" } },
	{ route: "uri", input: { tool: "guard://b/doc", server: "b" } },
	{ route: "get_", input: { tool: "c_get_secret_doc" } },
	{ route: "template", input: { tool: "d_get_note", args: { id: "7" } } },
];
/** The same once cached: a URI's server is found from the cache. */
const CACHED_ROUTES = [
	{ route: "tool", input: { tool: "a_danger" } },
	{ route: "uri", input: { tool: "guard://b/doc" } },
	{ route: "get_", input: { tool: "c_get_secret_doc" } },
	{ route: "template", input: { tool: "d_get_note", args: { id: "7" } } },
];
const SAFE = { route: "allowed", input: { tool: "a_safe" } };

describe.each(PI1_HOSTS)(
	"Pi 1.x ($name): a permission rule on the real name holds on every route through mcp",
	(host) => {
		let home: PiHome;
		let reachedLog: string;
		let probe: string;

		/** Servers a to d (the guarded fixture); the k-th answers its tool list once `mcp` was called k times. */
		const configure = (
			settings: Record<string, unknown>,
			a: Record<string, unknown> = {},
			tags = ["a", "b", "c", "d"],
		) => {
			const server = (tag: string, hold: number) => ({
				command: process.execPath,
				args: [TSX, join(ROOT, "tests/fixtures/guarded-server.ts")],
				env: { TAG: tag, REACHED_LOG: reachedLog, HOLD_FILE: probe, HOLD_CALLS: String(hold) },
			});
			const servers = Object.fromEntries(tags.map((tag, i) => [tag, server(tag, i + 1)]));
			servers.a = { ...servers.a, ...a };
			home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: servers, settings }));
		};
		const run = (steps: Step[], args: string[] = []) =>
			runPi(home, "try", {
				host,
				steps,
				builtins: ["codemode", "tool-search"],
				extraArgs: ["-e", PROBE, ...args],
				env: { PROBE_FILE: probe, PROBE_BLOCK: "mcp__a__danger,read_mcp_resource" },
			});
		/** What reached the servers: `tag call|read name`. */
		const reached = () => lines(reachedLog).map((e) => `${e.tag} ${e.call ? `call ${e.call}` : `read ${e.read}`}`);
		/** The tools the hook saw, in order. */
		const hooked = () => lines(probe).map((e) => e.tool as string);

		beforeEach(async () => {
			home = await createPiHome({});
			reachedLog = join(home.root, "reached.jsonl");
			probe = join(home.root, "probe.jsonl");
		});
		afterEach(async () => home.dispose());

		it("the model's mcp({tool}) calls, uncached then cached, and direct tools: the hook sees and blocks the real name", async () => {
			configure({ surface: "mcp" }, { directTools: ["danger", "get_note"] });
			const seen: string[] = [];
			/** One model step per call; each next step notes what the last call answered. */
			const steps = (calls: { toolCall: { name: string; arguments: unknown } }[]): Step[] => [
				...calls.map((call, i) => (req: ChatRequest) => {
					if (i > 0) seen.push(lastToolMessage(req));
					return call;
				}),
				(req: ChatRequest) => {
					seen.push(lastToolMessage(req));
					return { text: "done" };
				},
			];
			const viaMcp = (input: unknown) => ({ toolCall: { name: "mcp", arguments: input } });

			const cold = await run(steps([...COLD_ROUTES, SAFE].map((r) => viaMcp(r.input))));
			expect(cold.code, cold.stderr).toBe(0);
			expect(
				seen.slice(0, 4).every((answer) => answer.includes(BLOCKED)),
				seen.join("\n"),
			).toBe(true);
			expect(seen[4]).toContain("safe ok");
			expect(reached()).toEqual(["a call safe"]);
			expect(hooked()).toEqual([
				...["mcp", "mcp__a__danger"],
				...["mcp", "read_mcp_resource"],
				...["mcp", "read_mcp_resource"],
				...["mcp", "read_mcp_resource"],
				...["mcp", "mcp__a__safe"],
			]);

			seen.length = 0;
			const direct = (name: string, args = {}) => ({ toolCall: { name, arguments: args } });
			const cached = await run(
				steps([...CACHED_ROUTES.map((r) => viaMcp(r.input)), direct("a_danger"), direct("a_get_note", { id: "7" })]),
			);
			expect(cached.code, cached.stderr).toBe(0);
			expect(seen).toHaveLength(6);
			expect(
				seen.every((answer) => answer.includes(BLOCKED)),
				seen.join("\n"),
			).toBe(true);
			expect(reached()).toEqual(["a call safe"]);
			expect(hooked().slice(10)).toEqual([
				...["mcp", "mcp__a__danger"],
				...["mcp", "read_mcp_resource"],
				...["mcp", "read_mcp_resource"],
				...["mcp", "read_mcp_resource"],
				...["a_danger", "mcp__a__danger"],
				...["a_get_note", "read_mcp_resource"],
			]);
		}, 180_000);

		it("a codemode script's tools.mcp({tool}) calls, uncached then cached: the hook sees and blocks the real name", async () => {
			configure({});
			const script = (routes: readonly { route: string; input: unknown }[]) => () => ({
				toolCall: {
					name: "codemode",
					arguments: {
						code: [
							"const out = [];",
							`for (const { route, input } of ${JSON.stringify(routes)}) {`,
							"  try { out.push(`${route}: ran ${JSON.stringify(await tools.mcp(input))}`); }",
							"  catch (error) { out.push(`${route}: ${error.message}`); }",
							"}",
							"return out.join('\\n');",
						].join("\n"),
					},
				},
			});
			const answers = (req: ChatRequest) => ({ text: `said: ${lastToolMessage(req)}` });

			const cold = await run([script([...COLD_ROUTES, SAFE]), answers]);
			expect(cold.code, cold.stderr).toBe(0);
			for (const { route } of COLD_ROUTES) expect(cold.stdout).toMatch(new RegExp(`${route}: .*${BLOCKED}`));
			expect(cold.stdout).toMatch(/allowed: ran .*safe ok/);
			expect(reached()).toEqual(["a call safe"]);
			const real = (names: string[]) => names.filter((name) => name !== "codemode" && name !== "mcp");
			expect(real(hooked())).toEqual([
				"mcp__a__danger",
				"read_mcp_resource",
				"read_mcp_resource",
				"read_mcp_resource",
				"mcp__a__safe",
			]);

			const cached = await run([script(CACHED_ROUTES), answers]);
			expect(cached.code, cached.stderr).toBe(0);
			for (const { route } of CACHED_ROUTES) expect(cached.stdout).toMatch(new RegExp(`${route}: .*${BLOCKED}`));
			expect(reached()).toEqual(["a call safe"]);
			expect(real(hooked()).slice(5)).toEqual([
				"mcp__a__danger",
				"read_mcp_resource",
				"read_mcp_resource",
				"read_mcp_resource",
			]);
		}, 180_000);

		it("--tools naming only mcp__a__safe leaves mcp__a__danger out of mcp({tool}) too, uncached", async () => {
			configure({ surface: "mcp" }, {}, ["a"]);
			const calls = [{ tool: "a_danger" }, { tool: "a_safe" }].map((input) => () => ({
				toolCall: { name: "mcp", arguments: input },
			}));
			const seen: string[] = [];
			const note = (req: ChatRequest) => {
				seen.push(lastToolMessage(req));
			};
			const result = await run(
				[
					calls[0],
					(req) => {
						note(req);
						return calls[1]();
					},
					(req) => {
						note(req);
						return { text: "done" };
					},
				],
				["--tools", "read,mcp,mcp__a__safe"],
			);
			expect(result.code, result.stderr).toBe(0);
			expect(seen[0]).toContain("mcp__a__danger cannot be called in this session");
			expect(seen[1]).toContain("safe ok");
			expect(reached()).toEqual(["a call safe"]);
		}, 120_000);
	},
);

function lines(file: string): Record<string, unknown>[] {
	let text = "";
	try {
		text = readFileSync(file, "utf8");
	} catch {
		return []; // nothing written: nothing reached
	}
	return text
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line));
}
