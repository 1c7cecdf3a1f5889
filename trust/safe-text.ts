// Text a repository or a server wrote, on its way to a screen. A terminal obeys what it is sent:
// colours, concealed text (ESC[8m), the window title (OSC 0), the clipboard (OSC 52), cursor moves
// that overwrite a line, and bidirectional overrides that reorder what is read. So every such text
// is cleaned before it is shown (`terminalSafe`), and where the user decides on it (the approval
// question) every hidden character is shown as an escape instead (`visible`).
import { stripVTControlCharacters } from "node:util";

/**
 * What draws nothing or changes how the rest is read, by Unicode's own properties rather than a
 * list that misses some: controls (Cc), format characters (Cf: zero-width, bidi, soft hyphen,
 * tags), line and paragraph separators, lone surrogates, and every default-ignorable code point
 * (Hangul fillers U+115F/U+1160/U+3164/U+FFA0, variation selectors, U+034F, U+180E, ...).
 */
const INVISIBLE_CLASS = "\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\p{Default_Ignorable_Code_Point}";
/**
 * Blanks that look like a space or like nothing (no-break and other wide spaces, the braille
 * blank U+2800): real text has them (a table, a braille graph), so they stay in what is shown,
 * but a name or an argument the user decides on shows them as escapes.
 */
const BLANK = "(?! )[\\u2800\\p{Zs}]";
const HIDDEN = new RegExp(`[${INVISIBLE_CLASS}]|${BLANK}`, "gu");
/** The invisible ones but tab and newline, which a message may hold: removed from what is shown. */
const INVISIBLE = new RegExp(`(?![\\t\\n])[${INVISIBLE_CLASS}]`, "gu");

/** Printable ASCII, tab and newline only: nothing to remove (most text), and no Unicode-mode scan paid. */
const PLAIN = /^[\t\n\x20-\x7e]*$/;

/** The text with every terminal control sequence and invisible or reordering character removed. */
export function terminalSafe(text: string): string {
	if (PLAIN.test(text)) return text;
	return stripVTControlCharacters(text).replace(INVISIBLE, "");
}

/** One line of it: newlines and tabs become spaces too (a name, a title, a list entry). */
export function oneLine(text: string): string {
	return terminalSafe(text).replace(/[\n\t]+/g, " ");
}

/** Every control, invisible, reordering or look-alike blank character (newline and tab too) shown as `\u{…}`: nothing hides. */
export function visible(text: string): string {
	return text.replace(HIDDEN, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`);
}

/** Whether a text holds anything `visible` would escape (a server name must not). */
export function hasHiddenCharacters(text: string): boolean {
	return text.search(HIDDEN) !== -1;
}
