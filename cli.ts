// pi-mcp-proxy from a shell: the proxy tool's modes on the same config (and cache) Pi uses.
//   status | list <server> | search <words> | describe <tool> | call <tool> '<json>' | demo
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { mapLimit, within } from "./bounds/waits.ts";
import { describeError } from "./errors.ts";
import { loadReadline } from "./lazy.ts";
import type { ServerLifecycle } from "./lifecycle.ts";
import { McpRuntime } from "./mcp-runtime.ts";
import { runProxy } from "./proxy/proxy-tool.ts";
import { brokerReport, turnedOffLine } from "./proxy/server-status.ts";
import type { ProxyInput } from "./proxy/surface.ts";
import { contentText } from "./proxy/tool-results.ts";
import { approveCommand } from "./trust/approve-flow.ts";
import { terminalSafe } from "./trust/safe-text.ts";
import { isShownCode } from "./trust/shown-launches.ts";

const USAGE = `Usage: pi-mcp-proxy [--config <file>] <command>
  status [--check]       servers and their state (--check: start each and say how it went)
  list <server>          one server's tools (--instructions: its whole instructions)
  search <words...>      find tools (words OR'd; --regex for a pattern)
  describe <tool>        one tool's description and parameters
  call <tool> ['<json>'] call a tool with JSON arguments
  login <server>         sign in to a server with OAuth (prints the URL, waits for the browser)
  logout <server>        sign out: delete its tokens
  approve [server] [code] show this project's servers awaiting approval, with a code;
                         approve <code>: let exactly what was shown with it run
  deny [server]          keep this project's servers from running
  demo                   status, search, describe and call, one after another
Config: <agentDir>/mcp.json, .mcp.json and .pi/mcp.json, or only --config <file>.`;

interface Parsed {
	readonly configPath?: string;
	readonly regex: boolean;
	readonly check: boolean;
	readonly instructions: boolean;
	readonly command?: string;
	readonly rest: string[];
}

function parseArgv(argv: readonly string[]): Parsed {
	const { values, positionals } = parseArgs({
		args: [...argv],
		allowPositionals: true,
		// A tool's JSON arguments may begin with "-": everything unknown is a positional, not an error.
		strict: false,
		options: {
			config: { type: "string" },
			regex: { type: "boolean" },
			check: { type: "boolean" },
			instructions: { type: "boolean" },
			help: { type: "boolean", short: "h" },
		},
	});
	const positional = values.help ? ["help", ...positionals] : positionals;
	const configPath = typeof values.config === "string" ? values.config : undefined;
	return {
		configPath,
		regex: values.regex === true,
		check: values.check === true,
		instructions: values.instructions === true,
		command: positional[0],
		rest: positional.slice(1),
	};
}

function toInput(parsed: Parsed): ProxyInput | string {
	const [first, ...more] = parsed.rest;
	switch (parsed.command) {
		case "status":
			return {};
		case "list":
			return first
				? { server: first, ...(parsed.instructions ? { instructions: true } : {}) }
				: "list needs a server name";
		case "search":
			return parsed.rest.length > 0 ? { search: parsed.rest.join(" "), regex: parsed.regex } : "search needs words";
		case "describe":
			return first ? { describe: first } : "describe needs a tool name";
		case "call":
			return first ? { tool: first, args: more.join(" ") || undefined } : "call needs a tool name";
		default:
			return parsed.command ? `unknown command "${parsed.command}"` : "no command given";
	}
}

/** How long Ctrl-C waits for servers to end on their own before they are killed. */
const CLI_SHUTDOWN_MS = 3000;

/** Output for a person at a terminal: what servers and repositories wrote carries no terminal sequences. */
function print(text: string): void {
	process.stdout.write(forShell(terminalSafe(text)));
}

function printError(text: string): void {
	process.stderr.write(forShell(terminalSafe(text)));
}

/**
 * The answers are written for the model inside Pi (`mcp({search})`, "ask the user to run /mcp
 * approve"); at a shell the same hints name the CLI's own commands.
 */
