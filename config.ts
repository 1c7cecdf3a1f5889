// Loads and merges MCP server config: host imports < 2.36's shared files (~/.config/mcp/mcp.json,
// ~/.agents/mcp.json, ~/.agents/mcp/mcp.json) < <agentDir>/mcp.json < .mcp.json < .pi/mcp.json.
// Every file is parsed as JSONC, every entry validated against a schema and normalized into a
// readonly ServerEntry that remembers its source file. A broken file or entry becomes a
// ConfigProblem naming the file, the server and the fix; everything else still loads.

import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { closestNames } from "./catalog/closest-name.ts";
import { isCommandValue } from "./config/command-values.ts";
import { fileFrom236, hash236, serverFrom236, settingsFrom236, sharedConfigPaths } from "./config/compat-236.ts";
import { entrySecrets, pathContext } from "./config/entry-secrets.ts";
import { launchIdentity } from "./config/identity.ts";
import { IMPORT_HOSTS, type ImportHost, readImport } from "./config/imports.ts";
import { type ExpandedVariable, expandHome, type InterpolationContext, interpolate } from "./config/interpolate.ts";
import { inFile, readJsoncFile } from "./config/jsonc-file.ts";
import { checkOAuth } from "./config/oauth-fields.ts";
import {
	FileSchema,
	isValid,
	OutputGuardSchema,
	RawServerSchema,
	SettingsSchema,
	schemaErrors,
	unknownKeys,
} from "./config/schema.ts";
import { maskUrl } from "./trust/redaction.ts";
import { hasHiddenCharacters, visible } from "./trust/safe-text.ts";
import {
	type ConfigProblem,
	type ConfigSource,
	DEFAULT_SETTINGS,
	type Exposure,
	type ExposureRules,
	type McpConfig,
	type McpSettings,
	type ServerEntry,
	type UnconfiguredServer,
} from "./types.ts";

/** Keys of a config file that belong to Pi 1.5's own MCP, not to servers: accepted without a warning. */
const PI_FILE_KEYS = ["$schema", "autoEnableCodemode"];

export interface LoadConfigOptions {
	readonly cwd: string;
	readonly agentDir: string;
	/** Defaults to the user's home; tests point it at a temp dir. */
	readonly home?: string;
	readonly env?: Readonly<Record<string, string | undefined>>;
	readonly platform?: NodeJS.Platform;
	/** Replaces the Pi files with this one (the CLI's --config). */
	readonly configPath?: string;
	/** Read <cwd>/.pi/mcp.json (default true). Pi 1.5 reads it only in a trusted project. */
	readonly readPiProjectFile?: boolean;
	/** Servers other extensions registered (Pi 1.5's `pi.getMcpServers()`); a file's server of the same name wins. */
	readonly registered?: readonly RegisteredServer[];
}

/** A server another extension registered, in the shape of an `mcpServers` entry. */
export interface RegisteredServer {
	readonly name: string;
	readonly config: unknown;
	readonly extensionPath: string;
}

type ConfigFile = { path: string; kind: ConfigSource["kind"]; scope: ConfigSource["scope"] };

export function piConfigPaths(cwd: string, agentDir: string, readPiProjectFile = true, home = homedir()): ConfigFile[] {
	const piFile = join(agentDir, "mcp.json");
	// 2.36's shared user files, as 2.36 reads them: below the Pi file, skipped when one is the Pi file itself.
	const shared = sharedConfigPaths(home).filter((path) => sameFile(path) !== sameFile(piFile));
	const files: ConfigFile[] = [
		...shared.map((path): ConfigFile => ({ path, kind: "pi-global", scope: "user" })),
		{ path: piFile, kind: "pi-global", scope: "user" },
		{ path: join(cwd, ".mcp.json"), kind: "pi-project", scope: "project" },
	];
	if (readPiProjectFile) files.push({ path: join(cwd, ".pi", "mcp.json"), kind: "pi-project", scope: "project" });
	return files;
}

