// Small JSON files shared by every Pi session of a user (metadata cache, approvals, tokens):
// read leniently, updated under a cross-process lock (proper-lockfile, as Pi itself uses),
// merged with what is on disk at that moment, and written atomically (temp file + rename),
// private to the user (0600). A damaged file is set aside before it is rewritten: other
// projects' approvals, other servers' sign-ins are the user's, not ours to drop.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { once } from "../bounds/waits.ts";
import { asciiJson, parseJson, type ReadOptions, readTextFile, setAside, writeFileAtomic } from "./file-guard.ts";

/** The cross-process lock (proper-lockfile): at the first locked write (cache, approvals, sign-ins) or broker start. */
export const loadLockfile = once(() => import("proper-lockfile"));

/** The parsed file, "missing" when there is none, or "invalid" when it is not JSON (or not a regular file within the size cap). */
export function readJsonFile(path: string, options: ReadOptions = {}): unknown | "missing" | "invalid" {
	const read = readTextFile(path, options);
	if (read.kind === "missing") return "missing";
	if (read.kind === "error") return "invalid";
	try {
		return parseJson(read.text);
	} catch {
		return "invalid";
	}
}

/** Writes JSON atomically with mode 0600, creating the folder (0700) if needed; `compact`: with no indentation. */
export function writeJsonFileAtomic(path: string, value: unknown, compact = false): void {
	writeFileAtomic(path, `${asciiJson(value, compact ? undefined : 1)}\n`);
}

export interface LockOptions {
	/** A lock older than this is taken over (its holder died). Default 10 s. */
	readonly staleMs?: number;
}

export interface UpdateOptions extends LockOptions {
	/** Read at most this much (default MAX_FILE_BYTES): past it the file reads as invalid. */
	readonly maxBytes?: number;
	/**
	 * A file that reads as invalid is kept beside it (default). False for a file made only of what
	 * can be listed again (the metadata cache): it is replaced, and no copy of it piles up.
	 */
	readonly keepDamaged?: boolean;
	/** Written with no indentation (a large file read at every start). */
	readonly compact?: boolean;
}

/**
 * Runs `update` on the current content under a cross-process lock and writes what it returns
 * (undefined: write nothing). Returns what was written, or the unchanged content.
 */
export async function updateJsonFile<T>(
	path: string,
	parse: (raw: unknown | "missing" | "invalid") => T,
	update: (current: T) => T | undefined | Promise<T | undefined>,
	options: UpdateOptions = {},
): Promise<T> {
	return withFileLock(
		path,
		async () => {
			const raw = readJsonFile(path, { maxBytes: options.maxBytes });
			// Kept beside it (`<name>.damaged-<time>`): what it held may still be read by hand.
			if (raw === "invalid" && options.keepDamaged !== false) setAside(path);
			const current = parse(raw);
			// May be async (an OAuth refresh): the lock is held until the result is written.
			const next = await update(current);
			if (next === undefined) return current;
			writeJsonFileAtomic(path, next, options.compact);
			return next;
		},
		options,
	);
}

/** Runs `work` holding the cross-process lock of `path` (the file need not exist): read, change and write there. */
export async function withFileLock<T>(path: string, work: () => Promise<T> | T, options: LockOptions = {}): Promise<T> {
	mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
	// Imported on the first write only: a session that only reads never pays for it.
	const { lock } = await loadLockfile();
	const release = await lock(path, {
		realpath: false,
		stale: options.staleMs ?? 10_000,
		// A holder may run a network request (a token refresh): waiting up to ~20 s is normal.
		retries: { retries: 100, minTimeout: 10, maxTimeout: 200 },
	});
	try {
		return await work();
	} finally {
		await release();
	}
}
