// What one session reads its config with, and the config it reads: the folder, the environment, the
// one file the CLI named, the servers other extensions registered, the servers it is limited to,
// and Pi 1.5's project trust (which decides whether <cwd>/.pi/mcp.json is read at all). A runtime
// built while the extension loaded serves the session that starts after it when these match.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { stableStringify } from "../config/identity.ts";
import { loadConfig, type RegisteredServer, restrictTo } from "../config.ts";
import { resolveAgentDir } from "../storage/agent-dir.ts";
import type { McpConfig } from "../types.ts";

export interface RuntimeOptions {
	readonly cwd: string;
	readonly env?: Readonly<Record<string, string | undefined>>;
	/** The environment the config is read with (default `env`): a start-up snapshot records what it reads. */
	readonly configEnv?: Readonly<Record<string, string | undefined>>;
	/** Only this config file instead of the Pi files (the CLI's --config). */
	readonly configPath?: string;
	/**
	 * Pi 1.5's project trust for this session: false means the project's .pi/mcp.json is not read
	 * at all; true approves its servers. Undefined on hosts without project trust (pi 0.73, CLI).
	 */
	readonly piTrusted?: boolean;
	/** Servers other extensions registered (Pi 1.5). */
	readonly registered?: readonly RegisteredServer[];
	/** Only these servers exist for this session (`--mcp-servers`, `PI_MCP_SERVERS`: a subagent's limit). */
	readonly onlyServers?: readonly string[];
	/** Told when a request (a call, a read, a prompt) goes to a server, unless `settings.warmUp` or `prestart` is off: what the session used. */
	readonly onServerUsed?: (server: string) => void;
}

export class SessionConfig {
	readonly cwd: string;
	readonly agentDir: string;
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly configEnv: Readonly<Record<string, string | undefined>>;
	/** As built; a session that takes this runtime gives it its trust (`servesLike`). */
	private options: RuntimeOptions;
	/** Servers other extensions registered, as of the last config read. */
	private registered?: readonly RegisteredServer[];

	constructor(options: RuntimeOptions) {
		this.options = options;
		this.registered = options.registered;
		this.cwd = options.cwd;
		this.env = options.env ?? process.env;
		this.configEnv = options.configEnv ?? this.env;
		this.agentDir = resolveAgentDir(this.env);
	}

	/** Pi 1.5's project trust as of now (a session that takes the runtime gives it its own). */
	get piTrusted(): boolean | undefined {
		return this.options.piTrusted;
	}

	/** Whether the project's .pi/mcp.json is read (not on Pi 1.5 in an untrusted project): where "in this project" is saved. */
	get readsProjectFile(): boolean {
		return this.options.piTrusted !== false;
	}

	/** The one config file the CLI's --config named, read instead of the Pi files. */
	get configPath(): string | undefined {
		return this.options.configPath;
	}

	/** Told when a request goes to a server (see RuntimeOptions). */
	serverUsed(server: string): void {
		this.options.onServerUsed?.(server);
	}

	/** The config as the files say now, with these servers of other extensions (default: the last ones read). */
	read(registered: readonly RegisteredServer[] | undefined = this.registered): McpConfig {
		const { options } = this;
		const loaded = loadConfig({
			cwd: options.cwd,
			agentDir: this.agentDir,
			env: this.configEnv,
			configPath: options.configPath,
			readPiProjectFile: options.piTrusted !== false,
			registered,
		});
		return options.onlyServers ? restrictTo(loaded, options.onlyServers) : loaded;
	}

	/**
	 * The config read again, when only its servers changed from `before` (the running session can
	 * take it, and these registered servers are remembered); undefined when the settings changed,
	 * which needs a new runtime.
	 */
	reread(
		before: McpConfig,
		registered: readonly RegisteredServer[] | undefined = this.registered,
	): McpConfig | undefined {
		const next = this.read(registered);
		if (
			stableStringify(next.settings) !== stableStringify(before.settings) ||
			next.autoEnableCodemode !== before.autoEnableCodemode
		)
			return undefined;
		this.registered = registered;
		return next;
	}

	/**
	 * Whether a runtime built from `options` would read the same config as this one, so this one
	 * can serve instead (the runtime built while the extension loaded, taken by the session start).
	 */
	servesLike(options: RuntimeOptions): boolean {
		const mine = this.options;
		const same = (a: unknown, b: unknown) => stableStringify(a ?? null) === stableStringify(b ?? null);
		// Pi 1.5's trust decides only whether <cwd>/.pi/mcp.json is read (and approved).
		const trustMatters = existsSync(join(options.cwd, ".pi", "mcp.json"));
		const serves =
			options.cwd === mine.cwd &&
			options.configPath === mine.configPath &&
			options.env === mine.env &&
			options.configEnv === mine.configEnv &&
			same(options.onlyServers, mine.onlyServers) &&
			same(
				options.registered?.length ? options.registered : undefined,
				this.registered?.length ? this.registered : undefined,
			) &&
			(!trustMatters || options.piTrusted === mine.piTrusted);
		// Taken: a .pi/mcp.json written later (the /mcp manager's "in this project") is read with the session's trust.
		if (serves) this.options = { ...mine, piTrusted: options.piTrusted };
		return serves;
	}
}
