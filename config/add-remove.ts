// A whole server added to a Pi config file, replaced there, or removed from it: what `pi-mcp-proxy
// add` and `remove` write, to the files Pi 1.5's `pi mcp add` and `remove` write
// (~/.pi/agent/mcp.json, or the project's .pi/mcp.json), in its format, so either reads what the
// other wrote. Unlike Pi's (which parses and rewrites the file), the rest of the text stays as it
// was: comments, layout, and the other servers' entries untouched.
import type { Node } from "jsonc-parser";
import { edit, indentUnit, set } from "./edit.ts";
import { jsoncParser } from "./parsers.lazy.ts";

/** Adds (or replaces) `name`'s entry; says which it did. The file is created when missing. */
export async function addServer(
	file: string,
	name: string,
	entry: Record<string, unknown>,
): Promise<"added" | "replaced"> {
	let replaced = false;
	await edit(file, (text) => {
		const servers = serversNode(text, file);
		replaced = servers !== undefined && propertyOf(servers, name) !== undefined;
		// Joined to its neighbours in their style; a replaced one, the first (or a new file's) formatted as Pi writes one.
		return servers?.children?.length && !replaced ? set(text, [name], entry, true) : formatted(text, name, entry);
	});
	return replaced ? "replaced" : "added";
}

/** Removes `name`'s entry; false (the file unchanged) when the file does not define it. */
export async function removeServer(file: string, name: string): Promise<boolean> {
	let removed = false;
	await edit(file, (text) => {
		const servers = serversNode(text, file);
		const property = servers && propertyOf(servers, name);
		if (!servers || !property) return text;
		removed = true;
		return withoutProperty(text, servers, property);
	});
	return removed;
}

/** The `mcpServers` object, undefined when the file has none; throws when the file is not shaped as a config. */
function serversNode(text: string, file: string): Node | undefined {
	const { findNodeAtLocation, parseTree } = jsoncParser();
	const tree = parseTree(text, [], { allowTrailingComma: true });
	const servers = tree && findNodeAtLocation(tree, ["mcpServers"]);
	if (tree?.type !== "object" || (servers && servers.type !== "object"))
		throw new Error(`${file} is not an MCP config (an object with an "mcpServers" object); it was not changed.`);
	return servers;
}

function propertyOf(object: Node, name: string): Node | undefined {
	return object.children?.find((p) => p.children?.[0]?.value === name);
}

/**
 * The server's value written formatted as Pi writes its file, at its indentation: in place of the
 * one it replaces (a comment after it stays), or as the first server (jsonc-parser formats only
 * what it writes).
 */
function formatted(text: string, name: string, entry: Record<string, unknown>): string {
	const { applyEdits, modify } = jsoncParser();
	return applyEdits(text, modify(text, ["mcpServers", name], entry, { formattingOptions: formatting(text) }));
}

function formatting(text: string) {
	const unit = indentUnit(text);
	return { insertSpaces: !unit.includes("\t"), tabSize: unit.includes("\t") ? 1 : unit.length, eol: "\n" };
}

/**
 * `text` without one property of `object`, and nothing else touched: on a line of its own, its
 * lines go (with the comma after it and a comment ending its last line); the last property's
 * comma before it goes with it (a comment after that comma stays: it belongs to the one before).
 */
function withoutProperty(text: string, object: Node, property: Node): string {
	const siblings = object.children ?? [];
	const index = siblings.indexOf(property);
	let start = property.offset;
	let end = property.offset + property.length;
	const after = commaAfter(text, end, siblings[index + 1]?.offset ?? object.offset + object.length - 1);
	if (after !== undefined) end = after + 1;
	const lineStart = text.lastIndexOf("\n", start - 1) + 1;
	const ownLine = /^[ \t]*$/.test(text.slice(lineStart, start));
	if (ownLine) {
		start = lineStart;
		const lineEnd = text.indexOf("\n", end);
		const rest = text.slice(end, lineEnd < 0 ? text.length : lineEnd);
		// What follows on its last line is whitespace or its own comment: the whole line goes.
		if (/^\s*(\/\/.*|\/\*.*?\*\/\s*)?$/.test(rest)) end = lineEnd < 0 ? text.length : lineEnd + 1;
	} else end += /^[ \t]*/.exec(text.slice(end))?.[0].length ?? 0;
	let out = `${text.slice(0, start)}${text.slice(end)}`;
	// The last one: the comma that joined it to the one before goes too.
	const before = index > 0 && after === undefined ? siblings[index - 1] : undefined;
	if (before) {
		const comma = commaAfter(text, before.offset + before.length, property.offset);
		if (comma !== undefined) out = `${out.slice(0, comma)}${out.slice(comma + 1)}`;
	}
	return out;
}

/** Where the comma right after `from` is (comments and whitespace between), if one comes before `limit`. */
function commaAfter(text: string, from: number, limit: number): number | undefined {
	const { createScanner } = jsoncParser();
	const scanner = createScanner(text.slice(from, limit), false);
	for (let token = scanner.scan(); token !== 17 /* EOF */; token = scanner.scan()) {
		if (token === 5 /* CommaToken */) return from + scanner.getTokenOffset();
		// Trivia, line breaks and comments lie between a value and its comma; anything else means there is none.
		if (token !== 15 && token !== 14 && token !== 12 && token !== 13) return undefined;
	}
	return undefined;
}
