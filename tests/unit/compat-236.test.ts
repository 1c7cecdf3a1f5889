// pi-mcp-adapter 2.36's config read as 2.36 reads it: its shared user files and their precedence,
// its keys mapped to ours, the opencode import, and its cache hash (pi-subagents' check).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hash236 } from "../../config/compat-236.ts";
import { formatProblem, loadConfig } from "../../config.ts";
import type { McpConfig, ServerEntry } from "../../types.ts";
import { configFolders, type tempDir } from "../support/helpers.ts";

let root: ReturnType<typeof tempDir>;
let home: string;
let cwd: string;
let agentDir: string;

beforeEach(() => {
	({ root, home, cwd, agentDir } = configFolders());
});
afterEach(() => root.remove());

function write(path: string, content: unknown): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
}

const load = (env: Record<string, string> = {}): McpConfig =>
	loadConfig({ cwd, agentDir, home, env, platform: "linux" });

function server(config: McpConfig, name: string): ServerEntry {
	const entry = config.servers.get(name);
	if (!entry) throw new Error(`server ${name} missing; problems: ${config.problems.map(formatProblem).join("; ")}`);
	return entry;
}
const command = (config: McpConfig, name: string) => (server(config, name) as { command: string }).command;

describe("2.36's shared user files", () => {
	it("reads ~/.config/mcp/mcp.json < ~/.agents/mcp.json < ~/.agents/mcp/mcp.json < the Pi file < project files", () => {
		write(join(home, ".config/mcp/mcp.json"), {
			mcpServers: { a: { command: "shared" }, b: { command: "shared" }, only: { command: "shared-only" } },
		});
		write(join(home, ".agents/mcp.json"), { mcpServers: { b: { command: "agents" }, c: { command: "agents" } } });
		write(join(home, ".agents/mcp/mcp.json"), { mcpServers: { c: { command: "agents-nested" }, d: { command: "x" } } });
		write(join(agentDir, "mcp.json"), { mcpServers: { d: { command: "pi" } } });
		write(join(cwd, ".mcp.json"), { mcpServers: { a: { command: "project" } } });
		const config = load();
		expect(command(config, "only")).toBe("shared-only");
		expect(server(config, "only").source).toMatchObject({ scope: "user", path: join(home, ".config/mcp/mcp.json") });
		expect(command(config, "b")).toBe("agents");
		expect(command(config, "c")).toBe("agents-nested");
		expect(command(config, "d")).toBe("pi");
		expect(server(config, "a").source.scope).toBe("project");
		expect(config.problems).toEqual([]);
	});

	it("takes settings and imports from a shared file (the user's own)", () => {
		write(join(home, ".cursor/mcp.json"), { mcpServers: { cur: { command: "cursor" } } });
		write(join(home, ".config/mcp/mcp.json"), {
			imports: ["cursor"],
			settings: { toolPrefix: "short" },
			mcpServers: { s: { command: "shared" } },
		});
		const config = load();
		expect(command(config, "cur")).toBe("cursor");
		expect(config.settings.toolPrefix).toBe("short");
		expect(server(config, "s").source.path).toBe(join(home, ".config/mcp/mcp.json"));
		expect(config.problems).toEqual([]);
	});
});