const SHELL_WORDING: readonly [RegExp, string][] = [
	[/mcp\(\{search:"words"\}\)/g, "pi-mcp-proxy search <words>"],
	[/mcp\(\{server:"([^"]+)",instructions:true\}\)/g, "pi-mcp-proxy list $1 --instructions"],
	[/mcp\(\{server:"([^"]+)"\}\)/g, "pi-mcp-proxy list $1"],
	[/mcp\(\{describe:"([^"]+)"\}\)/g, "pi-mcp-proxy describe $1"],
	[/ask the user to run \/mcp approve/g, "run: pi-mcp-proxy approve"],
	[/\/mcp approve/g, "pi-mcp-proxy approve"],
	[/ask the user to run \/mcp-auth ([^\s)]+)/g, "run: pi-mcp-proxy login $1"],
	[/\/mcp-auth ([^\s)]+) explains/g, "/mcp-auth $1 in Pi explains"],
];

export function forShell(text: string): string {
	return SHELL_WORDING.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}

async function run(runtime: McpRuntime, input: ProxyInput, title?: string): Promise<boolean> {
	const lifecycle = runtime.lifecycle;
	if (title) print(`\n$ ${title}\n`);
	// A shell command has nothing else to do: it waits for starting servers as long as connecting may take.
	const wait = lifecycle.config.settings.connectTimeoutMs + 1000;
	const notes = (server: string) => runtime.client.takeNotes(server);
	const result = await runProxy(lifecycle, input, { statusWaitMs: wait, notes });
	const out = contentText(result.content);
	(result.isError ? printError : print)(`${out}\n`);
	// `status` fails when something needs the user: a broken config or a server that cannot run.
	const unwell = input.tool === undefined && Object.keys(input).length === 0 && statusUnwell(lifecycle);
	return !result.isError && !unwell;
}

/**
 * `status --check`: every server that may run is started now, its tools cached or not, so the
 * status says how each start went (connected with its tools, or the failure and the server's own
 * words) rather than what the cache remembers. Each start is bounded by its own connect deadline.
 */
async function startEach(lifecycle: ServerLifecycle): Promise<void> {
	const runnable = lifecycle.serverNames().filter((name) => !lifecycle.blocked(name));
	// A failed start is recorded for its server (state "failed", the reason): the status reports it.
	await mapLimit(runnable, CHECK_PARALLELISM, (name) => lifecycle.ensureConnected(name).catch(() => undefined));
}

/** Servers `status --check` starts at once (as many as the startup cache fill does). */
const CHECK_PARALLELISM = 10;

function statusUnwell(lifecycle: ServerLifecycle): boolean {
	if (lifecycle.config.problems.some((p) => p.severity === "error")) return true;
	return lifecycle.serverNames().some((n) => ["failed", "needs-config", "needs-auth"].includes(lifecycle.state(n)));
}

/**
 * The demo's config when none is named: server-everything from this package's dev dependencies
 * (a clone after `npm ci`), else the same version through npx (an installed copy has no dev
 * dependencies), whose first run installs it: its connect may take minutes, not the usual 30 s.
 */
function demoConfig(command: string | undefined): string | undefined {
	if (command !== "demo") return undefined;
	const local = join(import.meta.dirname, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
	const viaNpx = !existsSync(local);
	const launch = viaNpx
		? { command: "npx", args: ["-y", `@modelcontextprotocol/server-everything@${EVERYTHING_VERSION}`, "stdio"] }
		: { command: process.execPath, args: [local, "stdio"] };
	const dir = mkdtempSync(join(tmpdir(), "pi-mcp-demo-"));
	const path = join(dir, "mcp.json");
	const settings = viaNpx ? { connectTimeoutMs: DEMO_INSTALL_MS } : {};
	writeFileSync(path, JSON.stringify({ settings, mcpServers: { everything: launch } }));
	process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
	if (viaNpx) printError(`Starting ${launch.args[1]} with npx (its first run installs it: a minute or so)...\n`);
	return path;
}

/** The server-everything the demo runs where this package does not bundle it. */
const EVERYTHING_VERSION = "2026.8.31";
/** How long the demo lets npx install server-everything on its first run. */
const DEMO_INSTALL_MS = 5 * 60_000;

/** The README's first command: a tour of the proxy against the bundled server-everything. */
async function demo(runtime: McpRuntime): Promise<boolean> {
	const steps: [string, ProxyInput][] = [
		["status", {}],
		["search add numbers", { search: "add numbers" }],
		["describe everything_get-sum", { describe: "everything_get-sum" }],
		['call everything_get-sum \'{"a": 2, "b": 3}\'', { tool: "everything_get-sum", args: '{"a": 2, "b": 3}' }],
		[
			'call everything_echo \'{"message": "hello from Pi"}\'',
			{ tool: "everything_echo", args: { message: "hello from Pi" } },
		],
		["status", {}],
	];
	// Connected first, so every step finds it running (the search does not wait for a server starting).
	await runtime.lifecycle.ensureMetadata(undefined, runtime.config.settings.connectTimeoutMs + 1000);
	let allOk = true;
	for (const [title, input] of steps) allOk = (await run(runtime, input, title)) && allOk;
	return allOk;
}

/** `login`: the URL on stdout, then the callback (or a pasted address on a terminal); `logout`: the tokens go. */
async function sign(runtime: McpRuntime, command: "login" | "logout", server: string | undefined): Promise<number> {
	if (!server) {
		printError(`${command} needs a server name. Servers: ${runtime.lifecycle.serverNames().join(", ") || "none"}\n`);
		return 2;
	}
	try {
		if (command === "logout") {
			print((await runtime.signOut(server)) ? `Signed out of "${server}".\n` : `"${server}" was not signed in.\n`);
			return 0;
		}
		await runtime.signIn(server, {
			show: (url, shortUrl) =>
				print(
					`Open this address to sign in to "${server}":\n${url}\n(on this machine, ${shortUrl} leads there too)\n${process.stdin.isTTY ? "Or paste the address the browser ended on, then Enter.\n" : ""}`,
				),
			askPaste: process.stdin.isTTY ? (signal) => readLine(signal) : undefined,
		});
		print(`Signed in to "${server}".\n`);
		return 0;
	} catch (error) {
		printError(`${runtime.redactor.scrub(describeError(error))}\n`);
		return 1;
	}
}

/** One line from the terminal, or undefined when `signal` ends the wait. */
async function readLine(signal: AbortSignal): Promise<string | undefined> {
	const { createInterface } = await loadReadline();
	const rl = createInterface({ input: process.stdin });
	try {
		return await new Promise<string | undefined>((resolve) => {
			rl.once("line", resolve);
			signal.addEventListener("abort", () => resolve(undefined), { once: true });
		});
	} finally {
		rl.close();
	}
}

async function decide(runtime: McpRuntime, command: "approve" | "deny", words: readonly string[]): Promise<number> {
	const unknown = words.find((w) => !(command === "approve" && isShownCode(w)) && !runtime.lifecycle.knows(w));
	if (unknown) {
		printError(`${runtime.lifecycle.unknownServer(unknown)}\n`);
		return 2;
	}
	if (command === "approve") {
		// A shell cannot show a dialog: the launches are printed with a code, and only that code approves them.
		const answer = await approveCommand(runtime, words);
		(answer.level === "error" ? printError : print)(`${answer.text}\n`);
		return answer.approved || answer.level === "info" ? 0 : 1;
	}
	const server = words[0];
	const decided = await runtime.decide(server ? [server] : [], "denied");
	if (decided.length === 0) {
		print(
			server ? `"${server}" is from your own config: it needs no approval.\n` : "No project server needs a decision.\n",
		);
		return 0;
	}
	print(`Denied for ${runtime.approvals.project}:\n`);
	for (const entry of decided) print(`  ${runtime.describeLaunch(entry)}\n`);
	return 0;
}

export async function main(argv: readonly string[]): Promise<number> {
	const parsed = parseArgv(argv);
	if (parsed.command === "help" || !parsed.command) {
		print(`${USAGE}\n`);
		return parsed.command === "help" ? 0 : 2;
	}
	if (parsed.configPath && !existsSync(resolve(parsed.configPath))) {
		printError(
			`--config ${parsed.configPath}: no such file. Name an existing mcp.json, or leave --config out to use Pi's files.\n`,
		);
		return 2;
	}
	const runtime = new McpRuntime({ cwd: process.cwd(), configPath: parsed.configPath ?? demoConfig(parsed.command) });
	for (const line of runtime.problemLines()) printError(`${line}\n`);
	// A server's questions (elicitation, sampling) have no one to answer them here: declined, and said so.
	runtime.client.host = { noUiReason: "the pi-mcp-proxy CLI cannot ask the user" };
	// No start(): a CLI run connects only what a command needs, on the same cache as Pi.
	// Ctrl-C (or a kill) ends every server the command started, then exits as a shell expects (130,
	// 143): during the command and while its servers close after it (a server that ignores SIGTERM
	// takes seconds then; Node's default would kill this process and leave that server). A second
	// signal does not wait for the first's shutdown.
	let stopping = false;
	const onSignal = (signal: NodeJS.Signals) => {
		const code = signal === "SIGINT" ? 130 : 143;
		const exit = () => {
			// A server that ignores SIGTERM and stdin's end is killed whatever the shutdown got to.
			runtime.killAllSync();
			process.exit(code);
		};
		if (stopping) return exit();
		stopping = true;
		void within(runtime.shutdown(), CLI_SHUTDOWN_MS).finally(exit);
	};
	process.on("SIGINT", onSignal);
	process.on("SIGTERM", onSignal);
	try {
		if (parsed.command === "demo") return (await demo(runtime)) ? 0 : 1;
		if (parsed.command === "approve" || parsed.command === "deny")
			return await decide(runtime, parsed.command, parsed.rest);
		if (parsed.command === "login" || parsed.command === "logout")
			return await sign(runtime, parsed.command, parsed.rest[0]);
		const input = toInput(parsed);
		if (typeof input === "string") {
			printError(`${input}\n\n${USAGE}\n`);
			return 2;
		}
		if (parsed.command === "status" && parsed.check) await startEach(runtime.lifecycle);
		const succeeded = await run(runtime, input);
		if (parsed.command === "status") {
			for (const [name, file] of runtime.config.disabled ?? []) print(`${turnedOffLine(name, file)}\n`);
			const shared = await brokerReport(runtime.agentDir);
			if (shared) print(`${shared}\n`);
		}
		return succeeded ? 0 : 1;
	} finally {
		// The handlers stay until the process exits: a signal after this shutdown still exits 130/143.
		await runtime.shutdown();
		const cut = runtime.lifecycle.cacheNotice;
		if (cut) printError(`warning: ${cut}\n`);
	}
}

if (process.argv[1] && /cli\.[tj]s$/.test(process.argv[1])) {
	main(process.argv.slice(2)).then((code) => process.exit(code));
}
