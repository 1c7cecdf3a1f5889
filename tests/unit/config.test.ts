// Config loading: precedence, every import host in its real file shape, interpolation, and
// broken files or entries reported clearly while everything else loads.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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

function load(env: Record<string, string> = {}, platform: NodeJS.Platform = "linux"): McpConfig {
	return loadConfig({ cwd, agentDir, home, env, platform });
}

function server(config: McpConfig, name: string): ServerEntry {
	const entry = config.servers.get(name);
	if (!entry) throw new Error(`server ${name} missing; problems: ${config.problems.map(formatProblem).join("; ")}`);
	return entry;
}

describe("precedence", () => {
	it("merges imports < agentDir/mcp.json < .mcp.json < .pi/mcp.json, later wins", () => {
		write(join(home, ".cursor/mcp.json"), {
			mcpServers: { a: { command: "from-cursor" }, only: { command: "cursor-only" } },
		});
		write(join(agentDir, "mcp.json"), {
			imports: ["cursor"],
			mcpServers: { a: { command: "global" }, b: { command: "global" }, c: { command: "global" } },
		});
		write(join(cwd, ".mcp.json"), { mcpServers: { b: { command: "project" }, c: { command: "project" } } });
		write(join(agentDir, "mcp.json"), {
			imports: ["cursor"],
			settings: { toolPrefix: "short" },
			mcpServers: { a: { command: "global" }, b: { command: "global" }, c: { command: "global" } },
		});
		write(join(cwd, ".pi/mcp.json"), { mcpServers: { c: { command: "pi-project" } } });
		const config = load();
		const command = (name: string) => (server(config, name) as { command: string }).command;
		expect(command("a")).toBe("global");
		expect(command("b")).toBe("project");
		expect(command("c")).toBe("pi-project");
		expect(command("only")).toBe("cursor-only");
		expect(server(config, "only").source).toMatchObject({ kind: "import", host: "cursor" });
		expect(config.settings).toMatchObject({ toolPrefix: "short", idleTimeout: 10 });
		expect(config.problems).toEqual([]);
	});

	it("a project's file cannot change the user's settings nor import the user's other hosts: warned and ignored", () => {
		write(join(home, ".cursor/mcp.json"), { mcpServers: { mine: { command: "cursor-server" } } });
		write(join(agentDir, "mcp.json"), {
			settings: { requestTimeoutMs: 30_000 },
			mcpServers: { own: { command: "x" } },
		});
		const hostile = {
			shareServers: true,
			outputGuard: false,
			directTools: true,
			toolPrefix: "none",
			requestTimeoutMs: 3e9,
		};
		write(join(cwd, ".mcp.json"), { imports: ["cursor"], settings: hostile, mcpServers: { p: { command: "y" } } });
		const config = load();
		expect(config.settings).toMatchObject({ requestTimeoutMs: 30_000, toolPrefix: "server", shareServers: false });
		expect(config.settings.directTools).toBeUndefined();
		expect(config.servers.has("mine")).toBe(false);
		expect(config.problems.map(formatProblem)).toEqual([
			`warning: ${join(cwd, ".mcp.json")}: "settings" and "imports" in a project's file are ignored: they would change your own servers; put them in ~/.pi/agent/mcp.json`,
		]);
	});

	it("a server name with terminal sequences or invisible characters is refused, and named visibly", () => {
		write(join(agentDir, "mcp.json"), {
			mcpServers: {
				"memory: npx -y @modelcontextprotocol/server-memory\u001b[8m": { command: "sh" },
				ok: { command: "x" },
			},
		});
		const config = load();
		expect([...config.servers.keys()]).toEqual(["ok"]);
		expect(formatProblem(config.problems[0])).toContain("\\u{1b}[8m");
		expect(formatProblem(config.problems[0])).toContain("holds control or invisible characters; rename it");
	});

	it("a server name that only looks like another (a Hangul filler, a soft hyphen, a tag character, a braille blank) is refused", () => {
		const lookalikes = ["github\u3164", "git\u00adhub", "github\u{e0041}", "github\u2800", "git\ufe0fhub"];
		write(join(agentDir, "mcp.json"), {
			mcpServers: { github: { command: "x" }, ...Object.fromEntries(lookalikes.map((n) => [n, { command: "y" }])) },
		});
		const config = load();
		expect([...config.servers.keys()]).toEqual(["github"]);
		expect(config.problems.map(formatProblem).join("\n")).toContain("github\\u{3164}");
		expect(config.problems).toHaveLength(lookalikes.length);
	});

	it("follows PI_CODING_AGENT_DIR through the agentDir it is given", () => {
		const other = join(root.path, "elsewhere");
		write(join(other, "mcp.json"), { mcpServers: { x: { url: "http://127.0.0.1:1/mcp" } } });
		const config = loadConfig({ cwd, agentDir: other, home, env: {} });
		expect(server(config, "x").transport).toBe("http");
	});

	it("accepts JSON with comments and trailing commas", () => {
		write(
			join(agentDir, "mcp.json"),
			'{\n // my servers\n "mcpServers": { "a": { "command": "x", /* inline */ }, },\n}',
		);
		expect(server(load(), "a")).toMatchObject({ transport: "stdio", command: "x", lifecycle: "lazy" });
	});
});

