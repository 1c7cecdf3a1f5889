// `add` and `remove` from a shell, as Pi 1.5's `pi mcp add` and `pi mcp remove` take them (the same
// options, the same files: ~/.pi/agent/mcp.json, or with -l the project's .pi/mcp.json), so a file
// either writes the other reads; comments and layout are kept (config/add-remove.ts). Nothing is
// started: `get`, `doctor` or Pi itself starts what was added.
import { join } from "node:path";
import { addServer, removeServer } from "../config/add-remove.ts";
import { entryProblem, normalizeServer } from "../config.ts";
import { describeError } from "../errors.ts";
import { resolveAgentDir } from "../storage/agent-dir.ts";
import type { ConfigSource } from "../types.ts";
import { print, printError } from "./output.ts";

/** The commands that edit a file and start nothing. */
export const CONFIG_COMMANDS: ReadonlySet<string> = new Set(["add", "remove"]);

export interface ConfigCommandContext {
	readonly cwd: string;
	/** `--config <file>`: that file is edited, not Pi's. */
	readonly configPath?: string;
	readonly env?: Readonly<Record<string, string | undefined>>;
}

type OptionKind = "flag" | "value" | "list";

/** Pi 1.5's `pi mcp add` options, by name (and `--scope`, Claude Code's word for the same choice). */
const ADD_OPTIONS: Readonly<Record<string, OptionKind>> = {
	local: "flag",
	scope: "value",
	url: "value",
	env: "list",
	cwd: "value",
	header: "list",
	"bearer-token-env-var": "value",
	"oauth-client-id": "value",
	"oauth-client-secret": "value",
	"oauth-callback-port": "value",
	"oauth-client-name": "value",
	"oauth-client-registration": "value",
	exposure: "value",
	description: "value",
};
const HTTP_ONLY = ["header", "bearer-token-env-var", ...Object.keys(ADD_OPTIONS).filter((o) => o.startsWith("oauth-"))];
const STDIO_ONLY = ["env", "cwd"];

interface Options {
	readonly positional: string[];
	readonly values: Map<string, string | true>;
	readonly lists: Map<string, string[]>;
}

/** A usage error: the command line is wrong (exit 2), said with what to write instead. */
class UsageError extends Error {}

/**
 * `--name value` options as Pi reads them: `--` ends them, and so does the server's command (the
 * first positional after the name), whose own options pass through whole. `-l` is `--local`.
 */
function parseOptions(
	args: readonly string[],
	known: Readonly<Record<string, OptionKind>>,
	maxPositionals: number,
	lenient = false,
) {
	const options: Options = { positional: [], values: new Map(), lists: new Map() };
	for (let i = 0; i < args.length; i++) {
		const arg = args[i] === "-l" ? "--local" : args[i];
		if (arg === "--" || options.positional.length >= maxPositionals) {
			options.positional.push(...args.slice(arg === "--" ? i + 1 : i));
			break;
		}
		if (!arg.startsWith("--")) {
			options.positional.push(arg);
			continue;
		}
		const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
		const kind = known[name];
		if (!kind && lenient) continue; // a first look for the positionals only
		if (!kind) throw new UsageError(`unknown option ${args[i]}`);
		if (kind === "flag") {
			options.values.set(name, true);
			continue;
		}
		const value = inline ?? args[++i];
		if (value === undefined) throw new UsageError(`--${name} needs a value`);
		if (kind === "list") options.lists.set(name, [...(options.lists.get(name) ?? []), value]);
		else options.values.set(name, value);
	}
	return options;
}

/** `add` or `remove`: the exit code (0 done, 1 the file could not be changed or named no such server, 2 usage). */
export async function configCommand(command: string, args: readonly string[], context: ConfigCommandContext) {
	try {
		return command === "add" ? await add(args, context) : await remove(args, context);
	} catch (error) {
		if (error instanceof UsageError) {
			printError(`${command}: ${error.message}.\n${command === "add" ? ADD_USAGE : REMOVE_USAGE}\n`);
			return 2;
		}
		printError(`${describeError(error)}\n`);
		return 1;
	}
}

