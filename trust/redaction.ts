// One scrubber for every way text leaves the adapter (the model's results, /mcp, the status line,
// logs, errors): it knows every secret the adapter holds or passed on, and masks URL query values
// and passwords. Which values are secrets: trust/secret-names.ts. Each is masked in every form it
// takes in text (raw, JSON-escaped, URL-encoded, base64: trust/secret-forms.ts, text-views.ts) by
// one matcher that compiles nothing from them (trust/secret-matcher.ts): time linear in the text,
// whatever the secrets' sizes and number. A text the matcher fails on is withheld, never shown.

import { secretForms } from "./secret-forms.ts";
import { SecretMatcher } from "./secret-matcher.ts";
import { isSecretValue, MIN_SECRET, URL_IN_TEXT } from "./secret-names.ts";

export { isSecretHeader, isSecretName, isSecretValue, plainlyNotSecret, urlCredentials } from "./secret-names.ts";

/** Inherited variables are masked from 8 characters: a shell holds many short values under such names. */
const MIN_INHERITED = 8;
const MASK = "***";
/** What is shown instead of a text the matcher could not check: no part of the text, no error's words. */
export const WITHHELD = "[withheld: this text could not be checked for secrets]";

export class Redactor {
	private readonly secrets = new Set<string>();
	private readonly matcher = new SecretMatcher(MIN_SECRET);

	/** Starts with the secret variables of the environment Pi runs in (servers inherit them). */
	constructor(env: Readonly<Record<string, string | undefined>> = {}) {
		this.addVariables(env);
	}

	/** Adds the values of an environment's variables whose names say they are secrets (8 characters or more). */
	addVariables(env: Readonly<Record<string, string | undefined>>): void {
		// The user's own environment: a path in it may be looked up.
		const where = { home: env.HOME ?? env.USERPROFILE, cwd: env.PWD, mayStat: true };
		for (const [name, value] of Object.entries(env))
			if (isSecretValue(name, value, where) && value.length >= MIN_INHERITED) this.add(value);
	}

	/** Adds values that must never be shown; shorter than 4 characters is ignored. */
	add(...values: (string | undefined)[]): void {
		for (const value of values) {
			if (!value || value.length < MIN_SECRET || this.secrets.has(value)) continue;
			this.remember(value);
			// "Bearer abc": the token alone is also a secret (servers echo it without the scheme).
			const token = /^(?:Bearer|Basic|Token|DPoP)\s+(\S{4,})$/i.exec(value)?.[1];
			if (token) this.remember(token);
		}
	}

	/** The text with every known secret replaced by *** and URL query values and passwords masked. */
	scrub(text: string): string {
		return maskUrls(this.scrubSecrets(text));
	}

	/** Only the known secrets masked: for a URL the user must open whole (a sign-in page). */
	scrubSecrets(text: string): string {
		if (!text || this.matcher.empty) return text;
		try {
			const { starts, ends } = this.matcher.find(text);
			if (starts.length === 0) return text;
			const parts: string[] = [];
			let copied = 0;
			for (let i = 0; i < starts.length; i++) {
				parts.push(text.slice(copied, starts[i]), MASK);
				copied = ends[i];
			}
			parts.push(text.slice(copied));
			return parts.join("");
		} catch {
			// Out of memory, or a fault of ours: the text is not known to be clean, so it is not shown.
			// The error is not either: nothing of it is needed to say what happened.
			return WITHHELD;
		}
	}

	private remember(value: string): void {
		if (this.secrets.has(value)) return;
		this.secrets.add(value);
		for (const form of secretForms(value)) this.matcher.add(form);
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
