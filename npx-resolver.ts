// Runs `npx pkg` / `npm exec pkg` servers straight from npm's npx cache (`node <bin>`), skipping
// the npm parent process (~60 MB and ~300 ms per server). Mirrors npm's own choice:
// - `pkg@1.2.3`: the npx cache folder npm would use for that spec, only if it holds 1.2.3;
// - a range, tag or bare name: npm asks the registry, so we ask npm (`npm view`, in the
//   background, remembered in <agentDir>/mcp-npx-cache.json for an hour) and use the cached
//   install only if it is exactly that version.
// Any doubt (unknown flags, another spec type, nothing cached) runs npx as configured.
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, delimiter, extname, join } from "node:path";
import { parseJson, readTextFile, writeFileAtomic } from "./storage/file-guard.ts";
import type { StdioServerEntry } from "./types.ts";

export const NPX_CACHE_FILE = "mcp-npx-cache.json";
const VERSION_TTL_MS = 60 * 60 * 1000;
const EXACT = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const SAFE_FLAGS = new Set(["-y", "--yes", "-q", "--quiet", "--silent", "--prefer-offline", "--no-update-notifier"]);

export interface NpxInvocation {
	/** The spec exactly as written (npm hashes it to name the npx cache folder). */
	readonly spec: string;
	readonly name: string;
	/** Undefined for a bare name. */
	readonly range?: string;
	readonly args: readonly string[];
}

export interface Launch {
	readonly command: string;
	readonly args: readonly string[];
}

/** npm's own limit on a package name, with room for a version. */
const MAX_SPEC_LENGTH = 256;

