// A start from the start-up snapshot (pi/start-snapshot.ts): it registers exactly what the full
// start registered and shows the same, without reading the config or the cache; any input that
// changed sends the start the long way again. The extension runs here against a recording stand-in
// for Pi 1.5's API (no process starts: the servers are lazy, their tools cached).
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defineServer } from "../../config.ts";
import mcpAdapter from "../../index.ts";
import { CACHE_FILE, MetadataCache } from "../../metadata-cache.ts";
import { NOTICES_FILE } from "../../pi-session/replaced-builtins.ts";
import { SNAPSHOT_DIR } from "../../start-up/start-snapshot.ts";
import { recordReadsUntil } from "../../storage/file-guard.ts";
import { tempDir } from "../support/helpers.ts";
import { piStandIn } from "../support/pi-stand-in.ts";

type Handler = (event: unknown, ctx: unknown) => unknown;

/** Pi 1.5's API as the extension meets it (codemode registered, read and codemode active), and what it registers and shows. */
function fakePi(options: { registered?: unknown[] } = {}) {
	const host = piStandIn({
		tools: [{ name: "codemode", reachesTools: () => "all" }],
		active: ["read", "codemode"],
		pi1: true,
		mcpServers: options.registered,
	});
	const plain = (value: unknown) =>
		JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "function" ? undefined : v))) as unknown;
	return {
		...host,
		command: (name: string) => host.commands.get(name) as { handler: Handler } | undefined,
		/** What the model and the user get: every tool's definition (no functions), the active tools, what was shown. */
		seen: () => ({
			tools: [...host.tools.values()]
				.map(plain)
				.sort((a, b) => ((a as { name: string }).name < (b as { name: string }).name ? -1 : 1)),
			commands: [...host.commands.entries()].map(([name, c]) => [name, c.description]),
			active: host.active().sort(),
			shown: [...host.shown],
		}),
	};
}

let dir: ReturnType<typeof tempDir>;
let agentDir: string;
let cwd: string;
const saved = {
	cwd: process.cwd(),
	agentDir: process.env.PI_CODING_AGENT_DIR,
	token: process.env.SNAPSHOT_TEST_TOKEN,
	direct: process.env.MCP_DIRECT_TOOLS,
};
const restoreEnv = (name: string, value: string | undefined) => {
	if (value === undefined) delete process.env[name];
	else process.env[name] = value;
};

const tools = (server: string) =>
	["search", "fetch", "save"].map((name) => ({
		server,
		name,
		description: `${name} in ${server}`,
		inputSchema: { type: "object", properties: { q: { type: "string", pattern: "^a+$" } } },
	}));

/** The user's config and a warm cache: lazy servers whose tools are cached, one with prompts. */
async function writeConfig(servers: Record<string, Record<string, unknown>>): Promise<void> {
	writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: servers }));
	const cache = new MetadataCache(agentDir);
	for (const [name, raw] of Object.entries(servers)) {
		const entry = defineServer(name, raw);
		const prompts = name === "docs" ? [{ name: "summarize", description: "Summarize a page", arguments: [] }] : [];
		await cache.store(entry, { tools: tools(name), resources: [], prompts });
	}
}

const SERVERS = {
	docs: { command: "not-a-real-command", args: ["docs"], env: { TOKEN: "${SNAPSHOT_TEST_TOKEN}" } },
	files: { command: "not-a-real-command", args: ["files"], description: "Project files" },
};

/** One Pi session: the extension loads, the session starts; returns what Pi saw and the files read. */
async function session(options: { trusted?: boolean; registered?: unknown[] } = {}) {
	const host = fakePi(options);
	const { reads } = await recordReadsUntil(async () => {
		await mcpAdapter(host.pi as never);
		await host.emit("session_start", {}, host.ctx(cwd, { trusted: options.trusted }));
	});
	return { host, reads: [...reads.keys()] };
}

const snapshots = () => {
	try {
		return readdirSync(join(agentDir, SNAPSHOT_DIR));
	} catch {
		return [];
	}
};

beforeEach(async () => {
	dir = tempDir();
	agentDir = join(dir.path, "agent");
	cwd = join(dir.path, "work");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(cwd, { recursive: true });
	process.env.PI_CODING_AGENT_DIR = agentDir;
	process.env.SNAPSHOT_TEST_TOKEN = "token-one";
	process.chdir(cwd);
	await writeConfig(SERVERS);
	// Pi 1.x's once-only note about the replaced built-ins, already told: what each start shows is the snapshot's.
	writeFileSync(join(agentDir, NOTICES_FILE), JSON.stringify({ builtins: "told" }));
});

afterEach(() => {
	process.chdir(saved.cwd);
	restoreEnv("PI_CODING_AGENT_DIR", saved.agentDir);
	restoreEnv("SNAPSHOT_TEST_TOKEN", saved.token);
	restoreEnv("MCP_DIRECT_TOOLS", saved.direct);
	dir.remove();
});

const shutdown = (host: ReturnType<typeof fakePi>) => host.emit("session_shutdown", {}, undefined);

