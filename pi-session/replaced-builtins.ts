// Pi 1.x's built-in `mcp` and `tool-search`, which this extension replaces: while Pi's settings
// leave them on, Pi warns at every start (two warnings in `pi -p`, four blocks in the TUI) and
// tells the user to remove the extension. An extension cannot prevent that: Pi's resource loader
// writes the warnings after every extension has registered, from the names they registered
// (resource-loader.js, omitReplacedExtensions). Only the settings can, as `pi config` sets them.
// So the first session says it once: in the TUI a question that switches them off for the user
// (Enter: yes); elsewhere (print, json, rpc, whose client may answer dialogs for no one) one line
// naming `pi config`. The answer (or the line) is remembered in <agentDir>/mcp-proxy-notices.json,
// and never asked or said again; a line already said still leaves the TUI's question to ask.
import { join } from "node:path";
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { describeError } from "../errors.ts";
import { readJsonFile, updateJsonFile } from "../storage/locked-json.ts";
import { listSetting, type PiSettingsFile, piSettingsFiles, updatePiSetting } from "./pi-settings.ts";

/** The built-in extensions this one replaces on Pi 1.x (it registers `/mcp`, `mcp` and `tool_search`). */
export const REPLACED_BUILTINS = ["mcp", "tool-search"] as const;

export const NOTICES_FILE = "mcp-proxy-notices.json";
/** `told`: the line without a UI was printed; `asked`: the question was answered (either way). */
type Told = "told" | "asked";

const builtinPath = (name: string) => `builtin:${name}`;
const target = (entry: string) => (/^[!+-]/.test(entry) ? entry.slice(1) : entry);

/** Whether a built-in is on by these settings, by Pi's rules: the user's `!`, `+` then `-` entries; a project's entry decides over them. */
function builtinOn(name: string, user: readonly string[], project: readonly string[]): boolean {
	const path = builtinPath(name);
	const inProject = project.filter((entry) => /^[!+-]/.test(entry) && target(entry) === path).pop();
	if (inProject) return inProject.startsWith("+");
	let on = true;
	if (user.includes(`!${path}`)) on = false;
	if (user.includes(`+${path}`)) on = true;
	if (user.includes(`-${path}`)) on = false;
	return on;
}

/**
 * The replaced built-ins Pi's settings leave on for this run (and so warns about). None when the
 * command line loads no extensions from the settings (`--no-extensions`): then Pi loads none of them.
 */
export function builtinsLeftOn(argv: readonly string[], files: readonly PiSettingsFile[]): string[] {
	if (argv.includes("--no-extensions") || argv.includes("-ne")) return [];
	const entries = (scope: PiSettingsFile["scope"]) =>
		listSetting(files.find((file) => file.scope === scope)?.settings, "extensions").filter(
			(entry): entry is string => typeof entry === "string",
		);
	return REPLACED_BUILTINS.filter((name) => builtinOn(name, entries("user"), entries("project")));
}

/** Turns the built-ins off in the user's settings as `pi config` does: their entries replaced by `-builtin:<name>`. */
export async function switchOff(settingsPath: string, names: readonly string[]): Promise<void> {
	const paths = names.map(builtinPath);
	await updatePiSetting(settingsPath, "extensions", (current) => [
		...(Array.isArray(current) ? current : []).filter(
			(entry) => typeof entry !== "string" || !paths.includes(target(entry)),
		),
		...paths.map((path) => `-${path}`),
	]);
}

const quoted = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(" and ");

/** The one line without a UI. */
export function offLine(names: readonly string[]): string {
	return `pi-mcp-proxy replaces Pi's built-in ${quoted(names)}, so Pi warns at each start that ${names.length > 1 ? "they were" : "it was"} not loaded; nothing is wrong. To stop the warnings, run \`pi config\` and switch ${names.length > 1 ? "them" : "it"} off under Built-in extensions.`;
}

/**
 * At a session's start on Pi 1.x: says once, the first time the replaced built-ins are on, why Pi
 * warns and how to stop it; in the TUI, asks and switches them off. Runs in the background: the
 * start does not wait for the answer.
 */
export function offerToSwitchOff(
	ctx: ExtensionContext,
	argv: readonly string[],
	agentDir: string,
	/** Hears each write of the notices file, which the session's end waits for (`pi -p` exits right after). */
	keepUntilEnd: (work: Promise<unknown>) => void = () => {},
): void {
	const files = piSettingsFiles(agentDir, ctx.cwd);
	const names = builtinsLeftOn(argv, files);
	if (names.length === 0) return;
	const noticesFile = join(agentDir, NOTICES_FILE);
	const notices = readJsonFile(noticesFile);
	const told = notices && typeof notices === "object" ? (notices as { builtins?: Told }).builtins : undefined;
	const tui = (ctx as { mode?: string }).mode === "tui";
	if (told === "asked" || (told === "told" && !tui)) return;
	const remember = (builtins: Told) => {
		const work = updateJsonFile(
			noticesFile,
			(raw) => (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>,
			(current) => ({ ...current, builtins }),
		);
		// Swallowed: a note that could not be saved is only said again at the next start.
		keepUntilEnd(work.catch(() => {}));
		return work;
	};
	if (!tui) {
		if (ctx.hasUI) ctx.ui.notify(offLine(names), "info");
		else console.error(offLine(names));
		remember("told").catch(() => {}); // told at the next start instead (above)
		return;
	}
	const user = files[0].path;
	void ask(ctx, names, user).then(
		() => remember("asked"),
		(error) =>
			ctx.ui.notify(
				`pi-mcp-proxy could not switch them off: ${describeError(error)}. Run \`pi config\` instead.`,
				"warning",
			),
	);
}

async function ask(ctx: ExtensionContext, names: readonly string[], settingsPath: string): Promise<void> {
	const yes = await ctx.ui.confirm(
		`Switch off Pi's built-in ${quoted(names)}?`,
		`pi-mcp-proxy replaces ${names.length > 1 ? "them" : "it"}, and Pi warns at every start while ${names.length > 1 ? "they are" : "it is"} on. Switching off (as \`pi config\` does, in ${settingsPath}) stops the warnings from the next start. If you remove pi-mcp-proxy, switch ${names.length > 1 ? "them" : "it"} on again with \`pi config\`.`,
	);
	if (!yes) {
		ctx.ui.notify("Not asked again: `pi config` switches them off under Built-in extensions.", "info");
		return;
	}
	await switchOff(settingsPath, names);
	ctx.ui.notify(
		`Pi's built-in ${quoted(names)} ${names.length > 1 ? "are" : "is"} off from the next start (\`pi config\` switches them on again).`,
		"info",
	);
}
