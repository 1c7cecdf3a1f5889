// Text a repository or a server wrote, on its way to a screen. A terminal obeys what it is sent:
// colours, concealed text (ESC[8m), the window title (OSC 0), the clipboard (OSC 52), cursor moves
// that overwrite a line, and bidirectional overrides that reorder what is read. So every such text
// is cleaned before it is shown (`terminalSafe`), and where the user decides on it (the approval
// question) every hidden character is shown as an escape instead (`visible`).
import { stripVTControlCharacters } from "node:util";

/** C0/C1 controls, DEL, zero-width characters, line/paragraph separators, bidi embeddings/overrides/isolates, BOM. */
const HIDDEN_CLASS = "\\u0000-\\u001f\\u007f-\\u009f\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2069\\ufeff";
const HIDDEN = new RegExp(`[${HIDDEN_CLASS}]`, "g");
/** The same, but tab and newline, which a message may hold. */
const INVISIBLE = new RegExp(`(?![\\t\\n])[${HIDDEN_CLASS}]`, "g");

/** The text with every terminal control sequence and invisible or reordering character removed. */
export function terminalSafe(text: string): string {
	return stripVTControlCharacters(text).replace(INVISIBLE, "");
}

/** One line of it: newlines and tabs become spaces too (a name, a title, a list entry). */
export function oneLine(text: string): string {
	return terminalSafe(text).replace(/[\n\t]+/g, " ");
}

/** Every control, invisible or reordering character (newline and tab too) shown as `\u{…}`: nothing hides. */
export function visible(text: string): string {
	return text.replace(HIDDEN, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/** Whether a text holds anything `visible` would escape (a server name must not). */
export function hasHiddenCharacters(text: string): boolean {
	return text.search(HIDDEN) !== -1;
}
