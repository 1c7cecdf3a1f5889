// The runtime's parts, each alone (no process): what a session reads its config with (its trust
// included) and when a runtime built earlier serves it, the user's decisions on project servers,
// and the services built from the settings.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decideNamed, decideShown } from "../../runtime/project-decisions.ts";
import { type RuntimeOptions, SessionConfig } from "../../runtime/session-config.ts";
import { NpxLaunches, poolOptions, toolApprovalAsker } from "../../runtime/session-services.ts";
import type { Decision, ProjectApprovals } from "../../trust/project-approval.ts";
import { Redactor } from "../../trust/redaction.ts";
import { DEFAULT_SETTINGS, type McpConfig, type ServerEntry, type ToolMetadata } from "../../types.ts";
import { configFolders, configOf, entryOf } from "../support/helpers.ts";

let folders: ReturnType<typeof configFolders>;
let env: Record<string, string>;
beforeEach(() => {
	folders = configFolders();
	env = { HOME: folders.home, PI_CODING_AGENT_DIR: folders.agentDir };
	mkdirSync(folders.agentDir, { recursive: true });
});
afterEach(() => folders.root.remove());

function write(path: string, servers: Record<string, unknown>, settings: Record<string, unknown> = {}): void {
	mkdirSync(join(path, ".."), { recursive: true });
	writeFileSync(path, JSON.stringify({ mcpServers: servers, settings }));
}

describe("what a session reads its config with", () => {
	it("does not read the project's .pi/mcp.json when Pi 1.5 does not trust the project", () => {
		write(join(folders.cwd, ".pi", "mcp.json"), { fromProject: { command: "node" } });
		const untrusted = new SessionConfig({ cwd: folders.cwd, env, piTrusted: false });
		expect(untrusted.readsProjectFile).toBe(false);
		expect(untrusted.read().servers.has("fromProject")).toBe(false);
		expect(new SessionConfig({ cwd: folders.cwd, env }).read().servers.has("fromProject")).toBe(true);
	});

	it("holds a limited session to its servers", () => {
		const file = join(folders.root.path, "only.json");
		write(file, { a: { command: "node" }, b: { command: "node" } });
		const limited = new SessionConfig({ cwd: folders.cwd, env, configPath: file, onlyServers: ["b"] });
		expect([...limited.read().servers.keys()]).toEqual(["b"]);
	});

	it("takes a changed server list, remembering what was registered, but not changed settings", () => {
		const file = join(folders.root.path, "mcp.json");
		write(file, { a: { command: "node" } });
		const reading = new SessionConfig({ cwd: folders.cwd, env, configPath: file });
		const before = reading.read();
		const registered = [{ name: "ext", config: { command: "node" }, extensionPath: "/ext" }];
		expect([...(reading.reread(before, registered)?.servers.keys() ?? [])].sort()).toEqual(["a", "ext"]);
		expect(reading.read().servers.has("ext")).toBe(true);
		write(file, { a: { command: "node" } }, { requestTimeoutMs: 1234 });
		expect(reading.reread(before)).toBeUndefined();
	});

	it("a runtime built earlier serves a session reading the same config, and takes the session's trust", () => {
		write(join(folders.cwd, ".pi", "mcp.json"), { fromProject: { command: "node" } });
		const built: RuntimeOptions = { cwd: folders.cwd, env };
		const reading = new SessionConfig(built);
		expect(reading.servesLike({ cwd: join(folders.cwd, ".."), env })).toBe(false);
		expect(reading.servesLike({ cwd: folders.cwd, env: { ...env } })).toBe(false);
		expect(reading.servesLike({ cwd: folders.cwd, env, piTrusted: false })).toBe(false);
		expect(reading.servesLike({ ...built })).toBe(true);
		const trusted = new SessionConfig({ ...built, piTrusted: false });
		expect(trusted.servesLike({ cwd: folders.cwd, env, piTrusted: false })).toBe(true);
		expect(trusted.readsProjectFile).toBe(false);
	});

	it("where no project file exists yet, trust does not decide, and the session's is taken for one written later", () => {
		const reading = new SessionConfig({ cwd: folders.cwd, env });
		expect(reading.servesLike({ cwd: folders.cwd, env, piTrusted: false })).toBe(true);
		expect(reading.readsProjectFile).toBe(false);
	});
});