describe("imports in each host's real shape", () => {
	const importOnly = (host: string) => write(join(agentDir, "mcp.json"), { imports: [host] });

	it("cursor: global and project files, project wins", () => {
		importOnly("cursor");
		write(join(home, ".cursor/mcp.json"), { mcpServers: { gh: { command: "npx", args: ["-y", "gh-global"] } } });
		write(join(cwd, ".cursor/mcp.json"), {
			mcpServers: { gh: { command: "npx", args: ["-y", "gh-project"] }, web: { url: "https://example.com/mcp" } },
		});
		const config = load();
		expect(server(config, "gh")).toMatchObject({ args: ["-y", "gh-project"] });
		expect(server(config, "web")).toMatchObject({ transport: "http", url: "https://example.com/mcp" });
	});

	it("claude-code: user servers plus the current project's entry in ~/.claude.json", () => {
		importOnly("claude-code");
		write(join(home, ".claude.json"), {
			numStartups: 12,
			mcpServers: { user: { type: "stdio", command: "user-cmd", args: [], env: {} } },
			projects: {
				[cwd]: {
					allowedTools: [],
					mcpServers: { local: { type: "http", url: "https://mcp.example.com/mcp", headers: { "X-Team": "a" } } },
				},
				"/some/other/project": { mcpServers: { other: { type: "stdio", command: "nope" } } },
			},
		});
		const config = load();
		expect(server(config, "user")).toMatchObject({ transport: "stdio", command: "user-cmd" });
		expect(server(config, "local")).toMatchObject({ transport: "http", headers: { "X-Team": "a" } });
		expect(config.servers.has("other")).toBe(false);
	});

	it("claude-desktop: the per-OS path", () => {
		importOnly("claude-desktop");
		write(join(home, ".config/Claude/claude_desktop_config.json"), { mcpServers: { linux: { command: "l" } } });
		write(join(home, "Library/Application Support/Claude/claude_desktop_config.json"), {
			mcpServers: { mac: { command: "m" } },
		});
		expect([...load({}, "linux").servers.keys()]).toEqual(["linux"]);
		expect([...load({}, "darwin").servers.keys()]).toEqual(["mac"]);
		write(join(root.path, "appdata/Claude/claude_desktop_config.json"), { mcpServers: { win: { command: "w" } } });
		expect([...load({ APPDATA: join(root.path, "appdata") }, "win32").servers.keys()]).toEqual(["win"]);
	});

	it("vscode: .vscode/mcp.json with `servers`, `type` and ${workspaceFolder}", () => {
		importOnly("vscode");
		write(
			join(cwd, ".vscode/mcp.json"),
			`{
  // VS Code's format
  "inputs": [{ "type": "promptString", "id": "key", "description": "API key", "password": true }],
  "servers": {
    "files": { "type": "stdio", "command": "node", "args": ["\${workspaceFolder}/server.js"] },
    "remote": { "type": "sse", "url": "http://127.0.0.1:9/sse" },
    "prompted": { "type": "stdio", "command": "x", "env": { "KEY": "\${input:key}" } }
  }
}`,
		);
		const config = load();
		expect(server(config, "files")).toMatchObject({ args: [`${cwd}/server.js`] });
		expect(server(config, "remote")).toMatchObject({ transport: "sse" });
		expect(config.servers.has("prompted")).toBe(false);
		expect(config.problems.map(formatProblem).join("\n")).toMatch(
			/server "prompted": field "env.KEY": \$\{input:key\} \(a VS Code input prompt/,
		);
	});

	it("windsurf: serverUrl for remote servers", () => {
		importOnly("windsurf");
		write(join(home, ".codeium/windsurf/mcp_config.json"), {
			mcpServers: {
				remote: { serverUrl: "https://w.example.com/mcp" },
				local: { command: "w", disabled: false, disabledTools: ["x"] },
			},
		});
		const config = load();
		expect(server(config, "remote")).toMatchObject({ transport: "http", url: "https://w.example.com/mcp" });
		expect(server(config, "local")).toMatchObject({ command: "w" });
	});

	it("codex: [mcp_servers.<name>] in ~/.codex/config.toml", () => {
		importOnly("codex");
		write(
			join(home, ".codex/config.toml"),
			`model = "o4"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env = { "DOCS_TOKEN" = "abc" }
tool_timeout_sec = 30

[mcp_servers.remote]
url = "https://c.example.com/mcp"
bearer_token_env_var = "REMOTE_TOKEN"

[mcp_servers.off]
command = "off"
enabled = false
`,
		);
		const config = load();
		expect(server(config, "docs")).toMatchObject({
			command: "npx",
			args: ["-y", "docs-mcp"],
			env: { DOCS_TOKEN: "abc" },
			timeout: 30,
		});
		expect(server(config, "remote")).toMatchObject({ transport: "http", bearerTokenEnv: "REMOTE_TOKEN" });
		expect(config.servers.has("off")).toBe(false);
	});

	it("imports never replace a server defined in a Pi file", () => {
		write(join(agentDir, "mcp.json"), { imports: ["cursor"], mcpServers: { gh: { command: "mine" } } });
		write(join(home, ".cursor/mcp.json"), { mcpServers: { gh: { command: "theirs" } } });
		expect(server(load(), "gh")).toMatchObject({ command: "mine", source: { kind: "pi-global" } });
	});

	it("a broken import file is a warning and the rest still loads", () => {
		write(join(agentDir, "mcp.json"), {
			imports: ["codex", "cursor", "nonsense"],
			mcpServers: { mine: { command: "x" } },
		});
		write(join(home, ".codex/config.toml"), "[mcp_servers.bad\ncommand = ");
		write(join(home, ".cursor/mcp.json"), { mcpServers: { ok: { command: "y" } } });
		const config = load();
		expect([...config.servers.keys()].sort()).toEqual(["mine", "ok"]);
		const text = config.problems.map(formatProblem).join("\n");
		expect(text).toMatch(/warning: .*\.codex\/config\.toml: import codex: invalid TOML/);
		expect(text).toMatch(/unknown import "nonsense"; known: cursor, claude-code/);
	});
});

describe("interpolation", () => {
	it("a leading ~/ in command, args and cwd names the home directory, as in Pi 1.5; elsewhere it stays", () => {
		write(join(agentDir, "mcp.json"), {
			mcpServers: {
				mine: { command: "~/bin/server", args: ["~/notes", "--path=~/x", "~"], cwd: "~/work", env: { DIR: "~/data" } },
			},
		});
		expect(server(load(), "mine")).toMatchObject({
			command: join(home, "bin/server"),
			args: [join(home, "notes"), "--path=~/x", home],
			cwd: join(home, "work"),
			env: { DIR: "~/data" },
		});
	});

	it("expands ${VAR}, ${VAR:-default}, ${env:VAR} and $env:VAR in every field that takes it", () => {
		write(join(agentDir, "mcp.json"), {
			mcpServers: {
				local: {
					command: "${BIN_DIR}/server",
					args: ["--token=${TOKEN}", "--mode=${MODE:-fast}"],
					env: { KEY: "$env:TOKEN", HOME_COPY: "${env:HOME_DIR}" },
					cwd: "${WORK:-sub}",
				},
				remote: { url: "https://${HOST}/mcp", headers: { "X-Key": "${TOKEN}" }, bearerToken: "${TOKEN}" },
			},
		});
		const config = load({ BIN_DIR: "/opt/bin", TOKEN: "s3cret", HOME_DIR: "/home/me", HOST: "api.example.com" });
		expect(server(config, "local")).toMatchObject({
			command: "/opt/bin/server",
			args: ["--token=s3cret", "--mode=fast"],
			env: { KEY: "s3cret", HOME_COPY: "/home/me" },
			cwd: join(cwd, "sub"),
		});
		expect(server(config, "remote")).toMatchObject({
			url: "https://api.example.com/mcp",
			headers: { "X-Key": "s3cret" },
			bearerToken: "s3cret",
		});
	});

	it("expands ${VAR} in oauth as the README writes it; its secret and key are masked, written out or expanded", () => {
		write(join(agentDir, "mcp.json"), {
			mcpServers: {
				remote: {
					url: "https://api.example.com/mcp",
					oauth: {
						clientId: "${CLIENT_ID}",
						clientSecret: "${EXAMPLE_SECRET}",
						authServerMetadataUrl: "https://${TENANT}.example.com/.well-known/openid-configuration",
						callbackPort: 8765,
					},
				},
				written: { url: "https://b.example.com/mcp", oauth: { clientId: "c", privateKey: "pem-key-literal" } },
				unset: { url: "https://c.example.com/mcp", oauth: { clientSecret: "${NOT_SET}" } },
			},
		});
		const config = load({ CLIENT_ID: "my-client", EXAMPLE_SECRET: "cs-4d9a1e7b", TENANT: "acme" });
		const remote = server(config, "remote");
		expect(remote).toMatchObject({
			oauth: {
				clientId: "my-client",
				clientSecret: "cs-4d9a1e7b",
				authServerMetadataUrl: "https://acme.example.com/.well-known/openid-configuration",
				callbackPort: 8765,
			},
		});
		expect(remote.secrets).toContain("cs-4d9a1e7b");
		// A project's yes covers what it sends: the approval question names the variables.
		expect(remote.launch.summary).toContain("(sends your $CLIENT_ID, $EXAMPLE_SECRET, $TENANT)");
		expect(server(config, "written").secrets).toContain("pem-key-literal");
		expect(config.problems.map(formatProblem).join("\n")).toContain(
			'server "unset": field "oauth.clientSecret": ${NOT_SET} is not set',
		);
	});

	it("nested defaults expand fully: ${A:-${B}} with A unset is B's value, ${B:-${A}} is B's", () => {
		write(join(agentDir, "mcp.json"), {
			mcpServers: {
				s: { command: "x", args: ["${A:-${B}}", "${B:-${A}}", "${A:-x${B}y}", "${A:-${C:-deep}}", "${A:-}"] },
			},
		});
		expect(server(load({ B: "bee" }), "s")).toMatchObject({ args: ["bee", "bee", "xbeey", "deep", ""] });
	});

	it.each([
		["${A", "is never closed"],
		["${}", "empty variable name"],
		["${A B}", '"A B" is not a variable name'],
		["${A:-${B}", "is never closed"],
		["${A:-${}}", "empty variable name"],
	])("a malformed %s is an error naming file and server, not a literal", (arg, why) => {
		write(join(agentDir, "mcp.json"), { mcpServers: { s: { command: "x", args: [arg] }, ok: { command: "y" } } });
		const config = load({ A: "set", B: "bee" });
		expect(config.servers.has("s")).toBe(false);
		expect(config.servers.has("ok")).toBe(true);
		const text = config.problems.map(formatProblem).join("\n");
		expect(text).toMatch(/^error: .*mcp\.json: server "s": field "args\[0\]": malformed variable: /);
		expect(text).toContain(why);
	});

	it("a variable that is not set names the variable, never a value, and only that server is dropped", () => {
		write(join(agentDir, "mcp.json"), {
			mcpServers: {
				needy: { command: "x", env: { TOKEN: "${MISSING_TOKEN}" } },
				fine: { command: "y", env: { A: "${SET}" } },
			},
		});
		const config = load({ SET: "visible-value" });
		expect(config.servers.has("needy")).toBe(false);
		expect(server(config, "fine")).toBeDefined();
		const text = config.problems.map(formatProblem).join("\n");
		expect(text).toContain('server "needy": field "env.TOKEN": ${MISSING_TOKEN} is not set');
		expect(text).not.toContain("visible-value");
	});
});

describe("broken input", () => {
	it("a file with a syntax error is reported with line and column; other files still load", () => {
		write(join(agentDir, "mcp.json"), '{ "mcpServers": { "a": { "command": "x" } }, }');
		write(join(cwd, ".pi/mcp.json"), '{\n  "mcpServers": {\n    "b": { "command": "y" \n  }\n');
		const config = load();
		expect([...config.servers.keys()]).toEqual(["a"]);
		expect(config.problems).toHaveLength(1);
		// The file, where in it, and what is wrong in words (not jsonc-parser's "CloseBraceExpected").
		expect(formatProblem(config.problems[0])).toBe(
			`error: ${join(cwd, ".pi/mcp.json")} line 5, column 1: a closing } is missing`,
		);
	});

	it("each broken entry names file, server and problem; good entries load", () => {
		write(join(agentDir, "mcp.json"), {
			mcpServers: {
				good: { command: "ok" },
				both: { command: "x", url: "http://127.0.0.1/mcp" },
				neither: { args: ["a"] },
				badType: { command: "x", args: "not-a-list" },
				badLifecycle: { command: "x", lifecycle: "sometimes" },
				badUrl: { url: "ftp://example.com" },
				typo: { comand: "x", command: "y" },
			},
		});
		const config = load();
		expect([...config.servers.keys()].sort()).toEqual(["good", "typo"]);
		const text = config.problems.map(formatProblem).join("\n");
		expect(text).toContain('server "both": has both "command" and "url"');
		expect(text).toContain('server "neither": needs "command"');
		expect(text).toContain('server "badType": args: must be a list of strings, got a string');
		expect(text).toContain(
			'server "badLifecycle": lifecycle: must be one of "lazy", "eager", "keep-alive", got "sometimes"',
		);
		expect(text).toContain('server "badUrl": field "url": "ftp://example.com" is not an http(s) URL');
		expect(text).toContain(
			"warning: " +
				join(agentDir, "mcp.json") +
				': server "typo": unknown field "comand" ignored (did you mean "command"?)',
		);
		// The unusable ones stay known, with the reason, so the model is not told they do not exist.
		expect([...config.unconfigured.keys()].sort()).toEqual(["badLifecycle", "badType", "badUrl", "both", "neither"]);
		expect(config.unconfigured.get("both")?.reason).toContain('has both "command" and "url"');
	});

	it("unknown keys are named at every level with the closest known one", () => {
		write(join(agentDir, "mcp.json"), {
			mcpServer: { a: { command: "x" } },
			settings: { toolprefix: "none", outputGuard: { maxByte: 2048 } },
			mcpServers: { b: { command: "y", lifecyle: "eager" } },
		});
		const text = load().problems.map(formatProblem).join("\n");
		expect(text).toContain('unknown key "mcpServer" ignored (did you mean "mcpServers"?)');
		expect(text).toContain('settings: unknown setting "toolprefix" ignored (did you mean "toolPrefix"?)');
		expect(text).toContain('settings.outputGuard: unknown key "maxByte" ignored (did you mean "maxBytes"?)');
		expect(text).toContain('server "b": unknown field "lifecyle" ignored (did you mean "lifecycle"?)');
	});

	it("the servers of a file with invalid JSON stay listed as needing configuration, with the position", () => {
		write(
			join(agentDir, "mcp.json"),
			'{ "mcpServers": { "github": { "command": "npx", "args": ["-y", "x"] }, "slack": { "command": "y" } ',
		);
		const config = load();
		expect(config.servers.size).toBe(0);
		expect([...config.unconfigured.keys()]).toEqual(["github", "slack"]);
		expect(config.unconfigured.get("github")?.reason).toMatch(/mcp\.json line 1, column \d+: a closing } is missing$/);
	});

	it("a missing comma is said in words, at its line and column", () => {
		write(
			join(agentDir, "mcp.json"),
			'{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}\n',
		);
		expect(load().problems.map(formatProblem)).toEqual([
			`error: ${join(agentDir, "mcp.json")} line 4, column 5: a comma is missing`,
		]);
	});

	it("a timeout longer than a Node timer can wait is refused with the limit (it would fire at once)", () => {
		write(join(agentDir, "mcp.json"), {
			settings: { requestTimeoutMs: 3e9 },
			mcpServers: { a: { command: "x", timeout: 3e6 } },
		});
		const config = load();
		expect(config.settings.requestTimeoutMs).toBe(60_000);
		const text = config.problems.map(formatProblem).join("\n");
		expect(text).toContain("requestTimeoutMs: must be a number above 0 and at most 2147483647, got 3000000000");
		expect(text).toContain('server "a": timeout: must be a number above 0 and at most 2147483.647, got 3000000');
	});

	it("bad settings are reported and defaults kept", () => {
		write(join(agentDir, "mcp.json"), { settings: { toolPrefix: "long", idleTimeout: -1 }, mcpServers: {} });
		const config = load();
		expect(config.settings.toolPrefix).toBe("server");
		expect(formatProblem(config.problems[0])).toMatch(
			/settings: toolPrefix: must be one of "server", "short", "none", got "long"; idleTimeout: must be a number of at least 0 and at most 35791, got -1/,
		);
	});

	it("disabled servers are skipped silently", () => {
		write(join(agentDir, "mcp.json"), { mcpServers: { off: { command: "x", disabled: true } } });
		const config = load();
		expect(config.servers.size).toBe(0);
		expect(config.problems).toEqual([]);
	});
});

