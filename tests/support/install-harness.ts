// A Pi user's home for the install tests: empty but for one MCP server in mcp.json, npm pointed at
// the test's registry and its "global" installs kept inside; commands run to their end; a `pi -p`
// whose scripted model searches for a server's tool and calls it, on either Pi line.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EVERYTHING, TEST_NPM_CACHE } from "./helpers.ts";
import { lastToolMessage, type Step, startMockModel } from "./mock-openai.ts";
import type { PiHost } from "./pi-hosts.ts";

export interface Home {
	readonly home: string;
	readonly agentDir: string;
	readonly cwd: string;
}

/** An empty home with the user's one MCP server (server-everything over stdio) and a working folder. */
export function emptyHome(root: string, name: string): Home {
	const home = join(root, name);
	const agentDir = join(home, ".pi", "agent");
	const cwd = join(home, "work");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(cwd, { recursive: true });
	writeFileSync(
		join(agentDir, "mcp.json"),
		JSON.stringify({ mcpServers: { everything: { command: "node", args: [EVERYTHING, "stdio"] } } }),
	);
	return { home, agentDir, cwd };
}

/** Pi's and npm's environment in that home: npm asks `registry`, installs "globally" under the home. */
export function homeEnv(at: Home, registry: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	return {
		...process.env,
		HOME: at.home,
		PI_CODING_AGENT_DIR: undefined,
		npm_config_registry: registry,
		npm_config_cache: TEST_NPM_CACHE,
		npm_config_prefix: join(at.home, "global"),
		npm_config_update_notifier: "false",
		npm_config_fund: "false",
		...extra,
	};
}

/** Runs a command to its end: exit code and everything it printed. */
export function runCommand(
	command: string,
	args: string[],
	cwd: string,
	env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string }> {
	const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
	let out = "";
	child.stdout.on("data", (c) => (out += c));
	child.stderr.on("data", (c) => (out += c));
	return new Promise((resolve) => child.on("close", (code) => resolve({ code, out })));
}

/**
 * The model's script: Pi 1.5 (codemode on, as a user has it) searches with `tools.mcp` and calls the
 * Pi tool from a codemode script; pi 0.73 searches, then calls, through the `mcp` tool. The server is
 * connected first: in a new home no cache knows it yet, and a search does not wait long for it.
 */
export function searchThenCall(host: PiHost): Step[] {
	const script = [
		'await tools.mcp({ connect: "everything" });',
		'const found = await tools.mcp({ search: "add numbers" });',
		"const name = /^- (\\S+)/m.exec(found)[1];",
		"return await tools.mcp({ tool: name, args: { a: 2, b: 3 } });",
	].join("\n");
	const sum = (text: string) => text.split("\n").find((l) => l.startsWith("The sum")) ?? text;
	return host.pi1
		? [
				() => ({ toolCall: { name: "codemode", arguments: { code: script } } }),
				(req) => ({ text: `RESULT ${sum(lastToolMessage(req))}` }),
			]
		: [
				() => ({ toolCall: { name: "mcp", arguments: { connect: "everything" } } }),
				() => ({ toolCall: { name: "mcp", arguments: { search: "add numbers" } } }),
				(req) => ({
					toolCall: {
						name: "mcp",
						arguments: { tool: /^- (\S+)/.exec(lastToolMessage(req))?.[1] ?? "", args: { a: 2, b: 3 } },
					},
				}),
				(req) => ({ text: `RESULT ${sum(lastToolMessage(req))}` }),
			];
}

/** One `pi -p` in that home, with whatever it installed, against a scripted model. */
export async function piSession(host: PiHost, at: Home, env: NodeJS.ProcessEnv, steps: Step[], prompt = "add 2 and 3") {
	const model = await startMockModel(steps);
	try {
		writeFileSync(join(at.agentDir, "models.json"), model.modelsJson());
		// Only the model's retries off (a scripted model's failure should fail at once); Pi's own file otherwise.
		const settingsFile = join(at.agentDir, "settings.json");
		const settings = existsSync(settingsFile) ? JSON.parse(readFileSync(settingsFile, "utf8")) : {};
		writeFileSync(settingsFile, JSON.stringify({ ...settings, retry: { enabled: false } }));
		const args = [host.cli, "-p", "--no-session", "--provider", "mock", "--model", "m", prompt];
		return await runCommand(host.node, args, at.cwd, { ...env, PI_OFFLINE: "1" });
	} finally {
		await model.close();
	}
}
