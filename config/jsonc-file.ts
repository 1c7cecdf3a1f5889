// Reads a JSON-with-comments file into a tagged result: missing, unreadable/invalid (with line and
// column), or the parsed value. Config files and host imports all go through here. Plain JSON (what
// `pi mcp add` writes) is read with JSON.parse; jsonc-parser is loaded only for a file with
// comments, trailing commas or a mistake, since every Pi start pays for what it imports.
import type { ParseError } from "jsonc-parser";
import { jsonDepthOver, MAX_JSON_DEPTH, readTextFile } from "../storage/file-guard.ts";
import { jsoncParser } from "./parsers.lazy.ts";

/** On a syntax error, `partial` is what could be read (to name the servers the broken file meant). */
export type ReadResult =
	| { kind: "missing" }
	| { kind: "error"; message: string; partial?: unknown }
	| { kind: "ok"; value: unknown };

/** Reads a JSON-with-comments file; a syntax error names the line and column. */
export function readJsoncFile(path: string): ReadResult {
	const read = readTextFile(path);
	return read.kind === "ok" ? parseJsonc(read.text) : read;
}

/** JSON-with-comments text as `readJsoncFile` reads a file's (an editor's text, checked before it is saved). */
export function parseJsonc(text: string): Exclude<ReadResult, { kind: "missing" }> {
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
		const code = printParseErrorCode(first.error);
		return { kind: "error", message: `line ${line}, column ${column}: ${PARSE_ERRORS[code] ?? code}`, partial: value };
	}
	return { kind: "ok", value };
}

/** A file and what is wrong in it: `<file> line 4, column 7: a comma is missing`, else `<file>: <what>`. */
export function inFile(path: string, message: string): string {
	return `${path}${/^line \d/.test(message) ? " " : ": "}${message}`;
}

/** jsonc-parser's error codes (`printParseErrorCode`) as a person reads a mistake in a JSON file. */
const PARSE_ERRORS: Readonly<Record<string, string>> = {
	InvalidSymbol: "this is not JSON (a stray character, or a value without quotes)",
	InvalidNumberFormat: "a number is written wrong",
	PropertyNameExpected: 'a name in double quotes is missing here (a key without "quotes"?)',
	ValueExpected: "a value is missing",
	ColonExpected: "a colon (:) is missing after the name",
	CommaExpected: "a comma is missing",
	CloseBraceExpected: "a closing } is missing",
	CloseBracketExpected: "a closing ] is missing",
	EndOfFileExpected: "the file goes on after its end (a second object, or one } too many?)",
	InvalidCommentToken: "a comment is written wrong",
	UnexpectedEndOfComment: "a /* comment is not closed",
	UnexpectedEndOfString: "a string is not closed (a missing double quote)",
	UnexpectedEndOfNumber: "a number is cut off",
	InvalidUnicode: "a \\u escape is written wrong",
	InvalidEscapeCharacter: "a backslash escape is written wrong (write \\\\ for a backslash)",
	InvalidCharacter: "a character that JSON does not allow in a string (a tab or line break: write \\t or \\n)",
};