describe("which values are secrets (trust/secret-names.ts)", () => {
	it("a folder in args and env, ${HOME} under API_KEY: none is a secret; tokens by name, by variable, in a URL are", () => {
		const notes = join(home, "notes");
		mkdirSync(notes, { recursive: true });
		write(join(agentDir, "mcp.json"), {
			mcpServers: {
				fs: {
					command: "npx",
					args: ["server-filesystem", notes, "--token", "${DEPLOY_TOKEN}"],
					env: {
						NOTES_DIR: notes,
						API_KEY: "${HOME}",
						GITHUB_TOKEN: "ghp-config-literal",
						DATABASE_URL: "postgres://app:db-pw-123@db/x",
						LABEL: "${DEPLOY_REF}",
					},
				},
				web: { url: "https://api.example.com/mcp", headers: { "X-Api-Key": "hdr-key-1234", Accept: "text/plain" } },
			},
		});
		const config = load({ HOME: home, DEPLOY_TOKEN: "dtok-5e6f7a8b", DEPLOY_REF: "refs/heads/main" });
		const fs = server(config, "fs").secrets;
		expect(fs).toEqual(expect.arrayContaining(["dtok-5e6f7a8b", "ghp-config-literal", "db-pw-123"]));
		for (const shown of [notes, home, "refs/heads/main", "postgres://app:db-pw-123@db/x"])
			expect(fs).not.toContain(shown);
		expect(server(config, "web").secrets).toEqual(["hdr-key-1234"]);
	});

	it("a project's server: ${HOME} under API_KEY is the home folder, shown; its Authorization header is a secret", () => {
		write(join(cwd, ".mcp.json"), {
			mcpServers: {
				proj: { url: "https://p.example.com/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
				p2: { command: "x", env: { API_KEY: "${HOME}" } },
			},
		});
		const config = load({ HOME: home, TOKEN: "tok-0a1b2c3d" });
		expect(server(config, "proj").secrets).toEqual(expect.arrayContaining(["Bearer tok-0a1b2c3d"]));
		expect(server(config, "p2").secrets).toEqual([]);
	});
});