describe("2.36's keys", () => {
	it("maps requestTimeoutMs, lazy-keep-alive, auth/oauth false, directTools search, mcp-servers; keeps filters", () => {
		write(join(home, ".config/mcp/mcp.json"), {
			"mcp-servers": {
				a: {
					command: "npx",
					args: ["-y", "x"],
					lifecycle: "lazy-keep-alive",
					requestTimeoutMs: 30000,
					includeTools: ["get_*"],
					excludeTools: ["get_secret"],
					approveTools: ["delete_*"],
					protocolVersion: "auto",
					directTools: "search",
				},
				b: { url: "http://127.0.0.1:1/mcp", auth: false, oauth: false, requestTimeoutMs: 0, approveTools: true },
			},
			settings: { toolPrefix: "mcp", requestTimeoutMs: 0, outputGuard: true, approveTools: ["x_*"], scriptMode: true },
		});
		const config = load();
		const a = server(config, "a");
		expect(a).toMatchObject({
			lifecycle: "lazy",
			idleTimeout: 0,
			timeout: 30,
			includeTools: ["get_*"],
			excludeTools: ["get_secret"],
			approveTools: ["delete_*"],
			directTools: false,
		});
		const b = server(config, "b");
		expect(b).toMatchObject({ transport: "http", approveTools: true, timeout: undefined });
		expect((b as { auth?: unknown }).auth).toBeUndefined();
		expect(config.settings).toMatchObject({ toolPrefix: "server", requestTimeoutMs: 60_000, approveTools: ["x_*"] });
		expect(config.settings.outputGuard).toEqual({});
		// Only the value with no equivalent is named; nothing else is a problem.
		expect(config.problems.map((p) => p.message)).toEqual([
			'settings: toolPrefix "mcp" read as "server" (tools are named <server>_<tool>)',
		]);
	});

	it("names 2.36's keys that have no meaning here, and why", () => {
		write(join(agentDir, "mcp.json"), {
			mcpServers: { s: { command: "x", inheritEnv: false, caFile: "/ca.pem" } },
			settings: { hostConfigDiscovery: "on" },
			claudePlugins: [],
		});
		const messages = load().problems.map(formatProblem);
		expect(messages).toEqual([
			expect.stringContaining('"claudePlugins" ignored'),
			expect.stringContaining('settings: "hostConfigDiscovery" ignored'),
			expect.stringContaining('"caFile" ignored: a per-server CA bundle is not supported'),
			expect.stringContaining('"inheritEnv": false ignored'),
		]);
	});
});

describe("the opencode import", () => {
	it("maps local and remote entries, {env:VAR}, and the project's opencode.json over the user's", () => {
		write(join(home, ".config/opencode/opencode.json"), {
			mcp: {
				everything: {
					type: "local",
					command: ["npx", "-y", "@modelcontextprotocol/server-everything"],
					environment: { TOKEN: "{env:MY_TOKEN}" },
				},
				docs: { type: "remote", url: "https://mcp.example.com/mcp", headers: { "X-Key": "{env:DOCS_KEY}" } },
				off: { type: "local", command: ["x"], enabled: false },
			},
		});
		write(join(cwd, "opencode.json"), { mcp: { docs: { type: "remote", url: "https://project.example.com/mcp" } } });
		write(join(agentDir, "mcp.json"), { imports: ["opencode"] });
		const config = load({ MY_TOKEN: "tok-123456", DOCS_KEY: "key-123456" });
		expect(server(config, "everything")).toMatchObject({
			command: "npx",
			args: ["-y", "@modelcontextprotocol/server-everything"],
			env: { TOKEN: "tok-123456" },
			source: { host: "opencode", scope: "user" },
		});
		expect(server(config, "docs")).toMatchObject({
			url: "https://project.example.com/mcp",
			source: { scope: "project" },
		});
		expect(config.disabled?.has("off")).toBe(true);
		expect(config.problems).toEqual([]);
	});
});

describe("2.36's cache hash", () => {
	it("is 2.36's computeServerHash (values from 2.36 and pi-subagents, run by the research)", () => {
		const everything = { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] };
		expect(hash236(everything, {}, home)).toBe("3534b86a56affd6628a49e3b5977c292a2329068a3ef71cc6edbe6b9095ac1aa");
		expect(hash236({ url: "https://x/${UNSET}" }, {}, home)).toBeUndefined();
		write(join(agentDir, "mcp.json"), { mcpServers: { everything } });
		expect(server(load(), "everything").compatHash).toBe(
			"3534b86a56affd6628a49e3b5977c292a2329068a3ef71cc6edbe6b9095ac1aa",
		);
	});
});