describe("a start from the start-up snapshot", () => {
	it("registers and shows what the full start did, reading neither the config nor the cache", async () => {
		const full = await session();
		await shutdown(full.host);
		expect(full.reads).toContain(join(agentDir, CACHE_FILE));
		expect(snapshots()).toHaveLength(1);

		const fast = await session();
		expect(fast.host.seen()).toEqual(full.host.seen());
		expect(fast.reads).not.toContain(join(agentDir, CACHE_FILE));
		expect(fast.reads).not.toContain(join(agentDir, "mcp.json"));
		// What was seen is real: six MCP tools, patterns gone, a prompt command, the status line.
		const seen = fast.host.seen();
		expect(seen.tools.map((t) => (t as { name: string }).name)).toEqual(
			expect.arrayContaining(["mcp__docs__search", "mcp__files__save", "mcp"]),
		);
		expect(JSON.stringify(seen.tools)).not.toContain("^a+$");
		expect(seen.commands.map(([name]) => name)).toContain("docs:summarize");
		expect(seen.shown).toContain("status: MCP 0/2");
		await shutdown(fast.host);
	});

	it("builds the runtime at the first use: /mcp status then reads the config and lists the servers", async () => {
		await shutdown((await session()).host);
		const fast = await session();
		const shown = fast.host.seen().shown.length;
		const status = fast.host.command("mcp");
		const { reads } = await recordReadsUntil(async () => {
			await status?.handler("status", fast.host.ctx(cwd));
		});
		expect([...reads.keys()]).toContain(join(agentDir, "mcp.json"));
		const said = fast.host.seen().shown.slice(shown).join("\n");
		expect(said).toContain("docs:");
		expect(said).toContain("files:");
		await shutdown(fast.host);
	});

	it("serves only the first session after load: a /new in the same Pi reads the config again", async () => {
		await shutdown((await session()).host);
		const fast = await session();
		expect(fast.reads).not.toContain(join(agentDir, "mcp.json"));
		await shutdown(fast.host);
		const { reads } = await recordReadsUntil(() => fast.host.emit("session_start", {}, fast.host.ctx(cwd)));
		expect([...reads.keys()]).toContain(join(agentDir, "mcp.json"));
		await shutdown(fast.host);
	});

	it("starts the long way when the config changed", async () => {
		await shutdown((await session()).host);
		await writeConfig({ ...SERVERS, more: { command: "not-a-real-command", args: ["more"] } });
		const next = await session();
		expect(next.reads).toContain(join(agentDir, "mcp.json"));
		expect(next.host.seen().tools.map((t) => (t as { name: string }).name)).toContain("mcp__more__fetch");
		await shutdown(next.host);
	});

	it("starts the long way when a variable the config reads changed, and keeps no value of one", async () => {
		await shutdown((await session()).host);
		const kept = snapshots().map((f) => readFileSync(join(agentDir, SNAPSHOT_DIR, f), "utf8"));
		expect(kept.join("")).not.toContain("token-one"); // the config's ${SNAPSHOT_TEST_TOKEN}: a digest only
		// A launcher gives a subagent direct tools through the environment.
		process.env.MCP_DIRECT_TOOLS = "files/search";
		const next = await session();
		expect(next.reads).toContain(join(agentDir, "mcp.json"));
		expect(next.host.seen().tools.map((t) => (t as { name: string }).name)).toContain("files_search");
		await shutdown(next.host);
	});

	it("starts the long way when the cache was written since, or Pi's trust or other extensions' servers differ", async () => {
		await shutdown((await session()).host);
		// The cache rewritten (another session listed a server anew).
		const cacheFile = join(agentDir, CACHE_FILE);
		utimesSync(cacheFile, new Date(), new Date(Date.now() + 5_000));
		const afterCache = await session();
		expect(afterCache.reads).toContain(cacheFile);
		await shutdown(afterCache.host);

		// Another extension registered a server (Pi 1.5's registerMcpServer; turned off, so nothing starts).
		const registered = [
			{ name: "ext", config: { command: "not-a-real-command", enabled: false }, extensionPath: "/x.ts" },
		];
		const withExtension = await session({ registered });
		expect(withExtension.reads).toContain(join(agentDir, "mcp.json"));
		await shutdown(withExtension.host);

		// A project .pi/mcp.json whose trust the session decides.
		mkdirSync(join(cwd, ".pi"));
		writeFileSync(join(cwd, ".pi", "mcp.json"), JSON.stringify({ mcpServers: {} }));
		await shutdown((await session({ trusted: false })).host);
		const trusted = await session({ trusted: true });
		expect(trusted.reads).toContain(join(agentDir, "mcp.json"));
		await shutdown(trusted.host);
	});

	it("a snapshot damaged by hand costs only the head start: the extension loads and starts the long way", async () => {
		const full = await session();
		await shutdown(full.host);
		const [name] = snapshots();
		const path = join(agentDir, SNAPSHOT_DIR, name);
		const kept = JSON.parse(readFileSync(path, "utf8"));
		kept.state.piTools = { tools: [7], byServer: {} };
		writeFileSync(path, JSON.stringify(kept));
		const next = await session();
		expect(next.reads).toContain(join(agentDir, "mcp.json"));
		expect(next.host.seen().tools).toEqual(full.host.seen().tools);
		await shutdown(next.host);
	});

	it("is not kept while a project server awaits approval", async () => {
		writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: "not-a-real-command" } } }));
		await shutdown((await session()).host);
		expect(snapshots()).toEqual([]);
	});
});