const ADD_USAGE = `Usage: pi-mcp-proxy add <name> [options] -- <command> [args...]
       pi-mcp-proxy add <name> [options] <url>      (or --url <url>)
Options: -l/--local (or --scope project): the project's .pi/mcp.json instead of ~/.pi/agent/mcp.json;
  --env K=V, --cwd <dir> (a command); --header K=V, --bearer-token-env-var <NAME>, --oauth-client-id <id>,
  --oauth-client-secret <secret>, --oauth-callback-port <port>, --oauth-client-name <name>,
  --oauth-client-registration auto|cimd|dcr (a URL); --exposure codemode|deferred|direct|hidden, --description <text>.`;
const REMOVE_USAGE = "Usage: pi-mcp-proxy remove <name> [-l]";

/** The file a command writes, and the scope it is for. */
function target(options: Options, context: ConfigCommandContext): { file: string; scope: ConfigSource["scope"] } {
	const scope = options.values.get("scope");
	if (scope !== undefined && scope !== "user" && scope !== "project")
		throw new UsageError(`--scope is "user" (~/.pi/agent/mcp.json) or "project" (.pi/mcp.json), not "${scope}"`);
	if (context.configPath) return { file: context.configPath, scope: "user" };
	const project = options.values.has("local") || scope === "project";
	return project
		? { file: join(context.cwd, ".pi", "mcp.json"), scope: "project" }
		: { file: join(resolveAgentDir(context.env), "mcp.json"), scope: "user" };
}

async function add(args: readonly string[], context: ConfigCommandContext): Promise<number> {
	// A command's own options pass through after its first word; a URL takes none, so options may follow it.
	const byUrl = parseOptions(args, ADD_OPTIONS, Number.POSITIVE_INFINITY, true);
	const options = isUrl(byUrl.positional[1] ?? "") && !args.includes("--") ? byUrl : parseOptions(args, ADD_OPTIONS, 2);
	const [name, ...command] = options.positional;
	const urlOption = options.values.get("url");
	// `add <name> <url>`: one word that is an address is a remote server, as Claude Code's `mcp add` reads it.
	const url =
		typeof urlOption === "string" ? urlOption : command.length === 1 && isUrl(command[0]) ? command[0] : undefined;
	if (!name) throw new UsageError("it needs a server name");
	if (url !== undefined ? command.length > (urlOption ? 0 : 1) : command.length === 0)
		throw new UsageError("give either a command (after --) or a URL");
	const misplaced = (url === undefined ? HTTP_ONLY : STDIO_ONLY).find(
		(o) => options.values.has(o) || options.lists.has(o),
	);
	if (misplaced)
		throw new UsageError(`--${misplaced} is for ${url === undefined ? "a remote server (a URL)" : "a command"}`);
	const entry = url === undefined ? stdioEntry(command, options) : httpEntry(url, options);
	const exposure = options.values.get("exposure");
	if (typeof exposure === "string") entry.exposure = exposure;
	const description = options.values.get("description");
	if (typeof description === "string") entry.description = description;
	const { file, scope } = target(options, context);
	const notes = check(
		name,
		entry,
		{ path: file, scope, kind: scope === "project" ? "pi-project" : "pi-global" },
		context,
	);
	const done = await addServer(file, name, entry);
	print(`${done === "added" ? "Added" : "Replaced"} "${name}" in ${file}.\n`);
	for (const note of notes) printError(`warning: ${note}\n`);
	if (scope === "project")
		print(`A project's server runs after you approve it: pi-mcp-proxy approve ${name}, or in Pi's /mcp.\n`);
	const signIn =
		url !== undefined && !Object.keys(entry.headers ?? {}).some((h) => h.toLowerCase() === "authorization");
	print(
		`Check it with: pi-mcp-proxy get ${name}${signIn ? `. If it needs sign-in: pi-mcp-proxy login ${name}` : ""}\n`,
	);
	return 0;
}

