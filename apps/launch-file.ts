// The file an MCP App's page is opened through. A browser is started with what it opens on its
// command line, and `ps` (/proc/*/cmdline) shows every command line to every local user, who could
// follow an address there before the browser does. So the browser is handed the path of a small
// page in a folder only the user can enter (0700, the file 0600), and that page carries the
// page's one-time launch token to the loopback server: another user sees the path and cannot read
// it. The folder goes as soon as the token is used, or with the page.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface LaunchFile {
	/** The page's absolute path (what the browser is handed). */
	readonly path: string;
	/** Removes it and its folder (idempotent). */
	remove(): void;
}

/** Writes `html` as `open.html` in a new private folder under `parent` (made private if missing). */
export function writeLaunchFile(parent: string, html: string): LaunchFile {
	mkdirSync(parent, { recursive: true, mode: 0o700 });
	// A folder of its own, made by mkdtemp: new (never one already there) and 0700 whatever the umask.
	const dir = mkdtempSync(join(parent, "page-"));
	const path = join(dir, "open.html");
	try {
		writeFileSync(path, html, { mode: 0o600, flag: "wx" });
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw new Error(`could not write the app's launch page in ${dir}`, { cause: error });
	}
	let removed = false;
	return {
		path,
		remove() {
			if (removed) return;
			removed = true;
			try {
				rmSync(dir, { recursive: true, force: true });
			} catch {
				// Left behind: only the user can read it, and its token is dead once the page is used or closed.
			}
		},
	};
}
