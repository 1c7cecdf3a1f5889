// pi-mcp-proxy from a shell: the proxy tool's modes on the same config (and cache) Pi uses, the
// config managed as `pi mcp add` manages it, and a check of the whole setup (`doctor`). This
// module only dispatches; each command lives in shell/.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { McpRuntime } from "./mcp-runtime.ts";
import { decide, sign } from "./shell/access-commands.ts";
import { commandWords, type Parsed, parseArgv, USAGE } from "./shell/args.ts";
import { CONFIG_COMMANDS, configCommand } from "./shell/config-commands.ts";
import { doctor } from "./shell/doctor.ts";
import { cancelOnSignals } from "./shell/interrupt.ts";
import { print, printError } from "./shell/output.ts";
import { demo, demoConfig, proxyCommand } from "./shell/proxy-commands.ts";
import { getServer, listServers } from "./shell/server-info.ts";

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
	const words = commandWords(argv);
	// Writing a file needs no runtime (nothing is started, no cache read): `add`, `remove`.
	if (words.command && CONFIG_COMMANDS.has(words.command))
		return configCommand(words.command, words.rest, { cwd: process.cwd(), configPath: words.configPath });
	const runtime = new McpRuntime({ cwd: process.cwd(), configPath: parsed.configPath ?? demoConfig(parsed.command) });
	// `doctor` reports the config's problems itself, file by file.
	if (parsed.command !== "doctor") for (const line of runtime.problemLines()) printError(`${line}\n`);
	// A server's questions (elicitation, sampling) have no one to answer them here: declined, and said so.
	runtime.client.host = { noUiReason: "the pi-mcp-proxy CLI cannot ask the user" };
	// No start(): a CLI run connects only what a command needs, on the same cache as Pi.
	const interrupt = cancelOnSignals(runtime);
	try {
		const code = await dispatch(runtime, parsed, interrupt.signal);
		// Cancelled: whatever the command answered to its abort, the exit is the signal's (130, 143).
		return interrupt.code() ?? code;
	} finally {
		await runtime.shutdown();
		// Interrupted: the signal's shutdown may still be under way; nothing it started outlives the exit.
		if (interrupt.code() !== undefined) runtime.killAllSync();
		const cut = runtime.lifecycle.cacheNotice;
		if (cut) printError(`warning: ${cut}\n`);
	}
}

/** The command's exit code. */
function dispatch(runtime: McpRuntime, parsed: Parsed, signal: AbortSignal): Promise<number> {
	switch (parsed.command) {
		case "demo":
			return demo(runtime, signal).then((ok) => (ok ? 0 : 1));
		case "doctor":
			return doctor(runtime, signal);
		case "get":
			return Promise.resolve(getServer(runtime, parsed.rest[0]));
		case "approve":
		case "deny":
			return decide(runtime, parsed.command, parsed.rest);
		case "login":
		case "logout":
			return sign(runtime, parsed.command, parsed.rest[0]);
		default:
			// Bare `list`: the configured servers; `list <server>`: its tools.
			if (parsed.command === "list" && parsed.rest.length === 0) return Promise.resolve(listServers(runtime));
			return proxyCommand(runtime, parsed, signal);
	}
}

if (process.argv[1] && /cli\.[tj]s$/.test(process.argv[1])) {
	main(process.argv.slice(2)).then((code) => process.exit(code));
}
