// What a session start registered with Pi (the MCP tools as Pi tools, `mcp`, the resource tools,
// direct tools, prompt commands) and what it showed (status line, start-up notes, the servers
// section), kept per working folder: the next start with the same inputs registers the same from
// this one file, without reading the config and the cache or loading the runtime. On Pi 1.5 with
// 50 cached servers that work was ~90 ms of every start (46 modules through jiti, the config, the
// cache, the catalog); the runtime is built at the first use instead (a call, a command), or while
// the model thinks (start-up/warm-up.ts).
//
// A snapshot holds only until an input changes: each file the runtime read as it was built (size,
// modification time and inode; a file that was missing must still be missing), the environment
// variables it read (a digest: values are never kept), this package's code (its version, and its
// folders, which every install or pull rewrites), the first expiry among the cached servers, and,
// checked at session start, Pi 1.5's project trust and the servers other extensions registered.
// It is written only for a start that does nothing else: no project server awaits approval and no
// server starts (none is eager or keep-alive, every allowed one has its tools cached).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { PromptCommandRecord } from "../pi-commands/prompt-commands.ts";
import type { DirectToolsState } from "../pi-tools/direct-pi-tools.ts";
import type { PiToolsState } from "../pi-tools/pi-tools.ts";
import type { ResourceExposure } from "../pi-tools/resource-pi-tools.ts";
import type { ServerSkills } from "../skills/skill-names.ts";
import { asciiJson, type FileStamp, fileStamp, readTextFile, writeFileAtomic } from "../storage/file-guard.ts";

/** Bumped whenever what a snapshot holds, or how it is read, changes (2: Pi tools keep their output schema; 3: and their titles). */
export const SNAPSHOT_FORMAT = 3;
export const SNAPSHOT_DIR = "mcp-start";
/** Snapshots kept (one per working folder and server limit); the least recently written go first. */
export const MAX_SNAPSHOTS = 32;

/** What a start registered and showed. */
export interface StartState {
	readonly proxy: { readonly description: string; readonly declared: boolean };
	readonly piTools?: PiToolsState;
	readonly resources?: ResourceExposure;
	readonly direct: DirectToolsState;
	readonly prompts: readonly PromptCommandRecord[];
	/** The skills the allowed servers listed, for Pi's skill discovery (pi-session/skill-events.ts). */
	readonly skills?: readonly ServerSkills[];
	/** The Pi tools to activate, as Pi 1.5's MCP does (codemode, tool_search), and whether codemode reaches MCP tools. */
	readonly discovery: { readonly activate: readonly string[]; readonly viaCodemode: boolean };
	readonly status?: string;
	/** What the start printed or notified (config problems, the direct tools' cost), and how loud. */
	readonly notes?: { readonly text: string; readonly level: "warning" | "error" };
	/** The `mcp_servers` system prompt section (Pi 1.5 with codemode). */
	readonly section?: string;
	/** The servers and the turned-off servers, for completions before the runtime is built. */
	readonly servers: readonly string[];
	readonly disabled: readonly string[];
}

/** What the session start sees of Pi that the config does not say. */
export interface SessionInputs {
	/** Pi 1.5's project trust, where it matters (the project has a .pi/mcp.json). */
	readonly trusted?: boolean;
	/** The servers other extensions registered, as stable text. */
	readonly registered: string;
	/** The names of the tools other extensions registered (direct tools' names avoid them). */
	readonly otherTools: string;
}

interface SnapshotFile {
	readonly format: number;
	readonly key: string;
	readonly code: string;
	readonly files: readonly (readonly [string, FileStamp])[];
	readonly envNames: readonly string[];
	readonly env: string;
	readonly expiresAt: number;
	readonly session: SessionInputs;
	readonly state: StartState;
}

/** What identifies a session's snapshot: the folder, the server limit, the Pi line, the home. */
export function snapshotKey(parts: {
	cwd: string;
	onlyServers?: readonly string[];
	piLine: "pi-1.5" | "pi-0.73";
}): string {
	return JSON.stringify([parts.cwd, parts.onlyServers ?? null, parts.piLine, homedir()]);
}

function snapshotPath(agentDir: string, key: string): string {
	return join(agentDir, SNAPSHOT_DIR, `${createHash("sha256").update(key).digest("hex").slice(0, 24)}.json`);
}

/** A digest of the variables `names` (their values never leave this function). */
function envDigest(names: readonly string[], env: Readonly<Record<string, string | undefined>>): string {
	const hash = createHash("sha256");
	for (const name of names) hash.update(`${name}\0${env[name] ?? "\u0001unset"}\0`);
	return hash.digest("base64url");
}

const PACKAGE_ROOT = join(import.meta.dirname, "..");
/** A clone's folders that hold no code a session runs. */
const NOT_RUN = new Set(["node_modules", "dist", "tests", "bench", "scripts", "scratch"]);