export function loadConfig(options: LoadConfigOptions): McpConfig {
	const env = options.env ?? process.env;
	const ictx: InterpolationContext = { env, cwd: options.cwd, home: options.home ?? homedir() };
	const problems: ConfigProblem[] = [];
	const servers = new Map<string, ServerEntry>();
	const unconfigured = new Map<string, UnconfiguredServer>();
	const disabled = new Map<string, string>();
	const imports = new Set<string>();
	const ownNames = new Set<string>();
	let settings: McpSettings = DEFAULT_SETTINGS;
	let autoEnableCodemode: boolean | undefined;

	// A file named on the command line is the user's own choice.
	const files: ConfigFile[] = options.configPath
		? [{ path: resolve(options.cwd, options.configPath), kind: "pi-global", scope: "user" }]
		: piConfigPaths(options.cwd, options.agentDir, options.readPiProjectFile, ictx.home);
	for (const file of files) {
		const read = readJsoncFile(file.path);
		if (read.kind === "missing") continue;
		const source: ConfigSource = { kind: file.kind, scope: file.scope, path: file.path };
		if (read.kind === "error") {
			problems.push({ severity: "error", file: file.path, message: read.message });
			// Nothing from a broken file runs, but the servers it meant stay visible, with the reason.
			for (const name of serverNamesIn(read.partial))
				unconfigured.set(name, { name, source, reason: inFile(file.path, read.message) });
			continue;
		}
		const mapped = fileFrom236(read.value);
		for (const message of mapped.notes) problems.push({ severity: "warning", file: file.path, message });
		if (!isValid(FileSchema, mapped.value)) {
			problems.push({ severity: "error", file: file.path, message: schemaErrors(FileSchema, mapped.value) });
			continue;
		}
		const data = mapped.value;
		// Pi 1.5 reads it from the user's file; a repository's file does not turn tools on or off for the user.
		const auto = (data as { autoEnableCodemode?: unknown }).autoEnableCodemode;
		if (file.scope === "user" && typeof auto === "boolean") autoEnableCodemode = auto;
		for (const message of unknownKeys(FileSchema, data, "key", PI_FILE_KEYS))
			problems.push({ severity: "warning", file: file.path, message });
		if (file.scope === "project" && (data.imports?.length || data.settings !== undefined)) {
			// A repository cannot change how the user's own servers run (timeouts, sharing, the output
			// guard, direct tools) nor start servers from the user's other hosts: said, and ignored.
			const keys = [data.settings !== undefined ? '"settings"' : "", data.imports?.length ? '"imports"' : ""]
				.filter(Boolean)
				.join(" and ");
			problems.push({
				severity: "warning",
				file: file.path,
				message: `${keys} in a project's file are ignored: they would change your own servers; put them in ~/.pi/agent/mcp.json`,
			});
		} else {
			for (const host of data.imports ?? []) imports.add(host);
			if (data.settings !== undefined) settings = mergeSettings(settings, data.settings, file, problems);
		}
		for (const [name, raw] of Object.entries(data.mcpServers ?? {})) {
			ownNames.add(name);
			const base = servers.get(name);
			if (base && file.scope === "project" && base.source.scope === "user" && isOverride(raw)) {
				const adjusted = applyOverride(base, raw);
				if (adjusted) servers.set(name, adjusted);
				else {
					servers.delete(name);
					disabled.set(name, file.path);
				}
				continue;
			}
			const result = normalizeServer(name, raw, source, ictx, problems);
			servers.delete(name);
			unconfigured.delete(name);
			disabled.delete(name);
			if (result.kind === "disabled") disabled.set(name, file.path);
			if (result.kind === "entry") servers.set(name, result.entry);
			if (result.kind === "invalid") unconfigured.set(name, { name, source, reason: result.reason });
		}
	}

	// Installed extensions are the user's own choice: their servers are trusted like the user's files.
	for (const { name, config, extensionPath } of options.registered ?? []) {
		if (servers.has(name) || ownNames.has(name)) continue;
		const source: ConfigSource = { kind: "extension", scope: "user", path: extensionPath };
		const result = normalizeServer(name, config, source, ictx, problems);
		if (result.kind === "disabled") disabled.set(name, extensionPath);
		if (result.kind === "entry") servers.set(name, result.entry);
		if (result.kind === "invalid") unconfigured.set(name, { name, source, reason: result.reason });
	}

	for (const host of imports) {
		if (!IMPORT_HOSTS.includes(host as ImportHost)) {
			problems.push({
				severity: "warning",
				file: files[files.length - 1].path,
				message: `unknown import "${host}"; known: ${IMPORT_HOSTS.join(", ")}`,
			});
			continue;
		}
		const home = options.home ?? homedir();
		// Within one host a later file wins (project over global); across hosts the first listed wins.
		const fromHost = new Map<string, { raw: unknown; path: string; scope: ConfigSource["scope"] }>();
		for (const found of readImport(host as ImportHost, {
			cwd: options.cwd,
			home,
			env,
			platform: options.platform ?? process.platform,
		})) {
			if (found.error)
				problems.push({ severity: "warning", file: found.path, message: `import ${host}: ${found.error}` });
			for (const [name, raw] of Object.entries(found.servers))
				fromHost.set(name, { raw, path: found.path, scope: found.scope });
		}
		for (const [name, { raw, path, scope }] of fromHost) {
			if (servers.has(name) || ownNames.has(name) || unconfigured.has(name) || disabled.has(name)) continue; // imports only add servers defined nowhere else
			const source: ConfigSource = { kind: "import", scope, host, path };
			const result = normalizeServer(name, raw, source, ictx, problems, "warning");
			if (result.kind === "disabled" && !disabled.has(name)) disabled.set(name, path);
			if (result.kind === "entry") servers.set(name, result.entry);
			if (result.kind === "invalid") unconfigured.set(name, { name, source, reason: result.reason });
		}
	}
	return { servers, unconfigured, disabled, settings, problems, autoEnableCodemode };
}

