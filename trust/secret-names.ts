// What counts as a secret: the rule the README states. A value is masked when its name says it is
// a secret (an environment variable, a `${VAR}` or `!command` in a config value, a server's env
// entry), when it is a header's value (every header but the standard ones that never carry a
// credential, or one whose name says it is a setting), when it is an OAuth credential, or when it
// is the credential part of a URL. What reaches the model intact, even under a secret name: a
// folder or file path, a URL without credentials, a yes/no word, and values shorter than 4.

import { existsSync } from "node:fs";
import { isAbsolute, join, sep } from "node:path";

/** Words that make a name secret (any word of it); compounds written as one word end in one of SECRET_ENDINGS. */
const SECRET_WORDS = new Set([
	"token",
	"tokens",
	"key",
	"keys",
	"apikey",
	"secret",
	"secrets",
	"password",
	"passwords",
	"passwd",
	"pass",
	"pwd",
	"passphrase",
	"auth",
	"authorization",
	"authentication",
	"credential",
	"credentials",
	"creds",
	"cookie",
	"cookies",
	"session",
	"bearer",
	"private",
	"signature",
	"sig",
	"pat",
	"jwt",
]);
const SECRET_ENDINGS = ["token", "key", "secret", "password", "passwd", "cookie"];
/** A last word that makes the name a setting about a secret, not the secret (AUTH_URL, SESSION_TIMEOUT, TOKEN_FILE). */
const SETTING_WORDS = new Set(
	(
		"url uri urls endpoint host hostname port address path paths file files dir dirs directory folder sock socket " +
		"timeout ttl expiry expiration expires lifetime duration interval seconds secs ms minutes hours days " +
		"enabled disabled enable disable required mode type kind scheme method scope scopes region version " +
		"issuer audience provider name format length size count limit user username email"
	).split(" "),
);
/** Names that look secret by their words but hold ordinary, widely printed values. */
const NOT_SECRET = new Set(["PWD", "OLDPWD", "SSH_AUTH_SOCK", "XAUTHORITY"]);
/** Standard headers that never carry a credential: their values are shown. */
const PLAIN_HEADERS = new Set(
	(
		"accept accept-charset accept-encoding accept-language cache-control connection content-language content-type " +
		"dnt host origin pragma prefer referer user-agent mcp-protocol-version x-requested-with"
	).split(" "),
);
const YES_NO = /^(?:true|false|yes|no|on|off|none|null|enabled|disabled)$/i;
/** Below this, a value is never masked: it would mangle common words. */
export const MIN_SECRET = 4;

/** A name's words: split at anything not a letter or digit and where camelCase changes, in lower case. */
export function nameWords(name: string): string[] {
	return name
		.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
		.replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter(Boolean);
}

/** Whether a variable's (or a field's) name says its value is a secret. */
export function isSecretName(name: string): boolean {
	if (NOT_SECRET.has(name.toUpperCase())) return false;
	const words = nameWords(name);
	if (words.length === 0 || SETTING_WORDS.has(words[words.length - 1])) return false;
	return words.some((w) => SECRET_WORDS.has(w) || SECRET_ENDINGS.some((end) => w.endsWith(end)));
}

/** Where paths are read: the home folder, the working folder, and whether a path may be checked on disk. */
export interface PathContext {
	readonly home?: string;
	readonly cwd?: string;
	/** A project's config is not trusted to name what is looked up (an automounted path contacts a host): text only. */
	readonly mayStat?: boolean;
}

function inside(path: string, folder: string | undefined): boolean {
	return !!folder && (path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep));
}

/** A folder or file: the home or working folder or inside them, or (where allowed) an absolute path that exists. */
function isPath(value: string, where: PathContext): boolean {
	const path = value === "~" || value.startsWith("~/") ? join(where.home ?? "~", value.slice(1)) : value;
	if (!isAbsolute(path)) return false;
	if (inside(path, where.home) || inside(path, where.cwd)) return true;
	return where.mayStat === true && existsSync(path);
}

/** A URL (any scheme with //) that carries no credential: no user, no password, no query value under a secret name. */
function isPlainUrl(value: string): boolean {
	if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false;
	try {
		const url = new URL(value);
		return !url.username && !url.password && ![...url.searchParams.keys()].some(isSecretName);
	} catch {
		return false;
	}
}

/** A value that is not a secret whatever its name: a path, a URL without credentials, a yes or no. */
export function plainlyNotSecret(value: string, where: PathContext = {}): boolean {
	return YES_NO.test(value) || isPlainUrl(value) || isPath(value, where);
}

/** A named value (an env entry, a variable): masked when its name says so and the value is not plainly not secret. */
export function isSecretValue(name: string, value: string | undefined, where: PathContext = {}): value is string {
	return !!value && value.length >= MIN_SECRET && isSecretName(name) && !plainlyNotSecret(value, where);
}

/** A header's value: masked unless the header is a standard one, or its name says it is a setting, or the value is plain. */
export function isSecretHeader(name: string, value: string | undefined, where: PathContext = {}): value is string {
	if (!value || value.length < MIN_SECRET || PLAIN_HEADERS.has(name.toLowerCase())) return false;
	const words = nameWords(name);
	return !SETTING_WORDS.has(words[words.length - 1] ?? "") && !plainlyNotSecret(value, where);
}

/** A URL of any scheme in text (postgres://, redis://, amqp://... carry passwords too). */
export const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`)\]]+/gi;

/** The credentials the URLs in a text carry: passwords, a user alone (a Sentry DSN's key), query values under secret names. */
export function urlCredentials(text: string): string[] {
	if (!text.includes("://")) return [];
	const found: string[] = [];
	for (const [raw] of text.matchAll(URL_IN_TEXT)) {
		let url: URL;
		try {
			url = new URL(raw);
		} catch {
			continue;
		}
		if (url.password) found.push(url.password, decodeURIComponentSafe(url.password));
		else if (url.username) found.push(url.username, decodeURIComponentSafe(url.username));
		for (const [key, value] of url.searchParams) if (isSecretName(key)) found.push(value);
	}
	return found.filter((v) => v.length >= MIN_SECRET);
}

function decodeURIComponentSafe(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}
