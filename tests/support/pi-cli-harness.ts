// Runs the real `pi` CLI (-p, json, rpc, or the TUI in a pseudo-terminal) against a scripted
// model, with this package as an extension, in a temp HOME/agentDir/cwd so no real user files are
// read or written. A home can serve several runs, as a user's machine does.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tagged, terminateAll } from "../../bounds/process-tree.ts";
import { ROOT, tempDir } from "./helpers.ts";
import { type MockModel, type Step, startMockModel } from "./mock-openai.ts";
import { PI_073, type PiHost } from "./pi-hosts.ts";

export interface PiCliRun {
	readonly code: number | null;
	readonly stdout: string;
	readonly stderr: string;
	readonly model: MockModel;
	readonly agentDir: string;
	readonly pid: number;
	cleanup(): Promise<void>;
}

export interface HomeOptions {
	/** ~/.pi/agent/mcp.json (omitted when undefined). */
	readonly mcpConfig?: unknown;
	/** Files to write under agentDir before Pi starts (e.g. settings). */
	readonly agentFiles?: Record<string, string>;
	/** Files to write under the working folder (e.g. a project's .mcp.json). */
	readonly projectFiles?: Record<string, string>;
	readonly steps?: Step[];
}

export interface RunOptions {
	readonly steps?: Step[];
	readonly extraArgs?: string[];
	readonly env?: Record<string, string>;
	readonly timeoutMs?: number;
	/** Load the package folder (package.json "pi" field) instead of index.ts. */
	readonly loadAsPackage?: boolean;
	/** Load this folder or file instead (an installed copy of the package). */
	readonly extension?: string;
	/** Load the extensions Pi's settings list (`pi install`ed packages, Pi 1.x's built-ins), as a user's Pi does: no --no-extensions, no -e. */
	readonly fromSettings?: boolean;
	/** Run Pi without this extension (a baseline for benchmarks). */
	readonly noExtension?: boolean;
	/** Which Pi runs (default pi 0.73). */
	readonly host?: PiHost;
	/** Pi 1.5's built-in extensions to load despite --no-extensions (codemode, tool-search, mcp). */
	readonly builtins?: readonly string[];
	/** Told Pi's pid once it runs (a benchmark samples its process tree). */
	readonly onSpawn?: (pid: number) => void;
	/** Keep Pi's session file (under agentDir/sessions), as a user's Pi does. */
	readonly session?: boolean;
}

export interface PiCliOptions extends HomeOptions, RunOptions {
	readonly steps: Step[];
	readonly prompt: string;
}

/** A temp HOME with agentDir (models.json for the scripted model, settings, mcp.json) and cwd. */
export interface PiHome {
	readonly root: string;
	readonly agentDir: string;
	readonly cwd: string;
	readonly model: MockModel;
	/** Writes (or replaces) a file under the working folder. */
	writeProjectFile(path: string, content: string): void;
	/** Writes (or replaces) a file under the agent dir (mcp.json, settings.json, ...). */
	writeAgentFile(name: string, content: string): void;
	dispose(): Promise<void>;
}

export async function createPiHome(options: HomeOptions = {}): Promise<PiHome> {
	const dir = tempDir("pi-mcp-cli-");
	const agentDir = join(dir.path, "agent");
	const cwd = join(dir.path, "work");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(cwd, { recursive: true });
	const model = await startMockModel(options.steps ?? []);
	writeFileSync(join(agentDir, "models.json"), model.modelsJson());
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ retry: { enabled: false } }));
	if (options.mcpConfig !== undefined) writeFileSync(join(agentDir, "mcp.json"), JSON.stringify(options.mcpConfig));
	for (const [name, content] of Object.entries(options.agentFiles ?? {})) writeFileSync(join(agentDir, name), content);
	const writeProjectFile = (path: string, content: string) => {
		mkdirSync(dirname(join(cwd, path)), { recursive: true });
		writeFileSync(join(cwd, path), content);
	};
	for (const [path, content] of Object.entries(options.projectFiles ?? {})) writeProjectFile(path, content);
	return {
		root: dir.path,
		agentDir,
		cwd,
		model,
		writeProjectFile,
		writeAgentFile: (name, content) => writeFileSync(join(agentDir, name), content),
		async dispose() {
			await model.close();
			// What still runs in this home (a Pi a failed test left, the broker a session started,
			// their servers) would write into it after it is removed: end it, and wait, first.
			await terminateAll(runningIn(dir.path, agentDir));
			dir.remove();
		},
	};
}

/** The processes started in a home: Pi and what it starts inherit its HOME or its agent dir. */
function runningIn(root: string, agentDir: string): number[] {
	return [...new Set([...tagged("HOME", root), ...tagged("PI_CODING_AGENT_DIR", agentDir)])];
}