function mergeSettings(base: McpSettings, written: unknown, file: ConfigFile, problems: ConfigProblem[]): McpSettings {
	const { value: raw, notes } = settingsFrom236(written);
	for (const message of notes) problems.push({ severity: "warning", file: file.path, message: `settings: ${message}` });
	if (!isValid(SettingsSchema, raw)) {
		problems.push({ severity: "error", file: file.path, message: `settings: ${schemaErrors(SettingsSchema, raw)}` });
		return base;
	}
	for (const message of unknownKeys(SettingsSchema, raw, "setting"))
		problems.push({ severity: "warning", file: file.path, message: `settings: ${message}` });
	if (typeof raw.outputGuard === "object") {
		for (const message of unknownKeys(OutputGuardSchema, raw.outputGuard, "key"))
			problems.push({ severity: "warning", file: file.path, message: `settings.outputGuard: ${message}` });
	}
	const defined: Record<string, unknown> = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
	return { ...base, ...defined };
}

/** What became of one raw entry: a usable entry, turned off, or unusable with the reason. */
export type Normalized =
	| { kind: "entry"; entry: ServerEntry }
	| { kind: "disabled" }
	| { kind: "invalid"; reason: string };

/** Turns one raw entry into a ServerEntry, or records why it cannot be used. */
export function normalizeServer(
	name: string,
	written: unknown,
	source: ConfigSource,
	ictx: InterpolationContext,
	problems: ConfigProblem[],
	severity: ConfigProblem["severity"] = "error",
): Normalized {
	const invalid = (reason: string): Normalized => {
		problems.push({ severity, file: source.path, server: name, message: reason });
		return { kind: "invalid", reason };
	};
	// A name is shown in every list and dialog: one that can hide or rewrite text there is refused.
	if (hasHiddenCharacters(name))
		return invalid(`the server name "${visible(name)}" holds control or invisible characters; rename it`);
	const mapped = serverFrom236(written);
	for (const message of mapped.notes) problems.push({ severity: "warning", file: source.path, server: name, message });
	const raw = mapped.value;
	if (!isValid(RawServerSchema, raw)) return invalid(schemaErrors(RawServerSchema, raw));
	for (const message of unknownKeys(RawServerSchema, raw, "field"))
		problems.push({ severity: "warning", file: source.path, server: name, message });
	if (raw.disabled || raw.enabled === false) return { kind: "disabled" };
	if (raw.command && raw.url)
		return invalid('has both "command" and "url"; keep "command" for a local server or "url" for a remote one');
	if (!raw.command && !raw.url)
		return invalid('needs "command" (a local stdio server) or "url" (a remote HTTP server)');

	const failures: string[] = [];
	// Filled once the entry is built: which of its values are secrets (config/entry-secrets.ts).
	const secrets: string[] = [];
	const variables: ExpandedVariable[] = [];
	const credentials: (string | undefined)[] = [];
	const expand = (field: string, value: string): string => {
		const result = interpolate(value, ictx);
		if (result.ok) {
			variables.push(...result.values);
			return result.value;
		}
		failures.push(`field "${field}": ${result.error}`);
		return value;
	};
	// A `!command` value (Pi 1.5) is run when the server starts, by a shell that expands its own variables.
	const expandMap = (field: string, map: Record<string, string> | undefined) =>
		Object.fromEntries(
			Object.entries(map ?? {}).map(([k, v]) => [k, isCommandValue(v) ? v : expand(`${field}.${k}`, v)]),
		);

	const base = {
		name,
		source,
		launch: launchIdentity(raw),
		secrets,
		lifecycle: raw.lifecycle ?? "lazy",
		idleTimeout: raw.idleTimeout,
		timeout: raw.timeout,
		debug: raw.debug ?? false,
		share: raw.share,
		roots: raw.roots,
		exposeResources: raw.exposeResources ?? true,
		directTools: raw.directTools,
		description: raw.description?.trim() || undefined,
		exposure: exposureRules(raw.exposure, raw.toolExposure),
		includeTools: raw.includeTools,
		excludeTools: raw.excludeTools,
		approveTools: raw.approveTools,
		compatHash: hash236(written, ictx.env, ictx.home ?? homedir()),
	} as const;
	let entry: ServerEntry;
	if (raw.command) {
		// As Pi 1.5 does (and a shell would): a leading ~/ in command, args or cwd names the home directory.
		const tilde = (value: string) => (ictx.home ? expandHome(value, ictx.home) : value);
		const cwd = raw.cwd === undefined ? undefined : tilde(expand("cwd", raw.cwd));
		const env = expandMap("env", raw.env);
		entry = {
			...base,
			transport: "stdio",
			command: tilde(expand("command", raw.command)),
			args: (raw.args ?? []).map((arg, i) => tilde(expand(`args[${i}]`, arg))),
			env,
			cwd: cwd === undefined ? undefined : isAbsolute(cwd) ? cwd : resolve(ictx.cwd, cwd),
		};
	} else {
		const url = expand("url", raw.url as string);
		// The URL as written, masked: the expanded one may carry a token in its query.
		if (failures.length === 0 && !isHttpUrl(url))
			failures.push(`field "url": ${JSON.stringify(maskUrl(raw.url as string))} is not an http(s) URL`);
		const headers = expandMap("headers", raw.headers);
		const bearerToken = raw.bearerToken === undefined ? undefined : expand("bearerToken", raw.bearerToken);
		const oauth = raw.oauth && checkOAuth(raw.oauth, source.scope, expand, ictx.home);
		failures.push(...(oauth?.errors ?? []));
		credentials.push(bearerToken, ...(oauth?.secrets ?? []));
		for (const message of oauth?.warnings ?? [])
			problems.push({ severity: "warning", file: source.path, server: name, message });
		entry = {
			...base,
			transport: raw.type === "sse" ? "sse" : "http",
			url,
			headers,
			auth: raw.auth,
			bearerToken,
			bearerTokenEnv: raw.bearerTokenEnv,
			oauth: oauth?.oauth,
		};
	}
	if (failures.length > 0) return invalid(failures.join("; "));
	const values =
		entry.transport === "stdio"
			? { env: entry.env, others: [entry.command, ...entry.args, entry.cwd] }
			: { headers: entry.headers, others: [entry.url] };
	secrets.push(...entrySecrets({ variables, credentials, ...values }, pathContext(source.scope, ictx.home, ictx.cwd)));
	return { kind: "entry", entry };
}