interface WrittenEntry extends Record<string, unknown> {
	headers?: Record<string, string>;
	exposure?: string;
	description?: string;
}

function stdioEntry(command: readonly string[], options: Options): WrittenEntry {
	const env = pairs("env", options.lists.get("env"));
	const cwd = options.values.get("cwd");
	const [executable, ...args] = command;
	return {
		command: executable,
		...(args.length > 0 ? { args } : {}),
		...(Object.keys(env).length > 0 ? { env } : {}),
		...(typeof cwd === "string" ? { cwd } : {}),
	};
}

function httpEntry(url: string, options: Options): WrittenEntry {
	const headers = pairs("header", options.lists.get("header"));
	const value = (name: string) => {
		const found = options.values.get(name);
		return typeof found === "string" ? found : undefined;
	};
	const bearer = value("bearer-token-env-var");
	if (bearer !== undefined) headers.Authorization = `Bearer \${${bearer}}`;
	const port = value("oauth-callback-port");
	if (port !== undefined && !/^\d+$/.test(port))
		throw new UsageError(`--oauth-callback-port is a port number, not "${port}"`);
	const oauth = {
		...(value("oauth-client-id") === undefined ? {} : { clientId: value("oauth-client-id") }),
		...(value("oauth-client-secret") === undefined ? {} : { clientSecret: value("oauth-client-secret") }),
		...(port === undefined ? {} : { callbackPort: Number(port) }),
		...(value("oauth-client-name") === undefined ? {} : { clientName: value("oauth-client-name") }),
		...(value("oauth-client-registration") === undefined
			? {}
			: { clientRegistration: value("oauth-client-registration") }),
	};
	return {
		url,
		...(Object.keys(headers).length > 0 ? { headers } : {}),
		...(Object.keys(oauth).length > 0 ? { oauth } : {}),
	};
}

/** `KEY=VALUE` words of a repeatable option. */
function pairs(option: string, words: readonly string[] = []): Record<string, string> {
	const record: Record<string, string> = {};
	for (const word of words) {
		const at = word.indexOf("=");
		if (at <= 0) throw new UsageError(`--${option} takes KEY=VALUE, not "${word}"`);
		record[word.slice(0, at)] = word.slice(at + 1);
	}
	return record;
}

function isUrl(word: string): boolean {
	return /^https?:\/\/\S+$/i.test(word);
}

/**
 * The entry checked as a session will read it: a wrong field, type or value refuses it (usage);
 * what only this shell lacks (a `${VAR}` not set here) is written, with a warning.
 */
function check(name: string, entry: WrittenEntry, source: ConfigSource, context: ConfigCommandContext): string[] {
	const warnings: string[] = [];
	const problem = entryProblem(name, entry, source, context.cwd, warnings);
	if (problem) throw new UsageError(`the entry for "${name}" ${problem}`);
	const here = normalizeServer(name, entry, source, { env: context.env ?? process.env, cwd: context.cwd }, []);
	if (here.kind === "invalid") warnings.push(`${here.reason} in this shell; the server needs it when it starts`);
	return warnings;
}

async function remove(args: readonly string[], context: ConfigCommandContext): Promise<number> {
	const options = parseOptions(args, { local: "flag", scope: "value" }, Number.POSITIVE_INFINITY);
	const [name, ...extra] = options.positional;
	if (!name || extra.length > 0) throw new UsageError(name ? "it takes one server name" : "it needs a server name");
	const { file, scope } = target(options, context);
	if (await removeServer(file, name)) {
		print(`Removed "${name}" from ${file}.\n`);
		return 0;
	}
	const other =
		scope === "project" ? "without -l (your own ~/.pi/agent/mcp.json)" : "with -l (the project's .pi/mcp.json)";
	printError(
		`No server "${name}" in ${file}. pi-mcp-proxy get ${name} says where it is defined; remove it ${other}, or turn it off with /mcp disable ${name}.\n`,
	);
	return 1;
}
