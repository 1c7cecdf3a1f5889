// Everything one Pi session (or one CLI run) of the adapter holds, built from cwd, agentDir and
// the environment: config, metadata cache, npx resolver, server manager, lifecycle.
import { loadConfig, resolveAgentDir } from "./config.ts";
import { ServerLifecycle } from "./lifecycle.ts";
import { MetadataCache } from "./metadata-cache.ts";
import { NpxResolver } from "./npx-resolver.ts";
import { DEFAULT_OUTPUT_LIMITS, OutputGuard } from "./output-guard.ts";
import { McpServerManager } from "./server-manager.ts";
import type { McpConfig } from "./types.ts";

export interface RuntimeOptions {
	readonly cwd: string;
	readonly env?: Readonly<Record<string, string | undefined>>;
	/** Only this config file instead of the Pi files (the CLI's --config). */
	readonly configPath?: string;
}

export class McpRuntime {
	readonly cwd: string;
	readonly agentDir: string;
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly config: McpConfig;
	readonly lifecycle: ServerLifecycle;
	/** Saves oversized outputs to files; its folder goes at shutdown. */
	readonly output: OutputGuard;
	private readonly resolver: NpxResolver;
	private readonly listeners = new Set<() => void>();
	private killOnExit?: () => void;

	constructor(options: RuntimeOptions) {
		this.cwd = options.cwd;
		this.env = options.env ?? process.env;
		this.agentDir = resolveAgentDir(this.env);
		this.config = loadConfig({ cwd: options.cwd, agentDir: this.agentDir, env: this.env, configPath: options.configPath });
		this.resolver = new NpxResolver({ agentDir: this.agentDir });
		const { settings } = this.config;
		this.output = new OutputGuard(settings.outputGuard === false ? false : { ...DEFAULT_OUTPUT_LIMITS, ...settings.outputGuard });
		const manager = new McpServerManager({
			requestTimeoutMs: settings.requestTimeoutMs,
			maxTotalTimeoutMs: settings.maxTotalTimeoutMs,
			connectTimeoutMs: settings.connectTimeoutMs,
			env: this.env,
			auth: { agentDir: this.agentDir, env: this.env },
			launch: this.resolver.launcher(),
		});
		this.lifecycle = new ServerLifecycle({
			config: this.config,
			manager,
			cache: new MetadataCache(this.agentDir),
			onChange: () => {
				for (const listener of this.listeners) listener();
			},
		});
	}

	/** Told after any change of a server's state or tools. */
	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Background startup work (eager servers, cache fill) and the exit-time safety net. */
	start(): void {
		// If the process exits without awaiting shutdown, no server may outlive it.
		const manager = this.lifecycle.manager;
		this.killOnExit = () => manager.killAllSync();
		process.once("exit", this.killOnExit);
		this.lifecycle.start();
	}

	async shutdown(): Promise<void> {
		if (this.killOnExit) process.off("exit", this.killOnExit);
		this.listeners.clear();
		this.resolver.dispose();
		await this.lifecycle.shutdown();
		this.output.dispose();
	}
}
