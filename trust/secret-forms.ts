// The forms one secret takes in text, as regular-expression sources for the Redactor's one pass.
// A server, a token endpoint or a log does not always print a secret as it is: JSON escapes its
// quotes and backslashes (once per level of nesting, `\uXXXX` in ASCII-only encoders, `\/` in some),
// a URL or a form body percent-encodes it (upper or lower hex, `+` for a space), and a Basic
// header, a Kubernetes secret or a Docker config holds it in base64. Every character that these
// encodings leave alone (letters, digits, `-_.`) is written once; each other character becomes a
// small alternation of its forms, so the raw, escaped and encoded forms of a secret are ONE
// alternative of the pattern, not one each: the pass costs about the same per secret.
//
// Base64: the secret may start at any byte of the encoded data (`user:secret` puts it after five
// bytes), and each of the three offsets modulo 3 gives other characters. Only the characters
// that depend on the secret's bytes alone are matched (the one or two at each end also carry the
// neighbouring bytes); the standard and URL-safe alphabets share one pattern. Three alternatives
// per secret, each matching about 4/3 of its length: the bench (bench/redaction.ts) measures it.

/** A pattern and the fewest characters it matches: longer ones go first, so a secret holding another is masked whole. */
export interface SecretPattern {
	readonly source: string;
	readonly length: number;
}

/** A base64 core shorter than this could be matched by chance in ordinary text or data. */
const MIN_BASE64_CORE = 8;

/** The patterns matching a secret in every form: its text forms as one, then one per base64 offset. */
export function secretPatterns(secret: string): SecretPattern[] {
	const patterns: SecretPattern[] = [{ source: textForms(secret), length: secret.length }];
	const bytes = Buffer.from(secret, "utf8");
	for (const offset of [0, 1, 2]) {
		const core = base64Core(bytes, offset);
		if (core.length >= MIN_BASE64_CORE) patterns.push({ source: base64Forms(core), length: core.length });
	}
	return patterns;
}

/** The base64 characters that depend only on the secret's bytes when it starts `offset` bytes into a group of three. */
export function base64Core(bytes: Buffer, offset: number): string {
	const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
	// Character i holds bits [6i, 6i+6): inside the secret from bit 8*offset to bit 8*(offset+n).
	const first = Math.ceil((8 * offset) / 6);
	const end = Math.floor((8 * (offset + bytes.length)) / 6);
	return encoded.slice(first, end);
}

/** Characters every encoding here writes as they are. */
const PLAIN = /^[A-Za-z0-9_.-]$/;

/** The secret as is, JSON-escaped (at any depth), `\u`-escaped, percent- or form-encoded, in one pattern. */
function textForms(secret: string): string {
	let source = "";
	for (const char of secret) source += PLAIN.test(char) ? escapeRegExp(char) : `(?:${charForms(char).join("|")})`;
	return source;
}

/** The forms of one character that is not plain. */
function charForms(char: string): string[] {
	const forms = new Set([escapeRegExp(char)]);
	// JSON: `\"`, `\\`, `\n`, `\/`... behind any number of backslashes (each level of nesting adds some).
	const escaped = JSON.stringify(char).slice(1, -1);
	if (escaped !== char) forms.add(`\\\\+${escapeRegExp(escaped.slice(1))}`);
	if (char === "/") forms.add("\\\\+/");
	// `\u00e9`, `\u003c` (ASCII-only and HTML-safe encoders), a surrogate pair for characters beyond.
	const units = [...Array(char.length).keys()].map((i) => char.charCodeAt(i).toString(16).padStart(4, "0"));
	forms.add(units.map((hex) => `\\\\+u${anyCase(hex)}`).join(""));
	// Percent-encoding of the UTF-8 bytes; a form body writes a space as `+`.
	forms.add([...Buffer.from(char, "utf8")].map((b) => `%${anyCase(b.toString(16).padStart(2, "0"))}`).join(""));
	if (char === " ") forms.add("\\+");
	return [...forms];
}

/** A base64 core in the standard and URL-safe alphabets, its `+` and `/` also percent- or JSON-escaped. */
function base64Forms(core: string): string {
	const forms: Record<string, string> = { "+": "(?:\\+|-|%2[bB])", "/": "(?:\\\\*/|_|%2[fF])" };
	let source = "";
	for (const char of core) source += forms[char] ?? char;
	return source;
}

/** Hex digits matching either case: percent-encoders and `\u` escapes differ. */
function anyCase(hex: string): string {
	return hex.replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
