// Reads a JSON-with-comments file into a tagged result: missing, unreadable/invalid (with line and
// column), or the parsed value. Config files and host imports all go through here. Plain JSON (what
// `pi mcp add` writes) is read with JSON.parse; jsonc-parser is loaded only for a file with
// comments, trailing commas or a mistake, since every Pi start pays for what it imports.
import type { ParseError } from "jsonc-parser";
import { jsoncParser } from "../lazy.ts";
import { jsonDepthOver, MAX_JSON_DEPTH, readTextFile } from "../storage/file-guard.ts";

/** On a syntax error, `partial` is what could be read (to name the servers the broken file meant). */
export type ReadResult =
	| { kind: "missing" }
	| { kind: "error"; message: string; partial?: unknown }
	| { kind: "ok"; value: unknown };

/** Reads a JSON-with-comments file; a syntax error names the line and column. */
export function readJsoncFile(path: string): ReadResult {
	const read = readTextFile(path);
	if (read.kind !== "ok") return read;
	const text = read.text;
	// Checked before parsing: no parser or later walk over the value can run out of stack.
	if (jsonDepthOver(text))
		return { kind: "error", message: `nests deeper than ${MAX_JSON_DEPTH} levels; this is not an MCP config` };
	try {
		return { kind: "ok", value: JSON.parse(text) as unknown };
	} catch {
		// Comments, trailing commas, or a real mistake: the JSONC parser tells which, and where.
	}
	const { parse, printParseErrorCode } = jsoncParser();
	const errors: ParseError[] = [];
	const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
	if (errors.length > 0) {
		const first = errors[0];
		const before = text.slice(0, first.offset);
		const line = before.split("\n").length;
		const column = first.offset - before.lastIndexOf("\n");
		return {
			kind: "error",
			message: `invalid JSON at line ${line}, column ${column}: ${printParseErrorCode(first.error)}`,
			partial: value,
		};
	}
	return { kind: "ok", value };
}
