// Loads and merges MCP server config: host imports < <agentDir>/mcp.json < .mcp.json < .pi/mcp.json.
// Every file is parsed as JSONC, every entry validated against a schema and normalized into a
// readonly ServerEntry that remembers its source file. A broken file or entry becomes a
// ConfigProblem naming the file, the server and the fix; everything else still loads.
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { IMPORT_HOSTS, type ImportHost, readImport } from "./config-imports.ts";
import { type InterpolationContext, interpolate } from "./interpolate.ts";
import { readJsoncFile } from "./jsonc-file.ts";
import { launchIdentity } from "./project-approval.ts";
import { maskUrl, worthMasking } from "./redaction.ts";
import {
	type ConfigProblem,
	type ConfigSource,
	DEFAULT_SETTINGS,
	type McpConfig,
	type McpSettings,
	type ServerEntry,
} from "./types.ts";

const StringMap = Type.Record(Type.String(), Type.String());

/** The shape of one server entry in a Pi config file (imports are mapped to it first). */
export const RawServerSchema = Type.Object({
	command: Type.Optional(Type.String({ minLength: 1 })),
	args: Type.Optional(Type.Array(Type.String())),
	env: Type.Optional(StringMap),
	cwd: Type.Optional(Type.String()),
	url: Type.Optional(Type.String({ minLength: 1 })),
	type: Type.Optional(Type.Union([Type.Literal("stdio"), Type.Literal("http"), Type.Literal("sse"), Type.Literal("streamable-http")])),
	headers: Type.Optional(StringMap),
	lifecycle: Type.Optional(Type.Union([Type.Literal("lazy"), Type.Literal("eager"), Type.Literal("keep-alive")])),
	idleTimeout: Type.Optional(Type.Number({ minimum: 0 })),
	timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
	debug: Type.Optional(Type.Boolean()),
	exposeResources: Type.Optional(Type.Boolean()),
	directTools: Type.Optional(Type.Union([Type.Boolean(), Type.Array(Type.String())])),
	auth: Type.Optional(Type.Union([Type.Literal("oauth"), Type.Literal("bearer")])),
	bearerToken: Type.Optional(Type.String()),
	bearerTokenEnv: Type.Optional(Type.String({ minLength: 1 })),
	disabled: Type.Optional(Type.Boolean()),
});
export type RawServer = Static<typeof RawServerSchema>;

const SettingsSchema = Type.Object({
	toolPrefix: Type.Optional(Type.Union([Type.Literal("server"), Type.Literal("short"), Type.Literal("none")])),
	idleTimeout: Type.Optional(Type.Number({ minimum: 0 })),
	requestTimeoutMs: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
	directTools: Type.Optional(Type.Boolean()),
	maxTotalTimeoutMs: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
	connectTimeoutMs: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
	trustProjectServers: Type.Optional(Type.Boolean()),
	outputGuard: Type.Optional(
		Type.Union([
			Type.Literal(false),
			Type.Object({ maxBytes: Type.Optional(Type.Number({ minimum: 1024 })), maxLines: Type.Optional(Type.Number({ minimum: 10 })) }),
		]),
	),
});

const FileSchema = Type.Object({
	mcpServers: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
	imports: Type.Optional(Type.Array(Type.String())),
	settings: Type.Optional(Type.Unknown()),
});

const KNOWN_FIELDS = new Set(Object.keys(RawServerSchema.properties));

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
}

/** Where Pi keeps its files: `PI_CODING_AGENT_DIR`, else ~/.pi/agent. */
export function resolveAgentDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
	const fromEnv = env.PI_CODING_AGENT_DIR;
	if (fromEnv) return fromEnv.startsWith("~/") ? join(homedir(), fromEnv.slice(2)) : resolve(fromEnv);
	return join(homedir(), ".pi", "agent");
}

type ConfigFile = { path: string; kind: ConfigSource["kind"]; scope: ConfigSource["scope"] };

export function piConfigPaths(cwd: string, agentDir: string, readPiProjectFile = true): ConfigFile[] {
	const files: ConfigFile[] = [
		{ path: join(agentDir, "mcp.json"), kind: "pi-global", scope: "user" },
		{ path: join(cwd, ".mcp.json"), kind: "pi-project", scope: "project" },
	];
	if (readPiProjectFile) files.push({ path: join(cwd, ".pi", "mcp.json"), kind: "pi-project", scope: "project" });
	return files;
}

