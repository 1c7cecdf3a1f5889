// Turning a server on or off from /mcp, as Pi 1.5's /mcp does: the change is saved to a Pi config
// file (off: the user's own ~/.pi/agent/mcp.json; on: that file, or the project's .pi/mcp.json
// that turned it off), keeping its comments and layout. Other tools' files (Cursor, Claude,
// VS Code...) and a repository's .mcp.json are never edited.
import { statSync } from "node:fs";
import { join } from "node:path";
import { unknownServerMessage } from "../errors.ts";
import { readTextFile, writeFileAtomic } from "../storage/file-guard.ts";
import { withFileLock } from "../storage/locked-json.ts";
import type { McpConfig } from "../types.ts";
import { jsoncParser } from "./parsers.lazy.ts";

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
		throw new Error(
			config.disabled?.has(name)
				? `"${name}" is already turned off.`
				: unknownServerMessage(name, [...config.servers.keys()]),
		);
	if (entry.source.scope === "project")
		throw new Error(`"${name}" comes from this project's config: /mcp deny ${name} keeps it from running.`);
	// A user-level server: defined in the user's file (which gets "enabled": false) or hidden from it.
	await edit(files.user, (text) => set(text, [name, "enabled"], false));
	return `Turned "${name}" off (saved in ${files.user}).`;
}

/** Turns a server back on: removes what turned it off, in the Pi file that says so. */
export async function turnOn(config: McpConfig, name: string, files: EditableFiles): Promise<string> {
	const file = config.disabled?.get(name);
	if (!file)
		throw new Error(
			config.servers.has(name) ? `"${name}" is already on.` : unknownServerMessage(name, [...config.servers.keys()]),
		);
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

/**
 * Sets (undefined: removes) a value under mcpServers, keeping the rest of the text as it was: a new
 * key is written in the style of the object it joins (on a line of its own at its neighbours'
 * indentation, or inline with their spacing), never by reformatting the object around it.
 * `expanded`: a new object on lines of its own (a whole server, as `pi mcp add` writes one), where
 * the object it joins has its keys on lines of their own.
 */
export function set(text: string, path: string[], value: unknown, expanded = false): string {
	const { applyEdits, modify } = jsoncParser();
	const full = ["mcpServers", ...path];
	const styled = value === undefined ? undefined : insertInStyle(text, full, value, expanded);
	if (styled !== undefined) return styled;
	// A value replaced or removed in place; or a file with no mcpServers object yet: written formatted.
	const fresh = value !== undefined && !hasObject(text, ["mcpServers"]);
	const formattingOptions = fresh ? { insertSpaces: !/^\t/m.test(text), tabSize: 2 } : undefined;
	return applyEdits(text, modify(text, full, value, { formattingOptions }));
}

/** Whether `path` names an object in the document. */
function hasObject(text: string, path: string[]): boolean {
	const { findNodeAtLocation, parseTree } = jsoncParser();
	const tree = parseTree(text, [], { allowTrailingComma: true });
	return tree !== undefined && findNodeAtLocation(tree, path)?.type === "object";
}

/**
 * `text` with a key that is not there yet added to the deepest object of `path` that exists (the
 * keys below it as nested objects), in that object's style; undefined when the key exists, or the
 * object is missing or empty (no style to follow).
 */
function insertInStyle(text: string, path: string[], value: unknown, expanded: boolean): string | undefined {
	const { findNodeAtLocation, parseTree } = jsoncParser();
	const tree = parseTree(text, [], { allowTrailingComma: true });
	if (!tree || findNodeAtLocation(tree, path)) return undefined;
	let depth = path.length - 1;
	while (depth > 1 && !findNodeAtLocation(tree, path.slice(0, depth))) depth--;
	const parent = findNodeAtLocation(tree, path.slice(0, depth));
	const properties = parent?.type === "object" ? (parent.children ?? []) : [];
	const last = properties.at(-1);
	const [firstKey, firstValue] = properties[0]?.children ?? [];
	if (!parent || !last || !firstKey || !firstValue) return undefined;
	// The spacing after a colon, and the nested value in it: `{ "enabled": false }` or `{"enabled":false}`.
	const colon = text.slice(firstKey.offset + firstKey.length, firstValue.offset);
	const pad = colon.endsWith(" ") ? " " : "";
	let written = JSON.stringify(value);
	for (const key of path.slice(depth + 1).reverse()) written = `{${pad}${JSON.stringify(key)}${colon}${written}${pad}}`;
	const entry = `${JSON.stringify(path[depth])}${colon}${written}`;
	const end = last.offset + last.length;
	const comma = /^\s*,/.test(text.slice(end)) ? "" : ",";
	if (!text.slice(parent.offset, parent.offset + parent.length).includes("\n")) {
		const first = properties[0];
		const between = properties.length > 1 ? text.slice(first.offset + first.length, properties[1].offset) : colon;
		return `${text.slice(0, end)}${comma}${/\s$/.test(between) ? " " : ""}${entry}${text.slice(end)}`;
	}
	// On a line of its own after the last key's line (a comment ending that line stays on it).
	const lineStart = text.lastIndexOf("\n", last.offset - 1) + 1;
	const indent = /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? "";
	const block =
		expanded && depth === path.length - 1
			? `${JSON.stringify(path[depth])}${colon}${JSON.stringify(value, null, indentUnit(text)).replace(/\n/g, `\n${indent}`)}`
			: entry;
	const lineEnd = text.indexOf("\n", end);
	const at = lineEnd < 0 || lineEnd > parent.offset + parent.length ? end : lineEnd;
	const before = `${text.slice(0, end)}${comma}${text.slice(end, at)}`;
	return `${before}\n${indent}${block}${text.slice(at)}`;
}

/**
 * Replaces the whole file with `text` (the user's own edit, checked by the caller), under the same
 * lock as every writer, atomically, keeping its mode; a broken file may be replaced (that is the fix).
 */
export function writeWhole(file: string, text: string): Promise<void> {
	return withFileLock(file, () => {
		const mode = statSync(file, { throwIfNoEntry: false })?.mode;
		writeFileAtomic(file, text.endsWith("\n") ? text : `${text}\n`, {
			mode: mode === undefined ? 0o600 : mode & 0o777,
		});
	});
}

/** The file's indentation step, as Pi 1.5's `pi mcp add` reads it: its first indented line's, else two spaces. */
export function indentUnit(text: string): string {
	return /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
}

/**
 * Reads, edits and writes the file under the lock every writer of it takes (eight /mcp commands at
 * once lose nothing), atomically and keeping its mode; a missing file starts empty, a broken one
 * is left alone, a symlink to it stays a symlink.
 */
export function edit(file: string, change: (text: string) => string): Promise<void> {
	return withFileLock(file, () => {
		const read = readTextFile(file);
		if (read.kind === "error") throw new Error(`${file} ${read.message}; it was not changed.`);
		const text = read.kind === "ok" ? read.text : "{}"; // jsonc-parser reads "" as an error
		const errors: import("jsonc-parser").ParseError[] = [];
		jsoncParser().parse(text, errors, { allowTrailingComma: true });
		if (errors.length > 0) throw new Error(`${file} does not parse; fix it first (it was not changed).`);
		const next = change(text);
		const mode = read.kind === "ok" ? statSync(file).mode & 0o777 : 0o600;
		writeFileAtomic(file, next.endsWith("\n") ? next : `${next}\n`, { mode });
	});
}
