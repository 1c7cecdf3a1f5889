// The forms a secret takes in text, undone: a secret is looked for in the text's canonical units,
// into which its raw, JSON-escaped and percent-encoded forms all turn alike (and the secret itself
// is turned into the same units: trust/secret-forms.ts). Two views of a text are scanned:
// - as it is, JSON escapes read: `\uXXXX` (either case) is its character, a run of backslashes
//   before `"`, `/`, or a letter of `\b\f\n\r\t` is that escape at any depth of nesting (JSON in
//   JSON adds backslashes), any other run of backslashes is one backslash. A character JSON
//   writes as a two-character escape (a quote, a line break...) is that escape's two units, raw or
//   escaped, so `"` in the raw secret and `\"` or `\\\"` in the text meet as the same units;
// - percent-decoded first (`%XX` of UTF-8, `+` a space: a URL or a form body), then read so,
//   only when the text has a `%` (a form's `+` for a space is met by the matcher's folding).
// Every unit carries the span of the text it came from, so what is found is masked there.
// Runs of backslash units read as one. What this reads differently: a secret starting with `u` and
// four hex digits right after a backslash in the text, or ending in a backslash the text follows
// with such an escape.

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const SLASH = 0x2f;
const U = 0x75;
/** The letter of each character JSON writes as a two-character escape (0: none). */
const ESCAPED = new Uint8Array(0x80);
for (const [char, letter] of [
	[0x08, 0x62],
	[0x0c, 0x66],
	[0x0a, 0x6e],
	[0x0d, 0x72],
	[0x09, 0x74],
	[QUOTE, QUOTE],
])
	ESCAPED[char] = letter;
/** The letters of those escapes (b f n r t, and the quote): after a backslash run, the escape itself. */
const ESCAPE_LETTERS = new Uint8Array(0x80);
for (const letter of ESCAPED) if (letter !== 0) ESCAPE_LETTERS[letter] = 1;

/**
 * Whether a unit is a backslash right after one: dropped, so every run of backslash units reads as
 * one (a raw `\` before a line break is `\\n` in units; its JSON, `\\\n`, a run before `n`).
 */
export function joinsBackslash(previous: number, unit: number): boolean {
	return unit === BACKSLASH && previous === BACKSLASH;
}

/** A character that is its own one unit (most of any text): the caller reads it without a call. */
export function isPlainUnit(code: number): boolean {
	return code !== BACKSLASH && code >= 0x20 && code !== QUOTE;
}

/**
 * Units read from a piece of text that is not one plain character: `units[0]` says how many
 * (1 or 2), then each is (unit, start, end), its span in the text.
 */
export type ReadUnits = Int32Array;

export function unitBuffer(): ReadUnits {
	return new Int32Array(7);
}