/** The command line and environment of the real `pi` in that home, offline, with only this extension (or none). */
export function piCommand(
	home: PiHome,
	modeArgs: string[],
	options: RunOptions = {},
): { node: string; args: string[]; env: Record<string, string> } {
	const host = options.host ?? PI_073;
	const args = [
		host.cli,
		...modeArgs,
		...(options.session ? [] : ["--no-session"]),
		...(options.fromSettings ? [] : ["--no-extensions"]),
		...(options.noExtension || options.fromSettings
			? []
			: ["-e", options.extension ?? (options.loadAsPackage ? ROOT : join(ROOT, "index.ts"))]),
		...(options.builtins ?? []).flatMap((name) => ["-e", `builtin:${name}`]),
		"--no-context-files",
		"--no-skills",
		"--no-prompt-templates",
		"--provider",
		"mock",
		"--model",
		"m",
		...(options.extraArgs ?? []),
	];
	const env = {
		...(process.env as Record<string, string>),
		PI_CODING_AGENT_DIR: home.agentDir,
		HOME: home.root,
		PI_OFFLINE: "1",
		...options.env,
	};
	return { node: host.node, args, env };
}

/**
 * A run's time limit in the benchmarks: they time what they run and may share a loaded machine,
 * so only a hang is cut (the tests' default, 60 s, cut slow Pi 1.5 runs of a full `npm run bench`).
 */
export const BENCH_RUN_MS = 600_000;

/** One `pi -p` (or `--mode json` with modeArgs) run in an existing home. */
export async function runPi(
	home: PiHome,
	prompt: string,
	options: RunOptions & { mode?: "print" | "json" } = {},
): Promise<Omit<PiCliRun, "cleanup">> {
	if (options.steps) home.model.script(options.steps);
	const modeArgs = options.mode === "json" ? ["--mode", "json"] : ["-p"];
	const { node, args, env } = piCommand(home, modeArgs, {
		...options,
		extraArgs: [...(options.extraArgs ?? []), prompt],
	});
	const child = spawn(node, args, { cwd: home.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
	if (child.pid !== undefined) options.onSpawn?.(child.pid);
	child.stdin.end(); // print mode reads no input
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (c) => {
		stdout += c;
	});
	child.stderr.on("data", (c) => {
		stderr += c;
	});
	// Only a hang is cut: a loaded machine takes tens of seconds for a run (the test's timeout bounds it first).
	const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 170_000);
	const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
	clearTimeout(timer);
	return { code, stdout, stderr, model: home.model, agentDir: home.agentDir, pid: child.pid ?? -1 };
}

/** A whole run in a fresh home (removed by cleanup). */
export async function runPiCli(options: PiCliOptions): Promise<PiCliRun> {
	const home = await createPiHome(options);
	const run = await runPi(home, options.prompt, options);
	return { ...run, cleanup: () => home.dispose() };
}

export interface RpcEvent {
	readonly type: string;
	readonly [key: string]: unknown;
}

export interface PiRpc {
	readonly events: RpcEvent[];
	/** Everything Pi wrote to stderr so far. */
	stderr(): string;
	send(command: Record<string, unknown>): void;
	/** Resolves with the first event (from `from` on) that matches. */
	waitFor(match: (event: RpcEvent) => boolean, from?: number, timeoutMs?: number): Promise<RpcEvent>;
	/** Ends Pi (stdin closed) and waits for it; with an own home, removes the home too. */
	close(): Promise<void>;
}

/** The real `pi --mode rpc` with this extension: JSONL commands in, JSONL events out. */
export async function startPiRpc(options: HomeOptions & RunOptions & { home?: PiHome }): Promise<PiRpc> {
	const home = options.home ?? (await createPiHome(options));
	if (options.home && options.steps) home.model.script(options.steps);
	const { node, args, env } = piCommand(home, ["--mode", "rpc"], options);
	const child = spawn(node, args, { cwd: home.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
	const events: RpcEvent[] = [];
	let buffer = "";
	let stderr = "";
	child.stdout.on("data", (chunk) => {
		buffer += chunk;
		let newline = buffer.indexOf("\n");
		while (newline >= 0) {
			const line = buffer.slice(0, newline).trim();
			buffer = buffer.slice(newline + 1);
			if (line.startsWith("{")) events.push(JSON.parse(line) as RpcEvent);
			newline = buffer.indexOf("\n");
		}
	});
	child.stderr.on("data", (c) => {
		stderr += c;
	});
	const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
	return {
		events,
		stderr: () => stderr,
		send: (command) => child.stdin.write(`${JSON.stringify(command)}\n`),
		async waitFor(match, from = 0, timeoutMs = 170_000) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const found = events.slice(from).find(match);
				if (found) return found;
				if (Date.now() > deadline)
					throw new Error(`no matching rpc event; got: ${JSON.stringify(events.slice(from)).slice(0, 2000)}`);
				await new Promise((r) => setTimeout(r, 20));
			}
		},
		async close() {
			child.stdin.end();
			const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
			await exited;
			clearTimeout(timer);
			if (!options.home) await home.dispose();
		},
	};
}
