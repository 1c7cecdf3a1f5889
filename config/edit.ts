// Turning a server on or off from /mcp, as Pi 1.5's /mcp does: the change is saved to a Pi config
// file (off: the user's own ~/.pi/agent/mcp.json; on: that file, or the project's .pi/mcp.json
// that turned it off), keeping its comments and layout. Other tools' files (Cursor, Claude,
// VS Code...) and a repository's .mcp.json are never edited.
import { statSync } from "node:fs";
import { join } from "node:path";
import { readTextFile, writeFileAtomic } from "../storage/file-guard.ts";
import { withFileLock } from "../storage/locked-json.ts";
import type { McpConfig } from "../types.ts";
import { jsoncParser } from "./jsonc-file.ts";

/** The files this command may write: Pi's own, never a repository's .mcp.json or another tool's. */
export interface EditableFiles {
	readonly user: string;
	readonly project: string;
}

export function editableFiles(agentDir: string, cwd: string): EditableFiles {
	return { user: join(agentDir, "mcp.json"), project: join(cwd, ".pi", "mcp.json") };
}

/**
 * Turns a running-or-runnable server off. A server the user's file defines gets `"enabled": false`
 * there; one from an import or another extension gets an entry `{ "enabled": false }` in the
 * user's file, which hides it. Returns what was done, or throws saying what to do instead.
 */
export async function turnOff(config: McpConfig, name: string, files: EditableFiles): Promise<string> {
	const entry = config.servers.get(name);
	if (!entry)
		throw new Error(config.disabled?.has(name) ? `"${name}" is already turned off.` : `Unknown server "${name}".`);
	if (entry.source.scope === "project")
		throw new Error(`"${name}" comes from this project's config: /mcp deny ${name} keeps it from running.`);
	// A user-level server: defined in the user's file (which gets "enabled": false) or hidden from it.
	await edit(files.user, (text) => set(text, [name, "enabled"], false));
	return `Turned "${name}" off (saved in ${files.user}).`;
}

/** Turns a server back on: removes what turned it off, in the Pi file that says so. */
export async function turnOn(config: McpConfig, name: string, files: EditableFiles): Promise<string> {
	const file = config.disabled?.get(name);
	if (!file) throw new Error(config.servers.has(name) ? `"${name}" is already on.` : `Unknown server "${name}".`);
	if (file !== files.user && file !== files.project)
		throw new Error(
			`"${name}" is turned off in ${file}, which /mcp does not edit (it is not Pi's own config): turn it on there.`,
		);
	await edit(file, (text) => {
		const raw =
			(jsoncParser().parse(text) as { mcpServers?: Record<string, Record<string, unknown>> } | undefined)?.mcpServers?.[
				name
			] ?? {};
		// An entry that only hid a server of that name goes; `{}` alone would be an incomplete server.
		if (Object.keys(raw).every((k) => k === "enabled" || k === "disabled")) return set(text, [name], undefined);
		return set(set(text, [name, "enabled"], undefined), [name, "disabled"], undefined);
	});
	return `Turned "${name}" on (saved in ${file}).`;
}

/** Sets (undefined: removes) a value under mcpServers, keeping the rest of the text as it was. */
function set(text: string, path: string[], value: unknown): string {
	const { applyEdits, modify } = jsoncParser();
	return applyEdits(
		text,
		modify(text, ["mcpServers", ...path], value, {
			formattingOptions: { insertSpaces: !/^\t/m.test(text), tabSize: 2 },
		}),
	);
}

/**
 * Reads, edits and writes the file under the lock every writer of it takes (eight /mcp commands at
 * once lose nothing), atomically and keeping its mode; a missing file starts empty, a broken one
 * is left alone, a symlink to it stays a symlink.
 */
function edit(file: string, change: (text: string) => string): Promise<void> {
	return withFileLock(file, () => {
		const read = readTextFile(file);
		if (read.kind === "error") throw new Error(`${file} ${read.message}; it was not changed.`);
		const text = read.kind === "ok" ? read.text : "";
		const errors: import("jsonc-parser").ParseError[] = [];
		jsoncParser().parse(text, errors, { allowTrailingComma: true });
		if (errors.length > 0) throw new Error(`${file} does not parse; fix it first (it was not changed).`);
		const next = change(text);
		const mode = read.kind === "ok" ? statSync(file).mode & 0o777 : 0o600;
		writeFileAtomic(file, next.endsWith("\n") ? next : `${next}\n`, { mode });
	});
}