type PiExposure = "codemode" | "codemode-deferred" | "deferred" | "direct" | "hidden";

/** Pi 1.5's exposure, as written (`codemode-deferred` is its alias of `codemode`). */
function exposureRules(
	server: PiExposure | undefined,
	tools: Record<string, PiExposure> | undefined,
): ExposureRules | undefined {
	if (server === undefined && tools === undefined) return undefined;
	const map = (e: PiExposure): Exposure => (e === "codemode-deferred" ? "codemode" : e);
	return {
		server: server === undefined ? undefined : map(server),
		tools: Object.entries(tools ?? {}).map(([pattern, e]) => [pattern, map(e)] as const),
	};
}

/**
 * Pi 1.5: a project entry with no command, url or type only adjusts the user's server of that
 * name (turns it off, changes its exposure), keeping everything else. It cannot turn on a server
 * the user turned off, and needs no approval: nothing it names runs.
 */
function applyOverride(base: ServerEntry, raw: Record<string, unknown>): ServerEntry | undefined {
	if (raw.enabled === false || raw.disabled === true) return undefined;
	const exposure = exposureRules(
		raw.exposure as PiExposure | undefined,
		raw.toolExposure as Record<string, PiExposure> | undefined,
	);
	return exposure
		? {
				...base,
				exposure: {
					server: exposure.server ?? base.exposure?.server,
					tools: [...exposure.tools, ...(base.exposure?.tools ?? [])],
				},
			}
		: base;
}