export function loadConfig(options: LoadConfigOptions): McpConfig {
	const env = options.env ?? process.env;
	const ictx: InterpolationContext = { env, cwd: options.cwd };
	const problems: ConfigProblem[] = [];
	const servers = new Map<string, ServerEntry>();
	const imports = new Set<string>();
	const ownNames = new Set<string>();
	let settings: McpSettings = DEFAULT_SETTINGS;

	// A file named on the command line is the user's own choice.
	const files: ConfigFile[] = options.configPath
		? [{ path: resolve(options.cwd, options.configPath), kind: "pi-global", scope: "user" }]
		: piConfigPaths(options.cwd, options.agentDir, options.readPiProjectFile);
	for (const file of files) {
		const read = readJsoncFile(file.path);
		if (read.kind === "missing") continue;
		if (read.kind === "error") {
			problems.push({ severity: "error", file: file.path, message: read.message });
			continue;
		}
		if (!Value.Check(FileSchema, read.value)) {
			problems.push({ severity: "error", file: file.path, message: schemaErrors(FileSchema, read.value) });
			continue;
		}
		const data = read.value;
		for (const host of data.imports ?? []) imports.add(host);
		if (data.settings !== undefined) settings = mergeSettings(settings, data.settings, file, problems);
		for (const [name, raw] of Object.entries(data.mcpServers ?? {})) {
			ownNames.add(name);
			const source: ConfigSource = { kind: file.kind, scope: file.scope, path: file.path };
			const entry = normalizeServer(name, raw, source, ictx, problems);
			servers.delete(name);
			if (entry) servers.set(name, entry);
		}
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
		for (const found of readImport(host as ImportHost, { cwd: options.cwd, home, env, platform: options.platform ?? process.platform })) {
			if (found.error) problems.push({ severity: "warning", file: found.path, message: `import ${host}: ${found.error}` });
			for (const [name, raw] of Object.entries(found.servers)) fromHost.set(name, { raw, path: found.path, scope: found.scope });
		}
		for (const [name, { raw, path, scope }] of fromHost) {
			if (servers.has(name) || ownNames.has(name)) continue; // imports only add servers defined nowhere else
			const entry = normalizeServer(name, raw, { kind: "import", scope, host, path }, ictx, problems, "warning");
			if (entry) servers.set(name, entry);
		}
	}
	return { servers, settings, problems };
}

function mergeSettings(base: McpSettings, raw: unknown, file: ConfigFile, problems: ConfigProblem[]): McpSettings {
	if (!Value.Check(SettingsSchema, raw)) {
		problems.push({ severity: "error", file: file.path, message: `settings: ${schemaErrors(SettingsSchema, raw)}` });
		return base;
	}
	const defined: Record<string, unknown> = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
	if (file.scope === "project" && defined.trustProjectServers !== undefined) {
		// A repository cannot vouch for itself.
		delete defined.trustProjectServers;
		problems.push({ severity: "warning", file: file.path, message: "settings.trustProjectServers is only honored in your own ~/.pi/agent/mcp.json; ignored here" });
	}
	return { ...base, ...defined };
}

/** Turns one raw entry into a ServerEntry, or records why it cannot be used. */
export function normalizeServer(
	name: string,
	raw: unknown,
	source: ConfigSource,
	ictx: InterpolationContext,
	problems: ConfigProblem[],
	severity: ConfigProblem["severity"] = "error",
): ServerEntry | undefined {
	const report = (message: string) => problems.push({ severity, file: source.path, server: name, message });
	if (!Value.Check(RawServerSchema, raw)) {
		report(schemaErrors(RawServerSchema, raw));
		return undefined;
	}
	for (const key of Object.keys(raw)) {
		if (!KNOWN_FIELDS.has(key)) {
			problems.push({ severity: "warning", file: source.path, server: name, message: `unknown field "${key}" ignored` });
		}
	}
	if (raw.disabled) return undefined;
	if (raw.command && raw.url) return void report('has both "command" and "url"; keep "command" for a local server or "url" for a remote one');
	if (!raw.command && !raw.url) return void report('needs "command" (a local stdio server) or "url" (a remote HTTP server)');

	const failures: string[] = [];
	const secrets: string[] = [];
	const expand = (field: string, value: string): string => {
		const result = interpolate(value, ictx);
		if (result.ok) {
			secrets.push(...result.values);
			return result.value;
		}
		failures.push(`field "${field}": ${result.error}`);
		return value;
	};
	const expandMap = (field: string, map: Record<string, string> | undefined) =>
		Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, expand(`${field}.${k}`, v)]));

	const base = {
		name,
		source,
		launch: launchIdentity(raw),
		secrets,
		lifecycle: raw.lifecycle ?? "lazy",
		idleTimeout: raw.idleTimeout,
		timeout: raw.timeout,
		debug: raw.debug ?? false,
		exposeResources: raw.exposeResources ?? true,
		directTools: raw.directTools,
	} as const;
	let entry: ServerEntry;
	if (raw.command) {
		const cwd = raw.cwd === undefined ? undefined : expand("cwd", raw.cwd);
		const env = expandMap("env", raw.env);
		for (const [key, value] of Object.entries(env)) if (worthMasking(key, value)) secrets.push(value);
		entry = {
			...base,
			transport: "stdio",
			command: expand("command", raw.command),
			args: (raw.args ?? []).map((arg, i) => expand(`args[${i}]`, arg)),
			env,
			cwd: cwd === undefined ? undefined : isAbsolute(cwd) ? cwd : resolve(ictx.cwd, cwd),
		};
	} else {
		const url = expand("url", raw.url as string);
		// The URL as written, masked: the expanded one may carry a token in its query.
		if (failures.length === 0 && !isHttpUrl(url)) failures.push(`field "url": ${JSON.stringify(maskUrl(raw.url as string))} is not an http(s) URL`);
		const headers = expandMap("headers", raw.headers);
		const bearerToken = raw.bearerToken === undefined ? undefined : expand("bearerToken", raw.bearerToken);
		secrets.push(...Object.values(headers), ...(bearerToken ? [bearerToken] : []));
		entry = {
			...base,
			transport: raw.type === "sse" ? "sse" : "http",
			url,
			headers,
			auth: raw.auth,
			bearerToken,
			bearerTokenEnv: raw.bearerTokenEnv,
		};
	}
	if (failures.length > 0) return void report(failures.join("; "));
	return entry;
}

