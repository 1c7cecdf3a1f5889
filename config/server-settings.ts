// What the /mcp manager changes of one server, saved as Pi 1.5's own /mcp saves it: `exposure`,
// `enabled` and (ours) `toolExposure` and `share` in the Pi file that defines the server, or in the
// project's override of a user's server (.pi/mcp.json; Pi 1.5's "in this project"), keeping the
// file's comments and layout (config/edit.ts). Only Pi's two files are edited: a server from
// another tool's file, an import, an extension or a repository's .mcp.json says where to change it.

import type { Exposure, ServerEntry } from "../types.ts";
import { type EditableFiles, edit, set } from "./edit.ts";
import { readJsoncFile } from "./jsonc-file.ts";
import { jsoncParser } from "./parsers.lazy.ts";

/** Where a server's settings are saved: its file, and whether that entry is a project override. */
export interface SettingsFile {
	readonly file: string;
	readonly override: boolean;
}

/** The file a change to this server is saved in, or a sentence saying why none is. */
export function settingsFile(entry: ServerEntry, files: EditableFiles): SettingsFile | string {
	// Pi 1.5: once a project overrides a user's server, later changes go to the override.
	if (entry.source.scope === "user" && hasOverride(files.project, entry.name))
		return { file: files.project, override: true };
	if (entry.source.path === files.user || entry.source.path === files.project)
		return { file: entry.source.path, override: false };
	return `"${entry.name}" is configured in ${entry.source.path}, which /mcp does not edit (it is not Pi's own mcp.json): change it there.`;
}

/** Whether the project's .pi/mcp.json holds an override (no command, url or type) of a server of this name. */
function hasOverride(projectFile: string, name: string): boolean {
	const read = readJsoncFile(projectFile);
	if (read.kind !== "ok") return false;
	const raw = (read.value as { mcpServers?: Record<string, unknown> } | undefined)?.mcpServers?.[name];
	if (typeof raw !== "object" || raw === null) return false;
	return !("command" in raw) && !("url" in raw) && !("type" in raw);
}

/** The server's exposure: `codemode`, the default, is removed from a definition and kept in an override (Pi 1.5). */
export async function saveExposure(where: SettingsFile, name: string, exposure: Exposure): Promise<void> {
	const value = exposure === "codemode" && !where.override ? undefined : exposure;
	await edit(where.file, (text) => set(text, [name, "exposure"], value));
}

/** One tool's `toolExposure` (undefined: the tool follows its server again; an empty map goes). */
export async function saveToolExposure(
	where: SettingsFile,
	name: string,
	tool: string,
	exposure: Exposure | undefined,
): Promise<void> {
	await edit(where.file, (text) => {
		const next = set(text, [name, "toolExposure", tool], exposure);
		const read = readToolExposure(next, name);
		return read && Object.keys(read).length === 0 ? set(next, [name, "toolExposure"], undefined) : next;
	});
}

function readToolExposure(text: string, name: string): Record<string, unknown> | undefined {
	const { parse } = jsoncParser();
	const raw = (parse(text) as { mcpServers?: Record<string, { toolExposure?: unknown }> } | undefined)?.mcpServers?.[
		name
	]?.toolExposure;
	return typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : undefined;
}

/** `share`: the server runs in the per-user broker (true) or in this session (false). Never in an override. */
export async function saveShare(file: string, name: string, share: boolean): Promise<void> {
	await edit(file, (text) => set(text, [name, "share"], share));
}

/** `enabled` in the server's file or override (Pi 1.5's Disable, and "Disable in this project": an override added). */
export async function saveEnabled(file: string, name: string, enabled: boolean): Promise<void> {
	await edit(file, (text) => set(text, [name, "enabled"], enabled));
}
