// Servers' prompts as Pi slash commands: `/<server>:<prompt> args`. Arguments go by name
// (`city=Paris`, quotes for spaces) or in order; the last one takes the rest of the line. Missing
// required arguments are asked for in the UI. Completion of argument values comes from the
// server (completion/complete). Running one puts the prompt's messages into the conversation as
// the user's next message. Prompts known from the cache are registered at session start, others
// as servers list them (Pi's autocomplete then shows them from the next start).
import type { ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import type { GetPromptResult } from "@modelcontextprotocol/client";
import { plain } from "../client/user-dialogs.ts";
import { describeError } from "../errors.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { convertResult, type PiContent } from "../proxy/tool-results.ts";
import { oneLine } from "../trust/safe-text.ts";
import type { PromptArgument, PromptMetadata } from "../types.ts";

/** How long completion may take while the user types: a slow server shows no suggestions, not a stall. */
const COMPLETION_MS = 2000;

/**
 * Command prefixes a server name must not take: Pi's own namespaces (`/skill:<name>` runs a skill)
 * and its built-in commands. A server named so gets `mcp-<name>:` instead.
 */
const RESERVED_PREFIXES = new Set([
	"skill",
	"template",
	"prompt",
	"mcp",
	"mcp-auth",
	"settings",
	"model",
	"login",
	"logout",
	"new",
	"reload",
	"quit",
	"trust",
]);

/** `/<server>:<prompt>`: only letters, digits, `_`, `.` and `-` (a name cannot carry terminal sequences), never in Pi's namespaces. */
export function promptCommandName(server: string, prompt: string): string {
	const safe = (text: string) => text.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "") || "unnamed";
	const prefix = safe(server);
	return `${RESERVED_PREFIXES.has(prefix.toLowerCase()) ? `mcp-${prefix}` : prefix}:${safe(prompt)}`;
}

/** `(city, state?)`: a prompt's arguments as its usage shows them. */
export function promptUsage(prompt: PromptMetadata): string {
	return prompt.arguments.map((a) => (a.required ? a.name : `${a.name}?`)).join(" ");
}

/** A registered prompt command, as a start-up snapshot keeps it. */
export interface PromptCommandRecord {
	readonly name: string;
	readonly description: string;
	readonly server: string;
	readonly prompt: string;
}

export class PromptCommands {
	private readonly registered = new Map<string, PromptCommandRecord>();
	/** Commands waiting for the turn their prompt started to end (print and json modes). */
	private readonly turnWaiters: (() => void)[] = [];

	constructor(
		private readonly pi: ExtensionAPI,
		/** The session's runtime, built first if it is not yet (a start from a snapshot builds it at first use). */
		private readonly runtime: () => Promise<McpRuntime | undefined>,
		private readonly say: (ctx: ExtensionCommandContext, text: string, level?: "info" | "warning" | "error") => void,
	) {
		const release = () => {
			for (const done of this.turnWaiters.splice(0)) done();
		};
		pi.on("agent_end", release);
		pi.on("session_shutdown", release);
	}

	/** Registers a command for each prompt of each server that may run, unless already registered. */
	sync(active: McpRuntime): void {
		for (const server of active.lifecycle.serverNames()) {
			if (active.lifecycle.blocked(server)) continue;
			for (const prompt of active.lifecycle.prompts(server)) {
				const name = promptCommandName(server, prompt.name);
				if (this.registered.has(name)) continue;
				this.register({
					name,
					description: oneLine(
						`${prompt.description || prompt.title || `Prompt "${prompt.name}"`} (MCP ${server}${prompt.arguments.length > 0 ? `: ${promptUsage(prompt)}` : ""})`,
					),
					server,
					prompt: prompt.name,
				});
			}
		}
	}

	/** The commands registered now, for a start-up snapshot. */
	state(): PromptCommandRecord[] {
		return [...this.registered.values()];
	}

	/** Registers the commands a start-up snapshot kept. */
	restore(records: readonly PromptCommandRecord[]): void {
		for (const record of records) if (!this.registered.has(record.name)) this.register(record);
	}

	private register(record: PromptCommandRecord): void {
		const { name, description, server, prompt } = record;
		this.registered.set(name, record);
		this.pi.registerCommand(name, {
			description,
			getArgumentCompletions: (prefix) => this.complete(server, prompt, prefix),
			handler: (args, ctx) => this.run(server, prompt, args, ctx),
		});
	}

	private async current(
		server: string,
		name: string,
	): Promise<{ runtime: McpRuntime; prompt: PromptMetadata } | undefined> {
		const runtime = await this.runtime();
		const prompt = runtime?.lifecycle.prompts(server).find((p) => p.name === name);
		return runtime && prompt ? { runtime, prompt } : undefined;
	}