function hexValue(code: number): number {
	if (code >= 0x30 && code <= 0x39) return code - 0x30;
	const lower = code | 0x20;
	return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** The value of four hex digits at `at`, or -1. */
function hex4(text: string, at: number): number {
	if (at + 4 > text.length) return -1;
	let value = 0;
	for (let i = at; i < at + 4; i++) {
		const digit = hexValue(text.charCodeAt(i));
		if (digit < 0) return -1;
		value = value * 16 + digit;
	}
	return value;
}

function put(out: ReadUnits, unit: number, start: number, end: number): void {
	const at = 1 + 3 * out[0]++;
	out[at] = unit;
	out[at + 1] = start;
	out[at + 2] = end;
}

/** A character as canonical units: the two of its JSON escape, or itself. */
function putCharacter(out: ReadUnits, code: number, start: number, end: number): void {
	const letter = code < 0x80 ? ESCAPED[code] : 0;
	if (letter !== 0) put(out, BACKSLASH, start, end);
	put(out, letter !== 0 ? letter : code, start, end);
}

/** Reads the canonical units at `i`, where the character is not plain (a backslash, a quote, a control); returns where the next read starts. */
export function readEscape(text: string, i: number, out: ReadUnits): number {
	out[0] = 0;
	const code = text.charCodeAt(i);
	if (code !== BACKSLASH) {
		putCharacter(out, code, i, i + 1);
		return i + 1;
	}
	let j = i + 1;
	while (j < text.length && text.charCodeAt(j) === BACKSLASH) j++;
	const next = j < text.length ? text.charCodeAt(j) : -1;
	const escaped = next === U ? hex4(text, j + 1) : -1;
	if (escaped >= 0) {
		// At depth d of nesting a `\u` escape has 2^(d-1) backslashes; any other count also holds
		// literal backslashes before it (JSON of `\é` is `\\\u00e9`).
		const run = j - i;
		if ((run & (run - 1)) !== 0) put(out, BACKSLASH, i, j + 5);
		putCharacter(out, escaped, i, j + 5);
		return j + 5;
	}
	if (next > 0 && next < 0x80 && ESCAPE_LETTERS[next]) {
		put(out, BACKSLASH, i, j);
		put(out, next, j, j + 1);
		return j + 1;
	}
	if (next === SLASH) {
		put(out, SLASH, i, j + 1);
		return j + 1;
	}
	put(out, BACKSLASH, i, j);
	return j;
}

/** A string's canonical units, as a string (what a secret is looked for as). */
export function canonicalText(text: string): string {
	// Most secrets hold nothing the reading changes: no backslash, no quote, no control character.
	let plain = 0;
	while (plain < text.length && isPlainUnit(text.charCodeAt(plain))) plain++;
	if (plain === text.length) return text;
	const units: number[] = [];
	const read = unitBuffer();
	for (let i = 0; i < text.length; ) {
		const code = text.charCodeAt(i);
		if (isPlainUnit(code)) {
			units.push(code);
			i++;
			continue;
		}
		i = readEscape(text, i, read);
		for (let r = 0; r < read[0]; r++) {
			const unit = read[1 + 3 * r];
			if (!joinsBackslash(units[units.length - 1] ?? -1, unit)) units.push(unit);
		}
	}
	let out = "";
	for (let i = 0; i < units.length; i += 4096) out += String.fromCharCode(...units.slice(i, i + 4096));
	return out;
}

/** A text percent-decoded, and where each of its positions came from in the original. */
export interface DecodedView {
	readonly text: string;
	/** The original position of a position of `text` (its length maps to the original's length). */
	toSource(position: number): number;
}

/** The UTF-8 length a lead byte announces (0: not a lead byte). */
function sequenceLength(byte: number): number {
	return byte < 0x80 ? 1 : byte >= 0xc2 && byte < 0xe0 ? 2 : byte >= 0xe0 && byte < 0xf0 ? 3 : byte < 0xf5 ? 4 : 0;
}

/** The character of `%XX` escapes at `at` (one well-formed UTF-8 sequence), and how far it reaches; undefined if none. */
function percentCharacter(text: string, at: number): { value: string; end: number } | undefined {
	const byteAt = (i: number) => {
		if (text.charCodeAt(i) !== 0x25) return -1;
		const high = hexValue(text.charCodeAt(i + 1));
		const low = hexValue(text.charCodeAt(i + 2));
		return high < 0 || low < 0 ? -1 : high * 16 + low;
	};
	const lead = byteAt(at);
	const length = lead >= 0 ? sequenceLength(lead) : 0;
	if (length === 0) return undefined;
	let point = length === 1 ? lead : lead & (0xff >> (length + 1));
	for (let k = 1; k < length; k++) {
		const byte = byteAt(at + 3 * k);
		if (byte < 0x80 || byte > 0xbf) return undefined;
		point = (point << 6) | (byte & 0x3f);
	}
	// Overlong forms, surrogates and points past Unicode are not characters: left as they are.
	const shortest = [0, 0, 0x80, 0x800, 0x10000][length];
	if (point < shortest || point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) return undefined;
	return { value: String.fromCodePoint(point), end: at + 3 * length };
}

/** A form body's spaces: a `+` written as it is (an encoded one, `%2B`, is decoded apart). */
function formSpaces(raw: string): string {
	return raw.replaceAll("+", " ");
}

/** `text` with `%XX` (UTF-8) and `+` decoded; an escape that is not valid UTF-8 stays as it is. */
export function percentDecoded(text: string): DecodedView {
	const parts: string[] = [];
	// Where the mapping's slope breaks: decoded position -> original position.
	const from: number[] = [0];
	const to: number[] = [0];
	let copied = 0;
	let length = 0;
	for (let i = text.indexOf("%"); i >= 0 && i < text.length; i = text.indexOf("%", i)) {
		const found = percentCharacter(text, i);
		if (!found) {
			i++;
			continue;
		}
		parts.push(formSpaces(text.slice(copied, i)), found.value);
		length += i - copied;
		from.push(length, length + 1, length + found.value.length);
		to.push(i, found.end, found.end);
		length += found.value.length;
		copied = i = found.end;
	}
	parts.push(formSpaces(text.slice(copied)));
	return {
		text: parts.join(""),
		toSource(position: number): number {
			let low = 0;
			let high = from.length - 1;
			while (low < high) {
				const mid = (low + high + 1) >> 1;
				if (from[mid] <= position) low = mid;
				else high = mid - 1;
			}
			return to[low] + (position - from[low]);
		},
	};
}
