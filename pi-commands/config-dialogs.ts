// The config changed from inside Pi, where pi-mcp-adapter 2.36 users look for it: `/mcp setup`
// adds a server through dialogs (the add flow of `pi-mcp-proxy add`: a name, a command or a URL,
// your own file or the project's), `/mcp edit` opens a Pi config file in Pi's editor dialog and
// saves it only once it parses. Without dialogs (`pi -p`) each says how to do the same from a shell.
import type { ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { addServer } from "../config/add-remove.ts";
import { editableFiles, writeWhole } from "../config/edit.ts";
import { inFile, parseJsonc } from "../config/jsonc-file.ts";
import { entryProblem } from "../config.ts";
import { describeError } from "../errors.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { readTextFile } from "../storage/file-guard.ts";
import { type CommandDeps, say } from "./command-io.ts";

const SHELL_ADD =
	"From a shell: pi-mcp-proxy add <name> -- <command> [args...], or pi-mcp-proxy add <name> <url> (-l: this project's .pi/mcp.json).";

/** `/mcp setup`: a server added through dialogs, saved as `pi mcp add` saves it, the config applied again. */
export async function setupCommand(ctx: ExtensionCommandContext, runtime: McpRuntime, deps: CommandDeps) {
	const files = editableFiles(runtime.agentDir, runtime.cwd);
	if (!ctx.hasUI) return say(ctx, runtime, `Add an MCP server. ${SHELL_ADD} Or edit ${files.user}.`);
	const name = (await ctx.ui.input("Add an MCP server: its name", "github"))?.trim();
	if (!name) return;
	const launch = (
		await ctx.ui.input(`How "${name}" starts: a command with its arguments, or its URL`, "npx -y some-mcp-server")
	)?.trim();
	if (!launch) return;
	const own = `Your own: ${files.user}`;
	const where = await ctx.ui.select(`Save "${name}" in`, [own, `This project: ${files.project}`]);
	if (!where) return;
	const file = where === own ? files.user : files.project;
	const url = /^https?:\/\/\S+$/i.test(launch);
	const [command, ...args] = url ? [] : shellWords(launch);
	const entry = url ? { url: launch } : { command, ...(args.length > 0 ? { args } : {}) };
	const problem = entryProblem(name, entry, { kind: "pi-global", scope: "user", path: file }, runtime.cwd);
	if (problem) return say(ctx, runtime, `Not added: "${name}" ${problem}.`, "error");
	try {
		const done = await addServer(file, name, entry);
		await deps.reload?.(ctx);
		const next =
			file === files.project
				? ` It runs after you approve it: /mcp approve ${name}.`
				: url
					? ` If it needs sign-in: /mcp-auth ${name}.`
					: "";
		say(
			ctx,
			runtime,
			`${done === "added" ? "Added" : "Replaced"} "${name}" (saved in ${file}). MCP reloaded its config.${next}`,
		);
	} catch (error) {
		say(ctx, runtime, `Not added: ${describeError(error)}`, "error");
	}
}

/** A command line's words, as a shell splits them: blanks separate, quotes group, a backslash escapes. */
export function shellWords(line: string): string[] {
	const words: string[] = [];
	let word: string | undefined;
	let quote: string | undefined;
	for (let i = 0; i < line.length; i++) {
		const c = line[i];
		if (quote) {
			if (c === quote) quote = undefined;
			else if (c === "\\" && quote === '"' && i + 1 < line.length) word += line[++i];
			else word += c;
		} else if (c === "'" || c === '"') {
			quote = c;
			word ??= "";
		} else if (c === "\\" && i + 1 < line.length) word = (word ?? "") + line[++i];
		else if (/\s/.test(c)) {
			if (word !== undefined) words.push(word);
			word = undefined;
		} else word = (word ?? "") + c;
	}
	if (word !== undefined) words.push(word);
	return words;
}

/**
 * `/mcp edit [server]`: the Pi file that defines the server (or your own) in Pi's editor dialog;
 * saved when it parses (a mistake is named and the text offered again), then the config applied.
 */
export async function editCommand(
	ctx: ExtensionCommandContext,
	runtime: McpRuntime,
	server: string | undefined,
	deps: CommandDeps,
): Promise<void> {
	const files = editableFiles(runtime.agentDir, runtime.cwd);
	const defined = server ? runtime.config.servers.get(server)?.source.path : undefined;
	if (defined && defined !== files.user && defined !== files.project)
		return say(
			ctx,
			runtime,
			`"${server}" is defined in ${defined}, which is not Pi's own config: edit it there.`,
			"warning",
		);
	const file = defined ?? files.user;
	if (!ctx.hasUI) return say(ctx, runtime, `The MCP config: ${file}. Edit it, then /reload. ${SHELL_ADD}`);
	const read = readTextFile(file);
	if (read.kind === "error") return say(ctx, runtime, `${file} cannot be read: ${read.message}`, "error");
	let text = read.kind === "ok" ? read.text : '{\n  "mcpServers": {}\n}\n';
	let title = `Edit ${file}`;
	for (;;) {
		const edited = await ctx.ui.editor(title, text);
		if (edited === undefined || edited === text) return say(ctx, runtime, `${file}: not changed.`);
		const parsed = parseJsonc(edited);
		if (parsed.kind === "ok") {
			await writeWhole(file, edited);
			await deps.reload?.(ctx);
			return say(ctx, runtime, `Saved ${file}. MCP reloaded its config.`);
		}
		// The user's text is offered again with what is wrong in it: nothing they typed is lost.
		text = edited;
		title = `Not saved: ${inFile(file, parsed.message)}. Fix it, or close without changes.`;
	}
}