	private async run(server: string, name: string, args: string, ctx: ExtensionCommandContext): Promise<void> {
		const found = await this.current(server, name);
		if (!found) return this.say(ctx, `"${server}" does not offer the prompt "${name}" now (see /mcp).`, "warning");
		const { runtime, prompt } = found;
		const values = assignArguments(args, prompt.arguments);
		for (const arg of prompt.arguments.filter((a) => a.required && values[a.name] === undefined)) {
			if (!ctx.hasUI) {
				return this.say(
					ctx,
					`/${promptCommandName(server, name)} needs ${arg.name}. Usage: /${promptCommandName(server, name)} ${promptUsage(prompt)}`,
					"error",
				);
			}
			const answer = await ctx.ui.input(
				// A server's description, cut so the question and its input field always fit on the screen.
				plain(
					oneLine(`/${promptCommandName(server, name)}: ${arg.name}${arg.description ? ` (${arg.description})` : ""}`),
					300,
				),
			);
			if (answer === undefined) return;
			values[arg.name] = answer;
		}
		try {
			await runtime.lifecycle.ensureConnected(server, ctx.signal);
			const result = await runtime.lifecycle.getPrompt(server, name, values, { signal: ctx.signal });
			const content = promptContent(result, convertResult, (data, uri) => runtime.output.saveBlob(data, uri));
			if (!ctx.isIdle()) return this.pi.sendUserMessage(content, { deliverAs: "followUp" });
			// `pi -p "/server:prompt"` (print, json) ends once the command returns: Pi 1.5 would exit
			// before the turn the prompt starts. Without a UI the command lasts until that turn ends.
			const turnEnded = ctx.hasUI ? undefined : new Promise<void>((resolve) => this.turnWaiters.push(resolve));
			this.pi.sendUserMessage(content);
			await turnEnded;
		} catch (error) {
			this.say(
				ctx,
				`/${promptCommandName(server, name)} failed: ${runtime.redactor.scrub(describeError(error))}`,
				"error",
			);
		}
	}

	private async complete(server: string, name: string, prefix: string) {
		const found = await this.current(server, name);
		if (!found || found.runtime.lifecycle.blocked(server)) return null;
		const { runtime, prompt } = found;
		const at = argumentAt(prefix, prompt.arguments);
		if (!at) return null;
		const stop = AbortSignal.timeout(COMPLETION_MS);
		try {
			await runtime.lifecycle.ensureConnected(server, stop);
			const values = await runtime.lifecycle.complete(
				server,
				{ type: "ref/prompt", name },
				{ name: at.argument.name, value: at.partial },
				at.assigned,
				{ signal: stop, timeoutMs: COMPLETION_MS },
			);
			// Drawn in the autocomplete list: the server's words, without terminal sequences.
			return values.slice(0, 50).map((value) => ({
				value: `${at.head}${quoted(oneLine(value))}`,
				label: oneLine(value),
				description: oneLine(at.argument.name),
			}));
		} catch {
			return null;
		}
	}
}

/** The words of an argument line: whitespace separates, "double" or 'single' quotes keep spaces. */
export function splitWords(line: string): { words: string[]; starts: number[] } {
	const words: string[] = [];
	const starts: number[] = [];
	const pattern = /([^\s"'=]+=)?(?:"([^"]*)"?|'([^']*)'?|(\S+))/g;
	for (const match of line.matchAll(pattern)) {
		words.push(`${match[1] ?? ""}${match[2] ?? match[3] ?? match[4] ?? ""}`);
		starts.push(match.index ?? 0);
	}
	return { words, starts };
}

/**
 * Arguments from a command line: `name=value` for a known name, the other words in order to the
 * arguments not named; extra words join the last of them (free text).
 */
export function assignArguments(line: string, args: readonly PromptArgument[]): Record<string, string> {
	const values: Record<string, string> = {};
	const loose: string[] = [];
	for (const word of splitWords(line).words) {
		const eq = word.indexOf("=");
		const name = eq > 0 ? word.slice(0, eq) : "";
		if (args.some((a) => a.name === name)) values[name] = word.slice(eq + 1);
		else loose.push(word);
	}
	const open = args.filter((a) => values[a.name] === undefined);
	open.forEach((arg, i) => {
		const words = i === open.length - 1 ? loose.splice(0) : loose.splice(0, 1);
		if (words.length > 0) values[arg.name] = words.join(" ");
	});
	return values;
}

/** The argument being typed at the end of `prefix`, what is typed of it, and what comes before it. */
function argumentAt(prefix: string, args: readonly PromptArgument[]) {
	if (args.length === 0) return undefined;
	const { words, starts } = splitWords(prefix);
	const typing = words.length > 0 && !/\s$/.test(prefix);
	const done = typing ? words.slice(0, -1) : words;
	const assigned = assignArguments(done.join(" "), args);
	const last = typing ? words[words.length - 1] : "";
	const eq = last.indexOf("=");
	const named = eq > 0 ? args.find((a) => a.name === last.slice(0, eq)) : undefined;
	const argument = named ?? args.find((a) => assigned[a.name] === undefined) ?? args[args.length - 1];
	const partial = named ? last.slice(eq + 1) : last;
	const head = `${typing ? prefix.slice(0, starts[starts.length - 1]) : prefix}${named ? `${named.name}=` : ""}`;
	return { argument, partial, head, assigned };
}

const quoted = (value: string) => (/[\s"']/.test(value) ? `"${value.replace(/"/g, "'")}"` : value);

/** A prompt's messages as one user message: each message's content, the assistant's marked as such. */
export function promptContent(
	result: GetPromptResult,
	convert: typeof convertResult,
	saveBlob: (data: string, uri: string | undefined) => string,
): PiContent[] {
	const content: PiContent[] = [];
	for (const message of result.messages) {
		const converted = convert(
			{ content: [message.content] },
			{ saveBlob: (data, _mime, uri) => saveBlob(data, uri) },
		).content;
		if (message.role === "assistant") content.push({ type: "text", text: "(assistant, from the prompt:)" });
		content.push(...converted);
	}
	return content.length > 0 ? content : [{ type: "text", text: "(the prompt is empty)" }];
}
