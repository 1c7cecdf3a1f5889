// The roots a server is offered: the session's working folder, the folders of settings.roots, and
// the folders the user gave that server in its config (absolute paths of existing folders among
// its arguments, and its cwd). Servers such as server-filesystem replace the folders of their
// arguments with the client's roots, so roots without those folders would take away what the user
// configured; with them, a server keeps its own folders and learns the session's. A server whose
// config says `"roots": false` is offered none (the client declares no roots to it).
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Root } from "@modelcontextprotocol/client";
import { expandHome } from "../config/interpolate.ts";
import type { ServerEntry } from "../types.ts";

/**
 * The folders offered to every server: the working folder first, then settings.roots (absolute,
 * `~/`, or relative to the working folder).
 */
export function sessionFolders(cwd: string, extra: readonly string[]): string[] {
	return [cwd, ...extra.map((p) => expandHome(p, homedir())).map((p) => (isAbsolute(p) ? p : resolve(cwd, p)))];
}

/**
 * The folders a server's config names: its cwd, and each argument (or the value of a
 * `--name=value` argument) that is the absolute path of an existing folder. Relative arguments
 * are left out: they name places under the server's own folder, which is offered already.
 */
export function configuredFolders(entry: ServerEntry): string[] {
	if (entry.transport !== "stdio") return [];
	const candidates = [
		...(entry.cwd ? [entry.cwd] : []),
		...entry.args.map((arg) => (/^--?[\w-]+=/.test(arg) ? arg.slice(arg.indexOf("=") + 1) : arg)),
	];
	return candidates.filter((path) => isAbsolute(path) && isFolder(path)).map((path) => resolve(path));
}

/** The roots of one server (undefined: it is offered none), each folder once, in order. */
export function serverRoots(session: readonly string[], entry: ServerEntry): Root[] | undefined {
	if (entry.roots === false) return undefined;
	return [...new Set([...session, ...configuredFolders(entry)])].map((folder) => ({
		uri: pathToFileURL(folder).href,
		name: basename(folder) || folder,
	}));
}

function isFolder(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false; // missing, or not ours to read: no folder the server could use
	}
}
