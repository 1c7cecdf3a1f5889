// One scrubber for every way text leaves the adapter (the model's results, /mcp, the status line,
// logs, errors): it knows every secret the adapter holds or passed on, and masks URL query values
// and passwords. Secrets: values of inherited environment variables whose names look secret,
// each server's env, header, token and OAuth client values, every value a `${VAR}` expanded to,
// and what a sign-in handles (codes, verifiers, tokens). Each is masked in every form it takes in
// text (raw, JSON-escaped, URL-encoded, base64: trust/secret-forms.ts), all in one regex pass.

import { secretPatterns } from "./secret-forms.ts";

/** Names of environment variables whose values are treated as secrets. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE|BEARER|APIKEY|PAT$/i;
/** Variables that look secret by name but hold ordinary, widely printed values. */
const NOT_SECRET = new Set([
	"PWD",
	"OLDPWD",
	"HOME",
	"USER",
	"LOGNAME",
	"PATH",
	"SHELL",
	"TMPDIR",
	"TEMP",
	"TMP",
	"LANG",
	"TERM",
	"USERPROFILE",
	"APPDATA",
	"LOCALAPPDATA",
	"HOSTNAME",
	"SSH_AUTH_SOCK",
	"XAUTHORITY",
]);
/** Below this, an ordinary value is not worth masking (it would mangle common words). */
const MIN_PLAIN = 8;
const MIN_SECRET = 4;
const MASK = "***";

export function isSecretName(name: string): boolean {
	return !NOT_SECRET.has(name.toUpperCase()) && SECRET_NAME.test(name);
}

/** Whether a named value is worth masking: secret-looking names from 4 characters, others from 8. */
export function worthMasking(name: string | undefined, value: string | undefined): value is string {
	if (!value || value.length < MIN_SECRET) return false;
	if (name !== undefined && NOT_SECRET.has(name.toUpperCase())) return false;
	return name === undefined || isSecretName(name) || value.length >= MIN_PLAIN;
}

export class Redactor {
	private readonly secrets = new Set<string>();
	private pattern: RegExp | undefined;
	private dirty = false;

	/** Starts with the secret-looking variables of the environment Pi runs in (servers inherit them). */
	constructor(env: Readonly<Record<string, string | undefined>> = {}) {
		this.addVariables(env);
	}

	/** Adds the values of an environment's variables whose names look secret (8 characters or more). */
	addVariables(env: Readonly<Record<string, string | undefined>>): void {
		for (const [name, value] of Object.entries(env))
			if (isSecretName(name) && value && value.length >= MIN_PLAIN) this.add(value);
	}

	/** Adds values that must never be shown; shorter than 4 characters is ignored. */
	add(...values: (string | undefined)[]): void {
		for (const value of values) {
			if (!value || value.length < MIN_SECRET || this.secrets.has(value)) continue;
			this.secrets.add(value);
			// "Bearer abc": the token alone is also a secret (servers echo it without the scheme).
			const token = /^(?:Bearer|Basic|Token)\s+(\S{4,})$/i.exec(value)?.[1];
			if (token) this.secrets.add(token);
			this.dirty = true;
		}
	}

	/** The text with every known secret replaced by *** and URL query values and passwords masked. */
	scrub(text: string): string {
		return maskUrls(this.scrubSecrets(text));
	}

	/** Only the known secrets masked: for a URL the user must open whole (a sign-in page). */
	scrubSecrets(text: string): string {
		if (!text) return text;
		const pattern = this.regex();
		return pattern ? text.replace(pattern, MASK) : text;
	}

	private regex(): RegExp | undefined {
		if (this.dirty || (!this.pattern && this.secrets.size > 0)) {
			// Longest first, so a secret that contains another is masked whole.
			const sorted = [...this.secrets]
				.flatMap(secretPatterns)
				.sort((a, b) => b.length - a.length)
				.map((p) => p.source);
			this.pattern = sorted.length > 0 ? new RegExp(sorted.join("|"), "g") : undefined;
			this.dirty = false;
		}
		return this.pattern;
	}
}

/** A URL with its password (or a lone user name) and every query value replaced by ***; anything unparsable is returned as is. */
export function maskUrl(raw: string): string {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return raw;
	}
	if (!url.password && !url.username && !url.search) return raw;
	const query = url.search
		? `?${url.search
				.slice(1)
				.split("&")
				.map((pair) => (pair.includes("=") ? `${pair.slice(0, pair.indexOf("="))}=${MASK}` : pair))
				.join("&")}`
		: "";
	// user:password keeps the user; a user alone is the secret itself (a Sentry DSN's key).
	const auth = url.password ? `${url.username}:${MASK}@` : url.username ? `${MASK}@` : "";
	return `${url.protocol}//${auth}${url.host}${url.pathname}${query}${url.hash}`;
}

/** A URL of any scheme (postgres://, redis://, amqp://... carry passwords too). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`)\]]+/gi;

/** Masks every URL in a text (query values, passwords). */
export function maskUrls(text: string): string {
	if (!text.includes("://")) return text;
	return text.replace(URL_IN_TEXT, (url) => {
		// Trailing punctuation belongs to the sentence, not the URL.
		const trail = /[.,;:!?]+$/.exec(url)?.[0] ?? "";
		return maskUrl(url.slice(0, url.length - trail.length)) + trail;
	});
}

/** A copy of a JSON-like value with `scrub` applied to every string in it, keys too (schemas, URIs, argument names). */
export function scrubStrings<T>(value: T, scrub: (text: string) => string): T {
	const walk = (item: unknown): unknown => {
		if (typeof item === "string") return scrub(item);
		if (Array.isArray(item)) return item.map(walk);
		if (typeof item !== "object" || item === null) return item;
		// An image's or a sound's data is binary, not text: scanning it costs a pass (a screenshot is
		// a megabyte) and could only break it. A resource's blob may be a text file: it is scanned.
		const type = (item as { type?: unknown }).type;
		const media = type === "image" || type === "audio";
		return Object.fromEntries(
			Object.entries(item).map(([key, inner]) => [scrub(key), media && key === "data" ? inner : walk(inner)]),
		);
	};
	// Metadata schemas are bounded to 24 levels (safe-schema.ts); a server's answer nested deeper
	// than the stack allows fails the request (a RangeError), never passes unmasked.
	return walk(value) as T;
}