function isOverride(raw: unknown): raw is Record<string, unknown> {
	return (
		typeof raw === "object" &&
		raw !== null &&
		!("command" in raw) &&
		!("url" in raw) &&
		!("type" in raw) &&
		isValid(RawServerSchema, raw)
	);
}

/** The server names a (possibly partial) parsed file mentions under mcpServers. */
function serverNamesIn(value: unknown): string[] {
	const servers = (value as { mcpServers?: unknown } | null)?.mcpServers;
	return servers && typeof servers === "object" && !Array.isArray(servers) ? Object.keys(servers) : [];
}

/** A file's identity (through symlinks), so one file reached by two paths is read once. */
function sameFile(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path; // missing: its path is its identity
	}
}

function isHttpUrl(value: string): boolean {
	try {
		const url = new URL(value);
		return url.protocol === "http:" || url.protocol === "https:";
	} catch {
		return false;
	}
}

/** One line per problem, for /mcp, the CLI and logs. */
export function formatProblem(problem: ConfigProblem): string {
	const where = problem.server ? `${problem.file}: server "${visible(problem.server)}"` : problem.file;
	return `${problem.severity === "error" ? "error" : "warning"}: ${inFile(where, problem.message)}`;
}

/**
 * Why an entry written by hand or by a command (`add`, `/mcp setup`) would not load, whatever the
 * environment holds (every `${VAR}` counts as set): its fields, types and values; undefined when it
 * would. What it warns of (an unknown field) is in `warnings`.
 */
export function entryProblem(
	name: string,
	raw: unknown,
	source: ConfigSource,
	cwd: string,
	warnings: string[] = [],
): string | undefined {
	const problems: ConfigProblem[] = [];
	const anyValue = new Proxy({}, { get: () => "set" }) as Record<string, string>;
	const result = normalizeServer(name, raw, source, { env: anyValue, cwd }, problems);
	warnings.push(...problems.filter((p) => p.severity === "warning").map((p) => p.message));
	return result.kind === "invalid" ? result.reason : undefined;
}

/**
 * One entry from a raw object, as if read from the user's own file; throws on any problem.
 * For programs that build entries themselves (the conformance client, benchmarks, tests).
 */
export function defineServer(
	name: string,
	raw: unknown,
	options: { cwd?: string; env?: Readonly<Record<string, string | undefined>> } = {},
): ServerEntry {
	const problems: ConfigProblem[] = [];
	const source: ConfigSource = { kind: "pi-global", scope: "user", path: "(defined in code)" };
	const result = normalizeServer(
		name,
		raw,
		source,
		{ cwd: options.cwd ?? process.cwd(), env: options.env ?? process.env },
		problems,
	);
	if (result.kind !== "entry")
		throw new Error(problems.map(formatProblem).join("\n") || `server "${name}" is disabled`);
	return result.entry;
}

/**
 * The config with only the named servers (a subagent limited with `--mcp-servers`): the others are
 * not started, listed or reachable in this session. A name the config does not have is a warning.
 */
export function restrictTo(config: McpConfig, names: readonly string[]): McpConfig {
	const keep = new Set(names);
	const only = <V>(map: ReadonlyMap<string, V> | undefined) =>
		new Map([...(map ?? [])].filter(([name]) => keep.has(name)));
	const known = new Set([...config.servers.keys(), ...config.unconfigured.keys(), ...(config.disabled?.keys() ?? [])]);
	const unknown = names.filter((name) => !known.has(name));
	const problems = unknown.map((name) => ({
		severity: "warning" as const,
		file: "--mcp-servers",
		message: `no server named "${name}" is configured${closestNames(name, [...known], 1).length > 0 ? ` (did you mean "${closestNames(name, [...known], 1)[0]}"?)` : ""}`,
	}));
	return {
		...config,
		servers: only(config.servers),
		unconfigured: only(config.unconfigured),
		disabled: only(config.disabled),
		problems: [...config.problems, ...problems],
	};
}
