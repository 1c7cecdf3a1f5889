// The shell command's command line: its usage text, and the options of the proxy's modes
// (`util.parseArgs`). `add` and its kin read their own options (shell/config-commands.ts): a
// server's command after `--` is passed through whole.
import { parseArgs } from "node:util";

export const USAGE = `Usage: pi-mcp-proxy [--config <file>] <command>
  status [--check]       servers and their state (--check: start each and say how it went)
  list                   the configured servers: where each is defined, what it runs
  list <server>          one server's tools (--instructions: its whole instructions)
  search <words...>      find tools (words OR'd; --regex for a pattern)
  describe <tool>        one tool's description and parameters
  call <tool> ['<json>'] call a tool with JSON arguments (progress on stderr; Ctrl-C cancels)
  add <name> [options] -- <command> [args...]
  add <name> [options] <url>      add a server to ~/.pi/agent/mcp.json (-l: .pi/mcp.json), as \`pi mcp add\`
                         options: --env K=V, --cwd <dir>, --header K=V, --bearer-token-env-var <NAME>,
                         --exposure <mode>, --description <text>, --oauth-client-id <id>, ...
  remove <name> [-l]     remove a server from ~/.pi/agent/mcp.json (-l: .pi/mcp.json)
  get <name>             one server's entry: its file, what it runs, what else defines it, its state
  doctor                 check every config file and start every server; exit 0 only when all is well
  login <server>         sign in to a server with OAuth (prints the URL, waits for the browser)
  logout <server>        sign out: delete its tokens
  approve [server] [code] show this project's servers awaiting approval, with a code;
                         approve <code>: let exactly what was shown with it run
  deny [server]          keep this project's servers from running
  demo                   status, search, describe and call, one after another
Config: <agentDir>/mcp.json, .mcp.json and .pi/mcp.json, or only --config <file>.
Exit codes: 0 done, 1 failed (a call, a search with no match, a connect, a check), 2 usage, 130 Ctrl-C.`;

export interface Parsed {
	readonly configPath?: string;
	readonly regex: boolean;
	readonly check: boolean;
	readonly instructions: boolean;
	readonly command?: string;
	readonly rest: string[];
}

export function parseArgv(argv: readonly string[]): Parsed {
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

/**
 * The command and what follows it, untouched (for `add`, whose server command may carry options
 * of its own), past a leading `--config <file>`.
 */
export function commandWords(argv: readonly string[]): { configPath?: string; command?: string; rest: string[] } {
	let i = 0;
	let configPath: string | undefined;
	while (i < argv.length && argv[i].startsWith("--config")) {
		if (argv[i] === "--config") {
			configPath = argv[i + 1];
			i += 2;
		} else {
			configPath = argv[i].slice("--config=".length);
			i += 1;
		}
	}
	return { configPath, command: argv[i], rest: argv.slice(i + 1) };
}
