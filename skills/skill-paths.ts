// Paths between a skill's URIs and its folder on disk. A file's place in the folder comes from its
// URI below the skill's root, segment by segment, and any segment that could step out of the
// folder (`..`, `.`, empty, a slash or backslash once decoded, NUL) or that Windows would write
// somewhere else (a trailing dot or space; `:`, which writes a stream of another file; a device
// name such as `CON` or `aux.md`; a character Windows refuses) refuses the file: a server names
// its files, and no name of its may write outside the skill's folder, on any system Pi runs on. Two names one file system takes for one file
// (`skill.md` beside `SKILL.md` on macOS or Windows) refuse the skill: one would overwrite the other.
// And the other way: which skill files a tool call names (a path in its arguments, or a command
// that mentions one), so that a file is fetched when it is read and not before (SEP-2640).
import { homedir } from "node:os";
import { isAbsolute, join, posix, relative, resolve, sep } from "node:path";

/** The URI as the WHATWG parser writes it (how the SDK compares skill URIs), or undefined. */
function canonical(uri: string): string | undefined {
	try {
		return new URL(uri).href;
	} catch {
		return undefined;
	}
}

function decoded(segment: string): string | undefined {
	try {
		return decodeURIComponent(segment);
	} catch {
		return undefined;
	}
}

/** Separators, NUL, and what Windows refuses or reads as a stream (`SKILL.md:x`) or a control character. */
const UNSAFE_SEGMENT = /[/\\<>:"|?*\p{Cc}]/u;
/** Windows' device names, alone or with any extension (`nul.md` is the null device). */
const DEVICE_NAME = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;
/** Windows drops a trailing dot or space from a name (`SKILL.md.` is `SKILL.md`): no segment may end in one. */
const TRIMMED_END = /[. ]$/;

/**
 * Where a file of the skill lives below its folder (`references/FORMS.md`), from the skill's
 * SKILL.md URI and the file's URI; undefined for a file outside the skill's root or whose name
 * could leave the folder.
 */
export function skillFilePath(skillUri: string, fileUri: string): string | undefined {
	const skill = canonical(skillUri);
	const file = canonical(fileUri);
	if (!skill?.endsWith("/SKILL.md") || !file || /[?#]/.test(file)) return undefined;
	const root = skill.slice(0, -"/SKILL.md".length);
	if (!file.startsWith(`${root}/`)) return undefined;
	const segments = file
		.slice(root.length + 1)
		.split("/")
		.map(decoded);
	const safe = segments.every(
		(s): s is string =>
			s !== undefined && s !== "" && !TRIMMED_END.test(s) && !UNSAFE_SEGMENT.test(s) && !DEVICE_NAME.test(s),
	);
	return safe ? segments.join("/") : undefined;
}

/**
 * Two of a skill's paths that one file system would take for the same file (or a file for a
 * folder): on macOS and Windows `skill.md` is `SKILL.md`, and Windows drops trailing dots and
 * spaces, so the later write would replace the earlier one. Undefined when every path is its own.
 */
export function clashingPaths(paths: readonly string[]): [string, string] | undefined {
	const seen = new Map<string, string>();
	for (const path of paths) {
		const key = foldedPath(path);
		const earlier = seen.get(key);
		if (earlier !== undefined) return [earlier, path];
		seen.set(key, path);
	}
	// A file where another path has a folder (`a.md` and `A.md/x`).
	for (const path of paths) {
		const segments = foldedPath(path).split("/");
		for (let i = 1; i < segments.length; i++) {
			const file = seen.get(segments.slice(0, i).join("/"));
			if (file !== undefined) return [file, path];
		}
	}
	return undefined;
}

/** A path as a case-insensitive, normalization-insensitive file system that trims names compares it. */
function foldedPath(path: string): string {
	return path
		.normalize("NFC")
		.split("/")
		.map((segment) => segment.replace(/[. ]+$/, "").toLowerCase())
		.join("/");
}

/** `relative` below `folder` as an absolute path, or undefined if it would not stay inside. */
export function inside(folder: string, relativePath: string): string | undefined {
	const full = resolve(folder, ...relativePath.split("/"));
	return full.startsWith(`${folder}${sep}`) ? full : undefined;
}

/** A skill's folder (by its Pi name) and what in it a tool call names: "" for the folder itself. */
export interface Mention {
	readonly piName: string;
	readonly path: string;
}

/** Where a path mentioned in a command ends: whitespace, quotes, shell punctuation. */
const PATH_END = /[\s"'`;|&()<>,]/;
/** From a glob character on, a mention names the folder it is in (`scripts/*.py` -> `scripts/`). */
const GLOB = /[*?[{]/;

/**
 * Every skill file or folder below `root` that a tool call's arguments name: absolute paths
 * anywhere in its strings (a command, a script), and relative ones (against `cwd`, `~` as home)
 * in a field that is a path of its own (the `read` tool's `path`).
 */
export function mentions(input: unknown, root: string, cwd: string): Mention[] {
	const found = new Map<string, Mention>();
	const add = (absolute: string) => {
		const mention = mentionOf(root, absolute);
		if (mention) found.set(`${mention.piName}/${mention.path}`, mention);
	};
	const visit = (value: unknown, key: string | undefined, depth: number) => {
		if (depth > 8) return;
		if (typeof value === "string") {
			for (const at of occurrences(value, root)) add(value.slice(at, endOfPath(value, at)));
			if (key && /path|file|dir/i.test(key) && !PATH_END.test(value.trim())) add(resolvePath(value.trim(), cwd));
		} else if (Array.isArray(value)) for (const item of value) visit(item, key, depth + 1);
		else if (value && typeof value === "object")
			for (const [k, v] of Object.entries(value as Record<string, unknown>)) visit(v, k, depth + 1);
	};
	visit(input, undefined, 0);
	return [...found.values()];
}

function occurrences(text: string, root: string): number[] {
	const at: number[] = [];
	for (let i = text.indexOf(root); i >= 0; i = text.indexOf(root, i + root.length)) at.push(i);
	return at;
}

function endOfPath(text: string, from: number): number {
	const rest = text.slice(from);
	const end = rest.search(PATH_END);
	return end < 0 ? text.length : from + end;
}

/** A path as Pi's file tools take it: `~` is home, `@` a leading marker some models add, relative to the folder. */
function resolvePath(path: string, cwd: string): string {
	const bare = path.startsWith("@") ? path.slice(1) : path;
	if (bare === "~" || bare.startsWith("~/")) return join(homedir(), bare.slice(1));
	return isAbsolute(bare) ? bare : resolve(cwd, bare);
}

function mentionOf(root: string, absolute: string): Mention | undefined {
	const cut = absolute.search(GLOB);
	const path = cut < 0 ? absolute : absolute.slice(0, absolute.lastIndexOf("/", cut) + 1);
	const below = relative(root, resolve(path));
	if (below === "" || below.startsWith("..") || isAbsolute(below)) return undefined;
	const [piName, ...rest] = below.split(sep);
	return { piName, path: posix.normalize(rest.join("/") || ".").replace(/^\.$/, "") };
}
