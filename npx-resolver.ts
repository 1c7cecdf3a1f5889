// Runs `npx pkg` / `npm exec pkg` servers straight from npm's npx cache (`node <bin>`), skipping
// the npm parent process (~60 MB and ~300 ms per server). Mirrors npm's own choice:
// - `pkg@1.2.3`: the npx cache folder npm would use for that spec, only if it holds 1.2.3;
// - a range, tag or bare name: npm asks the registry, so we ask npm (`npm view`, in the
//   background, remembered in <agentDir>/mcp-npx-cache.json for an hour) and use the cached
//   install only if it is exactly that version.
// What npm would install first (nothing cached, a cut install, an older version) is installed by a
// worker that outlives the session (transport/npx-install.ts), then run the same way. Any other
// doubt (unknown flags, another spec type) runs npx as configured.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, delimiter, extname, join } from "node:path";
import { parseJson, readTextFile, writeFileAtomic } from "./storage/file-guard.ts";
import { installerPresent, installFinished, runInstall, waitForInstallers } from "./transport/npx-install.ts";
import type { Launch, Launcher } from "./transport/open-connection.ts";
import { DEFAULT_SETTINGS, type StdioServerEntry } from "./types.ts";

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
	/** How long a connect waits for an install (default settings.installTimeoutMs); the install itself is never cut. */
	readonly installTimeoutMs?: number;
}

export class NpxResolver {
	private readonly file: string;
	private readonly npmCache: string;
	private readonly now: () => number;
	private readonly lookupVersion: (spec: string) => Promise<string | undefined>;
	private versions: Record<string, VersionRecord>;
	private readonly pending = new Map<string, Promise<void>>();
	private readonly abort = new AbortController();
	private readonly offline: boolean;
	private readonly installTimeoutMs: number;

	constructor(options: NpxResolverOptions) {
		this.offline = options.offline ?? false;
		this.installTimeoutMs = options.installTimeoutMs ?? DEFAULT_SETTINGS.installTimeoutMs;
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
		// Not finished, or an installer at work in it (an update rewrites a finished folder): not run now.
		if (!installFinished(folder) || installerPresent(folder)) return undefined;
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
				if (version) this.remember(spec, version);
			})
			// Unknown version (offline, registry down): npx runs as configured and decides itself.
			.catch(() => undefined)
			.finally(() => this.pending.delete(spec));
		this.pending.set(spec, job);
		return job;
	}

	/** Keeps what npm runs for a range/tag/bare spec (for an hour), for this and later sessions. */
	private remember(spec: string, version: string): void {
		this.versions = { ...readVersions(this.file), [spec]: { version, checkedAt: this.now() } };
		writeVersions(this.file, this.versions);
	}

	/** Stops background `npm view` lookups, so none outlives the session. */
	dispose(): void {
		this.abort.abort();
	}

	/**
	 * Rewrites an entry's launch when it can be resolved; the entry itself is left as configured.
	 * Otherwise the package is installed, or brought to the version npm would run, first: by a worker
	 * that outlives this session (transport/npx-install.ts), waited for (with progress) within
	 * `installTimeoutMs`, not the connect deadline. npx as configured runs only over a finished
	 * folder, or where npm installs nothing (the project has the package): never an npx that
	 * installs under the connect deadline, where a timeout or Pi's exit would cut it in half.
	 */
	launcher(): Launcher {
		return async (entry, signal, onInstall) => {
			const direct = this.resolve(entry);
			if (direct) return direct;
			const npx = parseNpx(entry.command, entry.args);
			const env = { ...process.env, ...entry.env };
			const node = nodeOnPath(env);
			const npmCache = entry.env?.npm_config_cache ?? this.npmCache;
			const folder = npx ? npxInstallDir(npx.spec, npmCache) : "";
			// Offline, a finished folder is run as configured: npx decides, as before (no lookup of ours).
			if (!npx || !node || (this.offline && installFinished(folder))) return configured(entry);
			const wait = { spec: npx.spec, signal, deadline: Date.now() + this.installTimeoutMs, onProgress: onInstall };
			try {
				// An install another session started (it outlives its session), or npm's own: waited for, never joined.
				if (!(await waitForInstallers(folder, wait))) throw stillInstalling(npx.spec, this.installTimeoutMs);
				const after = this.resolve(entry);
				if (after) return after;
				const run = {
					...wait,
					node,
					cwd: entry.cwd,
					env: { ...env, npm_config_cache: npmCache, npm_config_update_notifier: "false" },
				};
				const outcome = await runInstall(folder, run);
				if (outcome === "waiting") throw stillInstalling(npx.spec, this.installTimeoutMs);
				// npm just ran for this spec: what the folder holds is what npm runs now.
				const version = installedVersion(join(folder, "node_modules", npx.name));
				if (outcome === "finished" && version && !(npx.range && EXACT.test(npx.range)))
					this.remember(npx.spec, version);
			} finally {
				onInstall?.(undefined);
			}
			return this.resolve(entry) ?? configured(entry);
		};
	}
}

function configured(entry: StdioServerEntry): Launch {
	return { command: entry.command, args: entry.args };
}

/** The start gave up waiting for an install (the manager names the server: `Server "x" failed to connect: ...`). */
function stillInstalling(spec: string, ms: number): Error {
	return new Error(
		`npm is still installing ${spec} after ${Math.round(ms / 1000)} s. The install goes on; a later call uses it. Raise settings.installTimeoutMs if installs take longer here.`,
	);
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
