// Installs the package an `npx` server runs into npm's own npx folder for it, so that no server
// ever runs from, and no session ever leaves, a folder whose install has not finished.
//
// What npm (10 and 11) writes in `_npx/<hash>`, in order: every package under node_modules (in
// parallel: a package's own package.json often lands seconds before the dependencies it imports),
// their bin links, then the folder's package.json, package-lock.json, node_modules/.package-lock.json;
// npm 11 holds `concurrency.lock` (a folder it touches every second) while it reads the tree and
// while it writes it, and rewrites package.json once more after. So the folder's package.json
// means every package is there, as long as only one npm works in the folder: a second one whose
// view of the tree is older (npm 10 has no lock; npm 11 reads the tree and writes it under two
// separate holds) extracts every package again over the first one's finished install, emptying
// each package folder first, and an npm killed midway leaves node_modules without the folder's
// package.json. Hence:
// - one installer per folder: a detached worker that claims the folder by creating its marker
//   (`<hash>.pi-mcp-install`, O_EXCL, its pid inside) before anything else, and outlives Pi (an
//   install is never cut in half); a session that finds the claim held, or npm's lock fresh, waits;
// - the claim holder alone removes what a cut install left, and a failed install leaves nothing;
// - a marker is believed only while its pid is a live process whose command line names it (a
//   worker killed outright leaves its marker, and its pid may be reused by anything); where no
//   command line can be read (Windows), only for twice the default install budget.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { sleep } from "../bounds/waits.ts";
import { DEFAULT_SETTINGS } from "../types.ts";

/** Who installs a folder: what and since when (for "installing pkg with npm, 12 s"). */
export interface InstallProgress {
	readonly spec: string;
	readonly since: number;
}

export interface InstallWait {
	readonly spec: string;
	/** Ends the wait (the install goes on). */
	readonly signal?: AbortSignal;
	/** When the wait gives up (epoch ms; the install goes on). */
	readonly deadline: number;
	/** Told about once a second while an install is waited for. */
	readonly onProgress?: (progress: InstallProgress) => void;
}

export interface InstallRun extends InstallWait {
	/** The `node` that runs the worker (npm's own, from PATH). */
	readonly node: string;
	/** npm's environment: the server's, with npm_config_cache set. */
	readonly env: Readonly<Record<string, string | undefined>>;
	/** Where npx would run (npm looks at that folder's own packages first). */
	readonly cwd?: string;
}

/** How an install ended: the folder finished, npm chose not to install there (the project has the package), or the wait ended first. */
export type InstallOutcome = "finished" | "declined" | "waiting";

/** npm's locks count as held this long after their last touch (npm's own threshold, libnpmexec with-lock.js). */
const NPM_LOCK_STALE_MS = 60_000;
const POLL_MS = 250;
/** The worker's exit codes: another installer claimed the folder first; the marker could not be written. */
const CLAIMED = 3;
const UNCLAIMABLE = 4;

/** Beside npm's folder for a spec: the claim of the worker installing it (removed when it ends). */
export function installMarker(folder: string): string {
	return `${folder}.pi-mcp-install`;
}

/** Why the last install into the folder failed (npm's own words), kept until one succeeds. */
function failureFile(folder: string): string {
	return `${installMarker(folder)}.failed`;
}

/** Whether npm finished the folder: its package.json comes after every package (see above). */
export function installFinished(folder: string): boolean {
	return existsSync(join(folder, "package.json"));
}

/** Whether an installer may be at work in the folder (cheap; `waitForInstallers` tells for sure). */
export function installerPresent(folder: string): boolean {
	return existsSync(installMarker(folder)) || npmLockSince(folder) !== undefined;
}

/** When npm's own lock on the folder was taken, while it is held (npm 11). */
function npmLockSince(folder: string): number | undefined {
	try {
		const lock = statSync(join(folder, "concurrency.lock"));
		return Date.now() - lock.mtimeMs < NPM_LOCK_STALE_MS ? lock.ctimeMs : undefined;
	} catch {
		return undefined; // no lock: npm is not installing here
	}
}

interface Claim {
	readonly raw: string;
	/** Undefined while the worker is still writing it (a marker is created empty, then written). */
	readonly pid?: number;
	readonly since: number;
}

/** A claim still empty this long after it was made is one whose worker died while writing it. */
const WRITING_MS = 5000;

function readClaim(marker: string): Claim | undefined {
	let raw: string;
	let made: number;
	try {
		raw = readFileSync(marker, "utf8");
		made = statSync(marker).mtimeMs;
	} catch {
		return undefined; // no marker: no worker of ours
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw);
	} catch {
		return { raw, since: made }; // being written
	}
	// An earlier version's marker holds the pid alone.
	const { pid, since } = (typeof parsed === "number" ? { pid: parsed } : parsed) as { pid?: unknown; since?: unknown };
	return { raw, pid: Number(pid), since: typeof since === "number" ? since : made };
}

