// The masking this project had before trust/secret-matcher.ts, kept here only so bench/redaction.ts
// can measure beside it: one RegExp built from every form of every secret (the secret's characters
// each an alternation of their raw, JSON-escaped, \u-escaped and percent-encoded forms; three base64
// cores). V8 refuses the pattern once a secret reaches about 40,000 characters (the SyntaxError's
// message is the whole pattern, secrets and all: why it is gone from trust/), and its time grows
// with the number of secrets. Not used by the extension.

import { base64Core } from "../trust/secret-forms.ts";

/** A pattern and the fewest characters it matches: longer ones go first, so a secret holding another is masked whole. */
interface SecretPattern {
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

/** The old Redactor's masking: one pattern, longest alternatives first. Throws where V8 cannot build it. */
export class RegexMasker {
	private readonly pattern: RegExp;

	constructor(secrets: readonly string[]) {
		const sorted = secrets
			.flatMap(secretPatterns)
			.sort((a, b) => b.length - a.length)
			.map((p) => p.source);
		this.pattern = new RegExp(sorted.join("|"), "g");
	}

	scrubSecrets(text: string): string {
		return text.replace(this.pattern, "***");
	}
}
