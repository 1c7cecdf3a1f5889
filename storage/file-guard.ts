// Every file the adapter reads or writes is opened here, because a repository's files are
// untrusted input and the agent dir is shared by every session: only regular files are read
// (a symlink to /dev/zero, a FIFO or a device is an error, never a hang), within a size cap;
// JSON is checked for depth before it is parsed, so no later recursion can overflow the stack;
// a leading byte-order mark is dropped; writes are atomic, go through a symlink the user made
// instead of replacing it, and clean up the temp files a crashed writer left.
import { randomBytes } from "node:crypto";
import {
	chmodSync,
	closeSync,
	constants,
	fstatSync,
	lstatSync,
	mkdirSync,
	openSync,
	readdirSync,
	readSync,
	realpathSync,
	renameSync,
	rmSync,
	type Stats,
	statSync,
	writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

/** Config files, caches, approvals and tokens: far above any real one, far below what hurts. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Deeper JSON than any real config or cache holds (tool schemas are cut at 24 levels). */
export const MAX_JSON_DEPTH = 100;

export type TextRead = { kind: "missing" } | { kind: "error"; message: string } | { kind: "ok"; text: string };

export interface ReadOptions {
	readonly maxBytes?: number;
	/** Refuse a symlink (files only this adapter writes, in the user's private folders). */
	readonly noFollow?: boolean;
}

/** What a file was when read: size, modification time and inode (an atomic rewrite makes a new one), or "missing". */
export type FileStamp = string;

const stampOf = (stat: Stats): FileStamp => `${stat.size}:${stat.mtimeMs}:${stat.ino}`;

/** The stamp a file has now ("missing", or "unreadable" when it cannot even be looked at). */
export function fileStamp(path: string): FileStamp {
	try {
		const stat = statSync(path, { throwIfNoEntry: false });
		return stat ? stampOf(stat) : "missing";
	} catch {
		return "unreadable"; // a folder on the way is not ours to enter: it differs from any readable stamp
	}
}

/** Every file `readTextFile` was asked for while a recording runs, with its stamp as read. */
const recordings = new Set<Map<string, FileStamp>>();

/** Runs `build` and returns, beside its value, every file it read and what each was (a start-up snapshot's inputs). */
export function recordReads<T>(build: () => T): { value: T; reads: Map<string, FileStamp> } {
	const reads = new Map<string, FileStamp>();
	recordings.add(reads);
	try {
		return { value: build(), reads };
	} finally {
		recordings.delete(reads);
	}
}

/** As `recordReads`, for work that awaits: what anything read until it settles. */
export async function recordReadsUntil<T>(
	work: () => Promise<T>,
): Promise<{ value: T; reads: Map<string, FileStamp> }> {
	const reads = new Map<string, FileStamp>();
	recordings.add(reads);
	try {
		return { value: await work(), reads };
	} finally {
		recordings.delete(reads);
	}
}

function recordRead(path: string, stamp: () => FileStamp): void {
	if (recordings.size === 0) return;
	const value = stamp();
	for (const reads of recordings) if (!reads.has(path)) reads.set(path, value);
}

/** Reads a regular file of at most `maxBytes` as UTF-8 (a leading BOM dropped); anything else is an error that says why. */
export function readTextFile(path: string, options: ReadOptions = {}): TextRead {
	const maxBytes = options.maxBytes ?? MAX_FILE_BYTES;
	let fd: number;
	try {
		// O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW where a symlink is not ours.
		const flags =
			constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (options.noFollow ? (constants.O_NOFOLLOW ?? 0) : 0);
		fd = openSync(path, flags);
	} catch (error) {
		recordRead(path, () => fileStamp(path));
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
		if (code === "ELOOP")
			return {
				kind: "error",
				message: "is a symbolic link, which is not followed here; replace it with the file itself",
			};
		return { kind: "error", message: `cannot read: ${(error as Error).message}` };
	}
	try {
		const stat = fstatSync(fd);
		recordRead(path, () => stampOf(stat));
		if (!stat.isFile())
			return { kind: "error", message: "is not a regular file (a device, pipe or folder); point it at a JSON file" };
		if (stat.size > maxBytes)
			return {
				kind: "error",
				message: `is ${megabytes(stat.size)} MB, over the ${megabytes(maxBytes)} MB a file here may have`,
			};
		const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
		let length = 0;
		// A file that grows while read is still cut at the cap.
		for (let n = 1; n > 0 && length < buffer.length; length += n)
			n = readSync(fd, buffer, length, buffer.length - length, null);
		if (length > maxBytes)
			return { kind: "error", message: `is over the ${megabytes(maxBytes)} MB a file here may have` };
		const text = buffer.toString("utf8", 0, length);
		return { kind: "ok", text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
	} catch (error) {
		return { kind: "error", message: `cannot read: ${(error as Error).message}` };
	} finally {
		closeSync(fd);
	}
}

/** How deep a JSON text nests (brackets outside strings), stopping as soon as it passes `limit`. */
export function jsonDepthOver(text: string, limit = MAX_JSON_DEPTH): boolean {
	// The regex engine skips what cannot matter (a cache is mostly long description strings): a
	// char-by-char loop cost ~2 ms of start-up for 20 servers' cache.
	const structure = /["[\]{}]/g;
	const stringEnd = /["\\]/g;
	let depth = 0;
	for (let found = structure.exec(text); found; found = structure.exec(text)) {
		const c = text.charCodeAt(found.index);
		if (c === 34 /* " */) {
			stringEnd.lastIndex = found.index + 1;
			let end = stringEnd.exec(text);
			while (end && text.charCodeAt(end.index) === 92 /* \ */) {
				stringEnd.lastIndex = end.index + 2;
				end = stringEnd.exec(text);
			}
			if (!end) return false; // an unterminated string: JSON.parse says what is wrong
			structure.lastIndex = end.index + 1;
		} else if (c === 91 || c === 123 /* [ { */) {
			if (++depth > limit) return true;
		} else depth--;
	}
	return false;
}

/** How deep a parsed JSON value nests, stopping as soon as it passes `limit` (a loop: no recursion to overflow). */
export function valueDepthOver(value: unknown, limit = MAX_JSON_DEPTH): boolean {
	const values: unknown[] = [value];
	const depths: number[] = [0];
	while (values.length > 0) {
		const node = values.pop();
		const depth = (depths.pop() as number) + 1;
		if (typeof node !== "object" || node === null) continue;
		if (depth > limit) return true;
		// for...in, not Object.values: no array per object (this runs cold, on every start's cache read).
		for (const key in node) {
			const child = (node as Record<string, unknown>)[key];
			if (typeof child !== "object" || child === null) continue;
			values.push(child);
			depths.push(depth);
		}
	}
	return false;
}

/**
 * JSON.parse, refusing a text nested deeper than MAX_JSON_DEPTH (with a message saying so). V8's
 * JSON.parse does not recurse, so the depth is checked on the value: walking what was parsed costs
 * a fraction of scanning the text (the cache read at every start is mostly long strings).
 */
export function parseJson(text: string): unknown {
	const value = JSON.parse(text) as unknown;
	if (valueDepthOver(value))
		throw new Error(`nests deeper than ${MAX_JSON_DEPTH} levels, which no MCP config or cache does`);
	return value;
}

/**
 * JSON with every character past ASCII escaped (`\u2192`): V8 keeps an all-ASCII string at one
 * byte per character, and a file read at every start decodes and parses about twice as fast so
 * (one arrow in 400 KB made the whole text two-byte). Any JSON reader reads it the same.
 */
export function asciiJson(value: unknown, indent?: number): string {
	return JSON.stringify(value, null, indent).replace(
		/[\u007f-\uffff]/g,
		(c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
	);
}

export interface WriteOptions {
	readonly mode?: number;
	/**
	 * A symlink at `path` is replaced, never written through: for a file only this adapter writes
	 * in a folder of its own (the broker's), where a link is not the user's but planted.
	 */
	readonly replaceSymlink?: boolean;
}

/**
 * Writes a file atomically (a temp file beside it, then rename). A symlink at `path` is written
 * through, not replaced: the user made it (unless `replaceSymlink`). Temp files a crashed writer
 * left beside it are removed.
 */
export function writeFileAtomic(path: string, text: string, options: WriteOptions = {}): void {
	const target = options.replaceSymlink ? path : throughSymlink(path);
	mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
	removeStaleTemps(target);
	const temp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
	try {
		writeFileSync(temp, text, { mode: options.mode ?? 0o600, flag: "wx" });
		if (process.platform !== "win32") chmodSync(temp, options.mode ?? 0o600); // the umask may have widened it
		renameSync(temp, target);
	} catch (error) {
		rmSync(temp, { force: true });
		throw error;
	}
}

/**
 * Opens a file of this adapter's own for writing, never through a symlink (ELOOP instead):
 * `append` creates it (0600) if missing and adds to it; `update` writes over an existing one.
 */
export function openOwnFile(path: string, how: "append" | "update"): number {
	const flags = how === "append" ? constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT : constants.O_RDWR;
	return openSync(path, flags | (constants.O_NOFOLLOW ?? 0), 0o600);
}

/** Where a write to `path` should go: the file a symlink points to, or `path` itself. */
function throughSymlink(path: string): string {
	try {
		return lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
	} catch {
		return path; // missing (or a dangling link): the write creates the file
	}
}

const TEMP_NAME = /^(.*)\.(\d+)\.[0-9a-f]+\.tmp$/;

/** Removes `<name>.<pid>.<hex>.tmp` files whose writer is gone (it crashed or was killed mid-write). */
export function removeStaleTemps(path: string): void {
	const name = basename(path);
	let entries: string[];
	try {
		entries = readdirSync(dirname(path));
	} catch {
		return; // no folder yet: nothing left behind
	}
	for (const entry of entries) {
		const match = TEMP_NAME.exec(entry);
		if (!match || match[1] !== name || processAlive(Number(match[2]))) continue;
		rmSync(join(dirname(path), entry), { force: true });
	}
}

function processAlive(pid: number): boolean {
	if (pid === process.pid) return true;
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

/** Moves a damaged file aside (kept for the user, never overwritten); returns where it went. */
export function setAside(path: string, now = Date.now()): string | undefined {
	const aside = `${path}.damaged-${new Date(now).toISOString().replace(/[:.]/g, "-")}`;
	try {
		renameSync(path, aside);
		return aside;
	} catch {
		return undefined; // gone already (another session set it aside first)
	}
}

/** Removes the copies `setAside` made of `path` (of a file that can be made again, whose copies only take room). */
export function removeSetAside(path: string): void {
	const prefix = `${basename(path)}.damaged-`;
	let entries: string[];
	try {
		entries = readdirSync(dirname(path));
	} catch {
		return; // no folder: no copies
	}
	for (const entry of entries) if (entry.startsWith(prefix)) rmSync(join(dirname(path), entry), { force: true });
}

function megabytes(bytes: number): string {
	return (bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 0);
}