/**
 * A claim whose worker cannot be told from another process (no command line to read: Windows) is
 * believed this long after it was made, twice the default install budget: a pid reused since
 * holds each start for one install budget, not for as long as that other process lives.
 */
const UNVERIFIED_CLAIM_MS = 2 * DEFAULT_SETTINGS.installTimeoutMs;

/** Whether the claim's worker is at work: alive and ours, or still writing its claim. */
function claimHeld(claim: Claim, marker: string): boolean {
	if (claim.pid === undefined) return Date.now() - claim.since < WRITING_MS;
	return runsInstaller(claim.pid, marker, claim.since);
}

/**
 * Whether `pid` is the worker that wrote `marker` at `since`: alive, and its command line names
 * the marker (a pid named by a worker that was killed outright can belong to any process by now).
 * Where no command line can be read (Windows), a live pid is believed for UNVERIFIED_CLAIM_MS.
 */
export function runsInstaller(
	pid: number,
	marker: string,
	since: number,
	readCommandLine: (pid: number) => string | undefined = commandLine,
): boolean {
	if (!Number.isInteger(pid) || pid <= 0) return false;
	try {
		process.kill(pid, 0);
	} catch {
		return false; // gone, or (EPERM) another user's process: our worker runs as us
	}
	const line = readCommandLine(pid);
	return line === undefined ? Date.now() - since < UNVERIFIED_CLAIM_MS : line.includes(marker);
}

/** A process's command line: /proc on Linux, `ps` elsewhere; undefined where neither can tell. */
function commandLine(pid: number): string | undefined {
	if (existsSync("/proc/self/cmdline")) {
		try {
			return readFileSync(`/proc/${pid}/cmdline`, "utf8");
		} catch {
			return ""; // gone since
		}
	}
	if (process.platform === "win32") return undefined;
	try {
		return execFileSync("ps", ["-ww", "-o", "args=", "-p", String(pid)], {
			encoding: "utf8",
			stdio: ["ignore", "pipe", "ignore"],
		});
	} catch (error) {
		// ps ran and found no such process (exit 1); no ps at all: nothing can be told.
		return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : "";
	}
}

/** Removes a marker that no live worker holds, unless it changed meanwhile (a new worker claimed it). */
function removeStale(marker: string, claim: Claim): void {
	try {
		if (readFileSync(marker, "utf8") === claim.raw) rmSync(marker, { force: true });
	} catch {
		// gone already
	}
}

/**
 * Waits while an installer works in the folder: a worker of ours (any session's, verified) or npm
 * itself (its lock held); a stale marker is removed. True once none is at work, false when the
 * deadline came first; rejects when `signal` aborts.
 */
export async function waitForInstallers(folder: string, wait: InstallWait): Promise<boolean> {
	const marker = installMarker(folder);
	let told = 0;
	for (;;) {
		wait.signal?.throwIfAborted();
		const claim = readClaim(marker);
		if (claim && !claimHeld(claim, marker)) {
			removeStale(marker, claim);
			continue;
		}
		const since = claim?.since ?? npmLockSince(folder);
		if (since === undefined) return true;
		if (Date.now() >= wait.deadline) return false;
		if (Date.now() - told >= 1000) {
			told = Date.now();
			wait.onProgress?.({ spec: wait.spec, since });
		}
		await (wait.signal ? sleep(POLL_MS, wait.signal) : new Promise((r) => setTimeout(r, POLL_MS)));
	}
}

/**
 * Runs one install of `spec` into `folder` through a detached worker, and waits for it to end (or
 * for the other installer that claimed the folder first). Throws npm's own error when it failed.
 */
export async function runInstall(folder: string, run: InstallRun): Promise<InstallOutcome> {
	const started = Date.now();
	const code = await startWorker(folder, run);
	if (code === "waiting") return "waiting";
	if (code === CLAIMED) {
		// Another session claimed it between our look and our claim: its install is the one to wait for.
		if (!(await waitForInstallers(folder, run))) return "waiting";
	}
	if (installFinished(folder)) return "finished";
	const failure = failureSince(folder, started);
	if (failure !== undefined) throw new Error(`npm could not install ${run.spec}: ${failure}`);
	return "declined";
}

