// The forms one secret is looked for in, as plain strings for the matcher (trust/secret-matcher.ts).
// A server, a token endpoint or a log does not always print a secret as it is: JSON escapes its
// quotes and backslashes (once per level of nesting, `\uXXXX` in ASCII-only encoders, `\/` in some),
// a URL or a form body percent-encodes it, and a Basic header, a Kubernetes secret or a Docker
// config holds it in base64. The escaped and encoded text forms are undone on the text's side
// (trust/text-views.ts), so the secret's own canonical units are one pattern for all of them.
//
// Base64: the secret may start at any byte of the encoded data (`user:secret` puts it after five
// bytes), and each of the three offsets modulo 3 gives other characters. Only the characters
// that depend on the secret's bytes alone are matched (the one or two at each end also carry the
// neighbouring bytes); the standard and URL-safe alphabets meet in the matcher's folding.

import { canonicalText } from "./text-views.ts";

/** A base64 core shorter than this could be matched by chance in ordinary text or data. */
const MIN_BASE64_CORE = 8;

/** The strings to look for: the secret's canonical units, then its base64 cores at the three byte offsets. */
export function secretForms(secret: string): string[] {
	const forms = [canonicalText(secret)];
	const bytes = Buffer.from(secret, "utf8");
	for (const offset of [0, 1, 2]) {
		const core = base64Core(bytes, offset);
		if (core.length >= MIN_BASE64_CORE) forms.push(core);
	}
	return forms;
}

/** The base64 characters that depend only on the secret's bytes when it starts `offset` bytes into a group of three. */
export function base64Core(bytes: Buffer, offset: number): string {
	const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
	// Character i holds bits [6i, 6i+6): inside the secret from bit 8*offset to bit 8*(offset+n).
	const first = Math.ceil((8 * offset) / 6);
	const end = Math.floor((8 * (offset + bytes.length)) / 6);
	return encoded.slice(first, end);
}