/** Recognizes `npx [flags] spec args...` and `npm exec|x [flags] [--] spec [--] args...`. */
export function parseNpx(command: string, args: readonly string[]): NpxInvocation | undefined {
	const tool = basename(command).replace(/\.(cmd|exe)$/i, "");
	let rest = [...args];
	if (tool === "npm") {
		if (rest[0] !== "exec" && rest[0] !== "x") return undefined;
		rest = rest.slice(1);
	} else if (tool !== "npx") {
		return undefined;
	}
	while (rest.length > 0 && rest[0].startsWith("-") && rest[0] !== "--") {
		if (!SAFE_FLAGS.has(rest[0])) return undefined; // -p, -c, --package=...: not a plain run
		rest = rest.slice(1);
	}
	if (rest[0] === "--") rest = rest.slice(1);
	const spec = rest[0];
	if (!spec || spec.length > MAX_SPEC_LENGTH) return undefined;
	// A registry name and a version, range or tag of plain characters only: git, url and file specs,
	// and anything a shell would read (`&`, `|`, quotes, spaces, `%`, `$`), are npx's own business.
	const match = /^((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*)(?:@([\w.^~*+-]+))?$/i.exec(spec);
	if (!match) return undefined;
	const binArgs = rest.slice(1);
	return { spec, name: match[1], range: match[2], args: binArgs[0] === "--" ? binArgs.slice(1) : binArgs };
}

/** npm's npx cache folder for one spec: `<cache>/_npx/<first 16 hex of sha512(spec)>`. */
export function npxInstallDir(spec: string, npmCache: string): string {
	return join(npmCache, "_npx", createHash("sha512").update(spec).digest("hex").slice(0, 16));
}

export function defaultNpmCache(env: Readonly<Record<string, string | undefined>> = process.env): string {
	if (env.npm_config_cache) return env.npm_config_cache;
	if (process.platform === "win32" && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, "npm-cache");
	return join(homedir(), ".npm");
}

/**
 * `node` as npx would run it: the first on PATH. Not Pi's own executable, which may be a compiled
 * Pi binary, or a Node other than the user's.
 */
export function nodeOnPath(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
	const names = process.platform === "win32" ? ["node.exe"] : ["node"];
	for (const dir of (env.PATH ?? env.Path ?? "").split(delimiter)) {
		for (const name of names) {
			const candidate = join(dir, name);
			try {
				accessSync(candidate, constants.X_OK);
				if (statSync(candidate).isFile()) return candidate;
			} catch {
				// not here
			}
		}
	}
	return undefined;
}

/** The bin npm would run for a package, per npm's own rule (the only bin, or the one named like the package); `node` runs JS bins. */
export function binFor(pkgDir: string, node: string | undefined): Launch | undefined {
	let manifest: { name?: string; bin?: string | Record<string, string> };
	try {
		manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
	} catch {
		return undefined;
	}
	const unscoped = (manifest.name ?? "").replace(/^@[^/]+\//, "");
	const bins = typeof manifest.bin === "string" ? { [unscoped]: manifest.bin } : (manifest.bin ?? {});
	const targets = [...new Set(Object.values(bins))];
	const target = targets.length === 1 ? targets[0] : bins[unscoped];
	if (!target) return undefined;
	const file = join(pkgDir, target);
	if (!existsSync(file)) return undefined;
	if (!isNodeScript(file)) return { command: file, args: [] };
	return node ? { command: node, args: [file] } : undefined; // no node on PATH: npx as configured says why
}

function isNodeScript(file: string): boolean {
	if ([".js", ".mjs", ".cjs"].includes(extname(file))) return true;
	try {
		const head = readFileSync(file, { encoding: "utf8", flag: "r" }).slice(0, 128);
		return /^#!.*\bnode\b/.test(head);
	} catch {
		return false;
	}
}

/**
 * Whether npm finished installing into an npx folder. npm writes the folder's own package.json
 * (and its lock) last, after every dependency; the package's own package.json comes first, often a
 * second before the dependencies it imports (measured with npm 11: server-memory's manifest 0.8 s
 * before @modelcontextprotocol/sdk's), so it says nothing about whether the package can run.
 */
function installComplete(folder: string): boolean {
	return existsSync(join(folder, "package.json"));
}

function installedVersion(pkgDir: string): string | undefined {
	try {
		return (JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version?: string }).version;
	} catch {
		return undefined;
	}
}

interface VersionRecord {
	readonly version: string;
	readonly checkedAt: number;
}

export interface NpxResolverOptions {
	readonly agentDir: string;
	readonly npmCache?: string;
	readonly now?: () => number;
	/** Asks npm which version a range/tag means; default `npm view <spec> version --json`. */
	readonly lookupVersion?: (spec: string) => Promise<string | undefined>;
	/** No registry lookups (PI_OFFLINE): ranges resolve only from what was looked up before. */
	readonly offline?: boolean;
}

export class NpxResolver {
	private readonly file: string;
	private readonly npmCache: string;
	private readonly now: () => number;
	private readonly lookupVersion: (spec: string) => Promise<string | undefined>;
	private versions: Record<string, VersionRecord>;
	private readonly pending = new Map<string, Promise<void>>();
	private readonly installs = new Map<string, Promise<void>>();
	private readonly abort = new AbortController();
	private readonly offline: boolean;

	constructor(options: NpxResolverOptions) {
		this.offline = options.offline ?? false;
		this.file = join(options.agentDir, NPX_CACHE_FILE);
		this.npmCache = options.npmCache ?? defaultNpmCache();
		this.now = options.now ?? Date.now;
		this.lookupVersion = options.lookupVersion ?? ((spec) => npmView(spec, this.abort.signal));
		this.versions = readVersions(this.file);
	}

	/** The direct launch for an npx entry, or undefined to run it as configured. */
	resolve(
		entry: Pick<StdioServerEntry, "command" | "args"> & { readonly env?: Readonly<Record<string, string>> },
	): Launch | undefined {
		const npx = parseNpx(entry.command, entry.args);
		if (!npx) return undefined;
		const want = npx.range && EXACT.test(npx.range) ? npx.range : this.knownVersion(npx.spec);
		if (!want) return undefined;
		// npx uses the cache the server's own env names, if any.
		const npmCache = entry.env?.npm_config_cache ?? this.npmCache;
		const folder = npxInstallDir(npx.spec, npmCache);
		if (!installComplete(folder)) return undefined; // the package is there, its dependencies may not be yet
		const pkgDir = join(folder, "node_modules", npx.name);
		if (installedVersion(pkgDir) !== want) return undefined;
		const bin = binFor(pkgDir, nodeOnPath({ ...process.env, ...entry.env }));
		return bin ? { command: bin.command, args: [...bin.args, ...npx.args] } : undefined;
	}

	/** What npm would run for a range/tag/bare name, if asked within the last hour; starts asking otherwise. */
	private knownVersion(spec: string): string | undefined {
		const record = this.versions[spec];
		if (record && this.now() - record.checkedAt < VERSION_TTL_MS) return record.version;
		if (!this.offline) this.refresh(spec);
		return undefined;
	}

	/** Resolves a spec's version in the background (tests await it). */
	refresh(spec: string): Promise<void> {
		const existing = this.pending.get(spec);
		if (existing) return existing;
		const job = this.lookupVersion(spec)
			.then((version) => {
				if (!version) return;
				this.versions = { ...readVersions(this.file), [spec]: { version, checkedAt: this.now() } };
				writeVersions(this.file, this.versions);
			})
			// Unknown version (offline, registry down): npx runs as configured and decides itself.
			.catch(() => undefined)
			.finally(() => this.pending.delete(spec));
		this.pending.set(spec, job);
		return job;
	}

	/** Stops background `npm view` lookups, so none outlives the session. */
	dispose(): void {
		this.abort.abort();
	}

	/**
	 * Rewrites an entry's launch when it can be resolved; the entry itself is left as configured. A
	 * package npx has never installed is installed first, by an npm that outlives this session
	 * (`installDetached`): a session that ends mid-install never leaves a half-written npx folder.
	 */
	launcher(): (entry: StdioServerEntry, signal?: AbortSignal) => Promise<Launch> {
		return async (entry, signal) => {
			const direct = this.resolve(entry);
			if (direct) return direct;
			const npx = parseNpx(entry.command, entry.args);
			const npmCache = entry.env?.npm_config_cache ?? this.npmCache;
			const folder = npx ? npxInstallDir(npx.spec, npmCache) : undefined;
			if (npx && folder && !this.offline && !installComplete(folder)) {
				// An earlier session's install may still be running (it outlives its session): it is waited
				// for, never taken for a broken folder, nor joined by a second npm in the same folder.
				await otherInstallEnded(folder, signal);
				if (signal?.aborted) return { command: entry.command, args: entry.args }; // the connect was given up
				// A folder an install was cut out of (packages there, npm's closing package.json not):
				// npx would fail on it forever. It is npm's own cache of this one spec: made again below.
				if (!installComplete(folder) && existsSync(join(folder, "node_modules")))
					rmSync(folder, { recursive: true, force: true });
				if (!installComplete(folder)) await this.installed(npx.spec, npmCache, entry.env ?? {}, signal);
				if (npx.range === undefined || !EXACT.test(npx.range)) await this.refresh(npx.spec);
				const resolved = this.resolve(entry);
				if (resolved) return resolved;
			}
			return { command: entry.command, args: entry.args };
		};
	}

	/** One detached install per spec at a time; resolves when it ended, or when `signal` ends the wait. */
	private installed(
		spec: string,
		npmCache: string,
		env: Readonly<Record<string, string>>,
		signal?: AbortSignal,
	): Promise<void> {
		let install = this.installs.get(spec);
		if (!install) {
			install = installDetached(spec, npmCache, env, npxInstallDir(spec, npmCache)).finally(() =>
				this.installs.delete(spec),
			);
			this.installs.set(spec, install);
		}
		if (!signal) return install;
		return new Promise((resolve) => {
			if (signal.aborted) return resolve();
			signal.addEventListener("abort", () => resolve(), { once: true });
			void install.then(resolve);
		});
	}
}

function npmView(spec: string, signal: AbortSignal): Promise<string | undefined> {
	return new Promise((resolve) => {
		execFile(
			"npm",
			["view", spec, "version", "--json"],
			{ timeout: 15_000, windowsHide: true, signal },
			(error, stdout) => {
				if (error) return resolve(undefined);
				try {
					const parsed = JSON.parse(stdout) as string | string[];
					// A range can match several versions; npm runs the highest, which `npm view` lists last.
					resolve(Array.isArray(parsed) ? parsed[parsed.length - 1] : parsed);
				} catch {
					resolve(undefined);
				}
			},
		);
	});
}

function readVersions(file: string): Record<string, VersionRecord> {
	try {
		const read = readTextFile(file);
		if (read.kind !== "ok") return {};
		const data = parseJson(read.text) as { version?: number; specs?: Record<string, VersionRecord> };
		if (data.version !== 1 || typeof data.specs !== "object" || !data.specs) return {};
		const out: Record<string, VersionRecord> = {};
		for (const [spec, r] of Object.entries(data.specs)) {
			if (r && typeof r.version === "string" && typeof r.checkedAt === "number") out[spec] = r;
		}
		return out;
	} catch {
		return {};
	}
}

function writeVersions(file: string, specs: Record<string, VersionRecord>): void {
	try {
		writeFileAtomic(file, JSON.stringify({ version: 1, specs }, null, 1));
	} catch {
		// a cache only: the next launch simply asks again
	}
}

/**
 * Installs a package into npx's own folder for it (`npm exec --package=<spec>` hashes the same
 * spec the same way `npx <spec>` does) and runs nothing but `node -e ""`: the install is all it
 * does. A detached `node` with no pipe to this process runs that npm and removes the install's
 * marker when npm ends, so the install finishes past Pi's exit (npm killed mid-install leaves
 * node_modules without a package.json, and every later npx run of that package fails) and a later
 * session knows it is still going. Never rejects: a failed install shows when npx runs as configured.
 */
function installDetached(
	spec: string,
	npmCache: string,
	env: Readonly<Record<string, string>>,
	folder: string,
): Promise<void> {
	const marker = installMarker(folder);
	return new Promise((resolve) => {
		const node = nodeOnPath({ ...process.env, ...env });
		if (!node) return resolve(); // no Node on PATH: npx as configured says why
		try {
			const child = spawn(node, ["-e", SUPERVISOR, marker, spec], {
				env: { ...process.env, ...env, npm_config_cache: npmCache, npm_config_update_notifier: "false" },
				detached: true,
				stdio: "ignore",
				windowsHide: true,
			});
			child.once("error", () => resolve());
			child.once("exit", () => resolve());
			child.unref(); // the session may end first: the install goes on
		} catch {
			resolve(); // could not start it: npx as configured says why
		}
	});
}

/**
 * The detached install (argv: marker, spec): its pid in the marker, npm exec, then the marker goes.
 * Without the marker (unwritable) a later session cannot tell the install from a cut one; it still completes.
 */
export const SUPERVISOR = `
const [marker, spec] = process.argv.slice(1);
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
try {
	fs.mkdirSync(require("node:path").dirname(marker), { recursive: true });
	fs.writeFileSync(marker, String(process.pid));
} catch {}
try {
	// Never through a shell (the spec is a repository's text): on Windows npm is a .cmd script, which
	// Node runs only through cmd.exe, so npm's own JavaScript is run by this node instead.
	const path = require("node:path");
	const [npm, first] = process.platform === "win32"
		? [process.execPath, [path.join(path.dirname(process.execPath), "node_modules", "npm", "bin", "npm-cli.js")]]
		: ["npm", []];
	spawnSync(npm, [...first, "exec", "--yes", "--package=" + spec, "--", "node", "-e", ""], {
		stdio: "ignore",
		windowsHide: true,
	});
} finally {
	fs.rmSync(marker, { force: true });
}`;

/** Beside npm's folder for a spec: the pid of the detached npm installing it (removed when it ends). */
function installMarker(folder: string): string {
	return `${folder}.pi-mcp-install`;
}

/**
 * Waits while a detached install another session started for this folder is still running (its
 * npm's pid alive), polling, since that npm is no child of this process; `signal` ends the wait.
 */
async function otherInstallEnded(folder: string, signal?: AbortSignal): Promise<void> {
	const marker = installMarker(folder);
	const running = () => {
		try {
			const pid = Number(readFileSync(marker, "utf8"));
			if (!Number.isInteger(pid) || pid <= 0) return false;
			process.kill(pid, 0);
			return true;
		} catch {
			return false; // no marker, or its npm has ended
		}
	};
	while (running() && !signal?.aborted) await new Promise((r) => setTimeout(r, 100));
}