function isHttpUrl(value: string): boolean {
	try {
		const url = new URL(value);
		return url.protocol === "http:" || url.protocol === "https:";
	} catch {
		return false;
	}
}

/**
 * Schema failures as `field: must be <what>, got <value>` lines. The wording comes from the schema
 * itself, not the validator: inside Pi, `@sinclair/typebox/value` is Pi's own TypeBox 1.x, whose
 * errors have another shape and word unions branch by branch.
 */
function schemaErrors(schema: TSchema, value: unknown): string {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return "must be a JSON object";
	const fields = new Set<string>();
	for (const error of Value.Errors(schema, value) as Iterable<{ path?: string; instancePath?: string }>) {
		fields.add((error.path ?? error.instancePath ?? "").split("/")[1] ?? "");
	}
	const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
	const lines = [...fields].slice(0, 5).map((field) => {
		const expected = properties[field] ? describeSchema(properties[field]) : "valid";
		const raw = (value as Record<string, unknown>)[field];
		// Fields that hold credentials are described by type only: no prefix of a token is shown.
		const got = SECRET_FIELDS.has(field) ? kindOf(raw) : (JSON.stringify(raw) ?? "nothing");
		return `${field || "(entry)"}: must be ${expected}, got ${got.length > 40 ? `${got.slice(0, 40)}…` : got}`;
	});
	return lines.join("; ") || "is not valid";
}

const SECRET_FIELDS = new Set(["env", "headers", "bearerToken", "oauth", "url", "args"]);

function kindOf(value: unknown): string {
	if (value === undefined) return "nothing";
	if (value === null) return "null";
	if (Array.isArray(value)) return "a list";
	return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** "a list of strings", `one of "lazy", "eager"`, ... from a JSON Schema. */
function describeSchema(schema: unknown): string {
	const s = schema as { type?: string; const?: unknown; anyOf?: unknown[]; items?: unknown; minimum?: number; exclusiveMinimum?: number };
	if (s.anyOf) {
		const consts = s.anyOf.map((v) => (v as { const?: unknown }).const);
		if (consts.every((v) => v !== undefined)) return `one of ${consts.map((v) => JSON.stringify(v)).join(", ")}`;
		return s.anyOf.map(describeSchema).join(" or ");
	}
	if (s.const !== undefined) return JSON.stringify(s.const);
	if (s.type === "array") return `a list of ${describeSchema(s.items ?? {}).replace(/^an? /, "")}s`;
	if (s.type === "object") return "an object";
	if (s.type === "number" || s.type === "integer") {
		if (s.exclusiveMinimum !== undefined) return `a number above ${s.exclusiveMinimum}`;
		if (s.minimum !== undefined) return `a number of at least ${s.minimum}`;
		return "a number";
	}
	if (s.type === "boolean") return "true or false";
	if (s.type === "string") return "a string";
	return "valid";
}

/** One line per problem, for /mcp, the CLI and logs. */
export function formatProblem(problem: ConfigProblem): string {
	const where = problem.server ? `${problem.file}: server "${problem.server}"` : problem.file;
	return `${problem.severity === "error" ? "error" : "warning"}: ${where}: ${problem.message}`;
}

/**
 * One entry from a raw object, as if read from the user's own file; throws on any problem.
 * For programs that build entries themselves (the conformance client, benchmarks, tests).
 */
export function defineServer(name: string, raw: unknown, options: { cwd?: string; env?: Readonly<Record<string, string | undefined>> } = {}): ServerEntry {
	const problems: ConfigProblem[] = [];
	const source: ConfigSource = { kind: "pi-global", scope: "user", path: "(defined in code)" };
	const entry = normalizeServer(name, raw, source, { cwd: options.cwd ?? process.cwd(), env: options.env ?? process.env }, problems);
	if (!entry) throw new Error(problems.map(formatProblem).join("\n") || `server "${name}" is disabled`);
	return entry;
}