describe("the user's decisions on project servers", () => {
	const config = configOf({ a: { command: "node", args: ["a.js"] }, b: { command: "node", args: ["b.js"] } });
	function deciding(now: McpConfig = config) {
		const recorded: string[] = [];
		const started: string[][] = [];
		const approvals = {
			needsApproval: (entry: ServerEntry) => entry.name !== "decided-before",
			decide: async (entries: ServerEntry[], decision: Decision) => {
				recorded.push(...entries.map((e) => `${e.name} ${decision}`));
			},
		} as unknown as ProjectApprovals;
		const gateChanged = async (names: string[]) => started.push(names);
		return { how: { approvals, config: () => now, gateChanged }, recorded, started };
	}

	it("records a decision for every server that needs one (all of them when none are named), and applies it", async () => {
		const { how, recorded, started } = deciding();
		expect((await decideNamed(how, [], "approved")).map((e) => e.name)).toEqual(["a", "b"]);
		expect(recorded).toEqual(["a approved", "b approved"]);
		expect(started).toEqual([["a", "b"]]);
		expect(await decideNamed(how, ["missing"], "denied")).toEqual([]);
	});

	it("a server whose launch changed since it was shown is recorded but not applied, and returned to be told", async () => {
		const shown = [entryOf(config, "a"), entryOf(config, "b")];
		const now = configOf({ a: { command: "node", args: ["a.js"] }, b: { command: "node", args: ["other.js"] } });
		const { how, started } = deciding(now);
		const { decided, changed } = await decideShown(how, shown, "approved");
		expect(decided.map((e) => e.name)).toEqual(["a"]);
		expect(changed.map((e) => e.name)).toEqual(["b"]);
		expect(started).toEqual([["a"]]);
	});
});

describe("the services a session builds from its settings", () => {
	const place = { agentDir: "/agent", env: {}, redactor: new Redactor({}) };

	it("the pool's limits in bytes, and the broker shares what the entry or the settings say, lingering its idle time", () => {
		const settings = { ...DEFAULT_SETTINGS, maxMessageMB: 2, maxArgumentMB: 1, shareServers: true, idleTimeout: 3 };
		const options = poolOptions(settings, place, {}, async () => ({ command: "x", args: [] }));
		expect(options).toMatchObject({ maxMessageBytes: 2 * 1024 * 1024, maxArgumentBytes: 1024 * 1024 });
		const [shared, own] = [{ name: "s" }, { name: "o", share: false }] as unknown as Parameters<
			NonNullable<typeof options.broker>["shares"]
		>[0][];
		expect([options.broker?.shares(shared), options.broker?.shares(own)]).toEqual([true, false]);
		expect(options.broker?.lingerMs({ ...shared, idleTimeout: 1 } as never)).toBe(60_000);
		expect(options.broker?.lingerMs(shared)).toBe(180_000);
	});

	it("declares the apps extension to servers only when settings.apps is on", () => {
		const launch = async () => ({ command: "x", args: [] });
		const on = poolOptions({ ...DEFAULT_SETTINGS, apps: true }, place, {}, launch);
		const off = poolOptions({ ...DEFAULT_SETTINGS, apps: false }, place, {}, launch);
		expect(Object.keys(on.requests?.extensions ?? {})).not.toEqual([]);
		expect(off.requests?.extensions).toBeUndefined();
	});

	it("makes no npx resolver until a stdio server starts", () => {
		const launches = new NpxLaunches("/agent", true, 1000);
		expect(launches.started).toBe(false);
		launches.dispose();
	});

	it("refuses an approval-gated call without a UI to ask in, saying how to run it", async () => {
		const ask = toolApprovalAsker(place, () => undefined);
		const entry = entryOf(configOf({ gated: { command: "node", approveTools: ["write"] } }), "gated");
		const refusal = await ask(entry, { name: "write" } as ToolMetadata, {});
		expect(refusal?.error).toBe("approval_required");
		expect(refusal?.message).toContain('"approveTools"');
	});
});