/**
 * The folders this package's code runs from: the build, dist/ (this module is built into it:
 * scripts/build.ts), or in a clone every source folder.
 */
function codeFolders(): string[] {
	if (basename(import.meta.dirname) === "dist") return [import.meta.dirname];
	return readdirSync(PACKAGE_ROOT, { withFileTypes: true })
		.filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && !NOT_RUN.has(entry.name))
		.map((entry) => join(PACKAGE_ROOT, entry.name));
}

/** This package's code as installed: its version and the stamps of its folders (an install, a build or a pull rewrites them). */
function codeIdentity(): string {
	const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version?: string };
	const stamps = [PACKAGE_ROOT, ...codeFolders()].map((folder) => `${folder}=${statSync(folder).mtimeMs}`);
	return `${SNAPSHOT_FORMAT}|${version}|${stamps.join("|")}`;
}

/**
 * The state a snapshot kept for `key`, if every input it was made from is as it was; the session
 * start then checks `matchesSession`. Undefined when there is none, or anything changed.
 */
export function readSnapshot(
	agentDir: string,
	key: string,
	env: Readonly<Record<string, string | undefined>>,
	now = Date.now(),
): { state: StartState; session: SessionInputs } | undefined {
	const read = readTextFile(snapshotPath(agentDir, key));
	if (read.kind !== "ok") return undefined;
	try {
		const file = JSON.parse(read.text) as SnapshotFile;
		if (file?.format !== SNAPSHOT_FORMAT || file.key !== key || !(now < file.expiresAt)) return undefined;
		if (file.code !== codeIdentity()) return undefined;
		for (const [path, stamp] of file.files) if (fileStamp(path) !== stamp) return undefined;
		if (envDigest(file.envNames, env) !== file.env) return undefined;
		return { state: file.state, session: file.session };
	} catch {
		// Damaged, or the package cannot be looked at: only a missed head start. The long way says
		// what is wrong, if anything is, and writes the snapshot anew.
		return undefined;
	}
}

/** Whether what the session start sees of Pi is what the snapshot was made with. */
export function matchesSession(kept: SessionInputs, now: SessionInputs): boolean {
	return kept.trusted === now.trusted && kept.registered === now.registered && kept.otherTools === now.otherTools;
}

export interface SnapshotInputs {
	readonly key: string;
	/** Every file the runtime read as it was built, with its stamp then. */
	readonly files: ReadonlyMap<string, FileStamp>;
	/** Every environment variable it read. */
	readonly envNames: Iterable<string>;
	readonly env: Readonly<Record<string, string | undefined>>;
	/** When the first of the cached servers it used expires. */
	readonly expiresAt: number;
	readonly session: SessionInputs;
}

/** Keeps what this start registered, for the next start with the same inputs. */
export function writeSnapshot(agentDir: string, inputs: SnapshotInputs, state: StartState): void {
	const envNames = [...new Set(inputs.envNames)].sort();
	// A start with no cached server holds until an input changes (JSON has no Infinity).
	const expiresAt = Number.isFinite(inputs.expiresAt) ? inputs.expiresAt : Number.MAX_SAFE_INTEGER;
	const file: SnapshotFile = {
		format: SNAPSHOT_FORMAT,
		key: inputs.key,
		code: codeIdentity(),
		files: [...inputs.files],
		envNames,
		env: envDigest(envNames, inputs.env),
		expiresAt,
		session: inputs.session,
		state,
	};
	const path = snapshotPath(agentDir, inputs.key);
	writeFileAtomic(path, asciiJson(file));
	prune(dirname(path));
}

/** Keeps the MAX_SNAPSHOTS most recently written. */
function prune(folder: string): void {
	const files = readdirSync(folder).filter((name) => name.endsWith(".json"));
	if (files.length <= MAX_SNAPSHOTS) return;
	const byAge = files
		.map((name) => ({ path: join(folder, name), at: statSync(join(folder, name), { throwIfNoEntry: false })?.mtimeMs }))
		.sort((a, b) => (b.at ?? 0) - (a.at ?? 0));
	for (const { path } of byAge.slice(MAX_SNAPSHOTS)) rmSync(path, { force: true });
}

/** An environment that notes every variable read from it (the names a snapshot depends on). */
export function recordingEnv(env: Readonly<Record<string, string | undefined>>): {
	env: Readonly<Record<string, string | undefined>>;
	names: Set<string>;
} {
	const names = new Set<string>();
	const proxy = new Proxy(env, {
		get(target, name, receiver) {
			if (typeof name === "string") names.add(name);
			return Reflect.get(target, name, receiver);
		},
		has(target, name) {
			if (typeof name === "string") names.add(name);
			return Reflect.has(target, name);
		},
	});
	return { env: proxy, names };
}
