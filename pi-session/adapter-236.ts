// pi-mcp-adapter (2.36, another author's MCP extension) still installed beside this one: both
// register the `mcp` tool, and Pi stops at its start when two extensions register one tool name
// ("Tool "mcp" conflicts with ...", exit 1, before any model call). This one stands down: it
// registers no tool, so the session starts with pi-mcp-adapter serving the servers, and says once,
// at the session's start, why, and the command that removes the other. Found where Pi finds it
// before any extension loads: the packages of Pi's settings (the user's and the project's) and
// `-e` on the command line.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { listSetting, type PiSettingsFile } from "./pi-settings.ts";

const ADAPTER = "pi-mcp-adapter";

/** Where Pi loads pi-mcp-adapter from: a package of a settings file, or an `-e` of this run. */
export type AdapterFound =
	| { readonly from: "settings"; readonly source: string; readonly scope: PiSettingsFile["scope"] }
	| { readonly from: "command line"; readonly source: string };

/**
 * A package source that is pi-mcp-adapter (npm, git, or a folder relative to `dir`), as `pi remove`
 * takes it from any folder (a folder by its whole path); undefined for any other package.
 */
function adapterSource(source: string, dir: string): string | undefined {
	if (new RegExp(`^npm:${ADAPTER}(@|$)`).test(source)) return source;
	if (/^(git:|git\+|https?:|ssh:|git@)/.test(source))
		return new RegExp(`/${ADAPTER}(\\.git)?(@[^/]*)?$`).test(source) ? source : undefined;
	const folder = source.startsWith("~/") ? join(homedir(), source.slice(2)) : resolve(dir, source);
	try {
		const { name } = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { name?: unknown };
		return name === ADAPTER ? folder : undefined;
	} catch {
		return undefined; // not a folder with a package: not the adapter
	}
}

/** pi-mcp-adapter as this run of Pi loads it, if it does. A package whose extensions the settings switch off is not loaded. */
export function findAdapter(
	files: readonly PiSettingsFile[],
	argv: readonly string[],
	cwd: string,
): AdapterFound | undefined {
	const noSettings = argv.includes("--no-extensions") || argv.includes("-ne");
	for (const file of noSettings ? [] : files) {
		for (const entry of listSetting(file.settings, "packages")) {
			const pkg = (typeof entry === "string" ? { source: entry } : entry) as { source?: unknown; extensions?: unknown };
			if (typeof pkg?.source !== "string") continue;
			if (Array.isArray(pkg.extensions) && pkg.extensions.length === 0) continue;
			const source = adapterSource(pkg.source, file.dir);
			if (source) return { from: "settings", source, scope: file.scope };
		}
	}
	const loaded = argv.flatMap((arg, i) =>
		(arg === "-e" || arg === "--extension") && argv[i + 1] ? [argv[i + 1]] : [],
	);
	const source = loaded.find((path) => adapterSource(path, cwd));
	return source ? { from: "command line", source } : undefined;
}

/** The one message: the reason first, then the command that removes the other extension. */
export function standDownLine(found: AdapterFound): string {
	const fix =
		found.from === "settings"
			? `To use pi-mcp-proxy, remove it: pi remove ${found.source}${found.scope === "project" ? " -l" : ""}`
			: `To use pi-mcp-proxy, start Pi without -e ${found.source}`;
	return `pi-mcp-proxy is off in this session: ${ADAPTER} is installed too, and Pi stops at its start when two extensions register the same \`mcp\` tool, so ${ADAPTER} serves your MCP servers. ${fix}`;
}

/** True when pi-mcp-adapter is loaded too: registers only the message that says so, at the session's start. */
export function standsDownForAdapter(pi: ExtensionAPI, found: AdapterFound | undefined): boolean {
	if (!found) return false;
	const line = standDownLine(found);
	pi.on("session_start", (_event, ctx) => {
		if (ctx.hasUI) ctx.ui.notify(line, "warning");
		else console.error(line);
	});
	return true;
}