/** What npm said when the last install failed, if it failed after `since`. */
function failureSince(folder: string, since: number): string | undefined {
	const file = failureFile(folder);
	try {
		if (statSync(file).mtimeMs < since - 1000) return undefined;
		const text = readFileSync(file, "utf8").trim();
		const lines = text.split("\n").filter((l) => /\S/.test(l) && !/^npm (error|ERR!) (A complete log|$)/.test(l));
		return lines.slice(-6).join("\n") || "npm failed";
	} catch {
		return undefined; // no failure recorded
	}
}

/**
 * Starts the worker and waits for its exit (an event), telling progress once a second. Its exit
 * code, or "waiting" when the deadline came first; rejects when `signal` aborts. Either way the
 * worker goes on: it is detached, with no pipe to this process.
 */
function startWorker(folder: string, run: InstallRun): Promise<number | "waiting"> {
	const marker = installMarker(folder);
	return new Promise((resolve, reject) => {
		let child: ReturnType<typeof spawn>;
		try {
			child = spawn(run.node, ["-e", WORKER, marker, folder, run.spec], {
				env: run.env,
				cwd: run.cwd,
				detached: true,
				stdio: "ignore",
				windowsHide: true,
			});
		} catch {
			return resolve(UNCLAIMABLE); // could not start it: npx as configured says why
		}
		const since = Date.now();
		const tell = () => run.onProgress?.({ spec: run.spec, since: readClaim(marker)?.since ?? since });
		const ticker = setInterval(tell, 1000);
		const untilDeadline = setTimeout(() => finish("waiting"), Math.max(0, run.deadline - Date.now()));
		const onAbort = () => finish(undefined);
		let ended = false;
		const finish = (result: number | "waiting" | undefined) => {
			if (ended) return; // the wait ended already (the deadline, an abort); the worker goes on
			ended = true;
			clearInterval(ticker);
			clearTimeout(untilDeadline);
			run.signal?.removeEventListener("abort", onAbort);
			if (result === undefined) reject(run.signal?.reason);
			else resolve(result);
		};
		tell();
		run.signal?.addEventListener("abort", onAbort, { once: true });
		child.once("error", () => finish(UNCLAIMABLE));
		child.once("exit", (code) => finish(code ?? 1));
		child.unref(); // the session may end first: the install goes on
	});
}

/**
 * The detached worker (argv: marker, folder, spec). Claims the folder (O_EXCL), removes what a cut
 * install left, runs `npm exec --package=<spec> -- node -e ""` (npm hashes the spec as `npx <spec>`
 * does, and runs nothing but the install; never through a shell, the spec being a repository's text),
 * and on failure removes what npm left and keeps npm's words for the sessions waiting; then gives up
 * its claim. Exits 3 when another holds the claim.
 */
export const WORKER = `
const [marker, folder, spec] = process.argv.slice(1);
const fs = require("node:fs");
const path = require("node:path");
const { spawnSync } = require("node:child_process");
const finished = () => fs.existsSync(path.join(folder, "package.json"));
const npmLocked = () => {
	try {
		return Date.now() - fs.statSync(path.join(folder, "concurrency.lock")).mtimeMs < ${NPM_LOCK_STALE_MS};
	} catch {
		return false;
	}
};
try {
	fs.mkdirSync(path.dirname(marker), { recursive: true });
	fs.writeFileSync(marker, JSON.stringify({ pid: process.pid, spec, since: Date.now() }), { flag: "wx" });
} catch (error) {
	process.exit(error && error.code === "EEXIST" ? ${CLAIMED} : ${UNCLAIMABLE});
}
let ok = false;
try {
	if (!finished() && !npmLocked()) fs.rmSync(folder, { recursive: true, force: true });
	// Never through a shell (the spec is a repository's text): on Windows npm is a .cmd script, which
	// Node runs only through cmd.exe, so npm's own JavaScript is run by this node instead.
	const [cli, first] = process.platform === "win32"
		? [process.execPath, [path.join(path.dirname(process.execPath), "node_modules", "npm", "bin", "npm-cli.js")]]
		: ["npm", []];
	const npm = spawnSync(cli, [...first, "exec", "--yes", "--package=" + spec, "--", "node", "-e", ""], {
		stdio: ["ignore", "ignore", "pipe"],
		encoding: "utf8",
		maxBuffer: 64 * 1024 * 1024,
		windowsHide: true,
	});
	ok = npm.status === 0;
	if (ok) fs.rmSync(marker + ".failed", { force: true });
	else {
		if (!finished() && !npmLocked()) fs.rmSync(folder, { recursive: true, force: true });
		const said = String(npm.stderr || (npm.error && npm.error.message) || "npm exited with " + npm.status);
		fs.writeFileSync(marker + ".failed", said.slice(-4000));
	}
} finally {
	fs.rmSync(marker, { force: true });
}
process.exit(ok ? 0 : 1);
`;
