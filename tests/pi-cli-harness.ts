// Runs the real `pi` CLI (-p) against a scripted model, with this package as an extension, in a
// temp HOME/agentDir/cwd so no real user files are read or written.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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

export interface PiCliOptions {
	readonly mcpConfig: unknown;
	readonly steps: Step[];
	readonly prompt: string;
	readonly extraArgs?: string[];
	readonly env?: Record<string, string>;
	readonly timeoutMs?: number;
	/** Load the package folder (package.json "pi" field) instead of index.ts. */
	readonly loadAsPackage?: boolean;
	/** Run Pi without this extension (a baseline for benchmarks). */
	readonly noExtension?: boolean;
	/** Files to write under agentDir before Pi starts (e.g. a warm cache). */
	readonly agentFiles?: Record<string, string>;
	/** Which Pi runs (default pi 0.73). */
	readonly host?: PiHost;
}

interface PiHome {
	readonly dir: ReturnType<typeof tempDir>;
	readonly agentDir: string;
	readonly cwd: string;
	readonly model: MockModel;
}

/** A temp HOME with agentDir (models.json for the scripted model, settings, mcp.json) and cwd. */
async function preparePiHome(options: Pick<PiCliOptions, "mcpConfig" | "agentFiles"> & { steps: Step[] }): Promise<PiHome> {
	const dir = tempDir("pi-mcp-cli-");
	const agentDir = join(dir.path, "agent");
	const cwd = join(dir.path, "work");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(cwd, { recursive: true });
	const model = await startMockModel(options.steps);
	writeFileSync(join(agentDir, "models.json"), model.modelsJson());
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ retry: { enabled: false } }));
	writeFileSync(join(agentDir, "mcp.json"), JSON.stringify(options.mcpConfig));
	for (const [name, content] of Object.entries(options.agentFiles ?? {})) writeFileSync(join(agentDir, name), content);
	return { dir, agentDir, cwd, model };
}

/** Starts the real `pi` in that home, offline, with only this extension (or none). */
function spawnPi(home: PiHome, modeArgs: string[], options: Pick<PiCliOptions, "env" | "loadAsPackage" | "noExtension" | "extraArgs" | "host">) {
	const host = options.host ?? PI_073;
	const args = [
		host.cli,
		...modeArgs,
		"--no-session",
		"--no-extensions",
		...(options.noExtension ? [] : ["-e", options.loadAsPackage ? ROOT : join(ROOT, "index.ts")]),
		"--no-context-files",
		"--no-skills",
		"--no-prompt-templates",
		"--provider",
		"mock",
		"--model",
		"m",
		...(options.extraArgs ?? []),
	];
	return spawn(host.node, args, {
		cwd: home.cwd,
		env: { ...process.env, PI_CODING_AGENT_DIR: home.agentDir, HOME: home.dir.path, PI_OFFLINE: "1", ...options.env },
		stdio: ["pipe", "pipe", "pipe"],
	});
}

export async function runPiCli(options: PiCliOptions): Promise<PiCliRun> {
	const home = await preparePiHome(options);
	const { dir, agentDir, model } = home;
	const child = spawnPi(home, ["-p"], { ...options, extraArgs: [...(options.extraArgs ?? []), options.prompt] });
	child.stdin.end(); // print mode reads no input
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (c) => {
		stdout += c;
	});
	child.stderr.on("data", (c) => {
		stderr += c;
	});
	const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
	const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
	clearTimeout(timer);
	return {
		code,
		stdout,
		stderr,
		model,
		agentDir,
		pid: child.pid ?? -1,
		cleanup: async () => {
			await model.close();
			dir.remove();
		},
	};
}

export interface RpcEvent {
	readonly type: string;
	readonly [key: string]: unknown;
}

export interface PiRpc {
	readonly events: RpcEvent[];
	send(command: Record<string, unknown>): void;
	/** Resolves with the first event (from `from` on) that matches. */
	waitFor(match: (event: RpcEvent) => boolean, from?: number, timeoutMs?: number): Promise<RpcEvent>;
	close(): Promise<void>;
}

/** The real `pi --mode rpc` with this extension: JSONL commands in, JSONL events out. */
export async function startPiRpc(options: Omit<PiCliOptions, "prompt" | "steps"> & { steps?: Step[] }): Promise<PiRpc> {
	const home = await preparePiHome({ ...options, steps: options.steps ?? [] });
	const { dir, model } = home;
	const child = spawnPi(home, ["--mode", "rpc"], options);
	const events: RpcEvent[] = [];
	let buffer = "";
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
	child.stderr.resume();
	const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
	return {
		events,
		send: (command) => child.stdin.write(`${JSON.stringify(command)}\n`),
		async waitFor(match, from = 0, timeoutMs = 20_000) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const found = events.slice(from).find(match);
				if (found) return found;
				if (Date.now() > deadline) throw new Error(`no matching rpc event; got: ${JSON.stringify(events.slice(from)).slice(0, 2000)}`);
				await new Promise((r) => setTimeout(r, 20));
			}
		},
		async close() {
			child.stdin.end();
			const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
			await exited;
			clearTimeout(timer);
			await model.close();
			dir.remove();
		},
	};
}
