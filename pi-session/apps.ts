// MCP Apps in a Pi session, as light as the extension's load needs it: the `showApp` each call's
// run gets, and the end of every app page with the session. The pages and the protocol
// (apps/) and their routes through Pi (pi-session/app-host.ts) load with the first result that has a view.
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { AppSessions } from "../apps/app-sessions.ts";
import { once } from "../bounds/waits.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import type { PiRoutes } from "../pi-tools/calls-through-pi.ts";
import type { AppCall } from "../proxy/answer.ts";
import { resolveAgentDir } from "../storage/agent-dir.ts";

const loadAppSessions = once(() => import("../apps/app-sessions.ts"));
const loadAppHost = once(() => import("./app-host.ts"));

/** The folder under the agent dir where each app page's private launch file is made. */
export const LAUNCH_FOLDER = "mcp-app-pages";

/** Where PiApps finds what lies outside the session. */
export interface PiAppsOptions {
	/** Pi's command line as the extension was given it (its `--tools`/`--exclude-tools` limit a view's calls). */
	readonly argv?: readonly string[];
	/** Pi's agent dir, where the pages' launch files go (`mcp-app-pages/`; default: as Pi resolves it). */
	readonly agentDir?: string;
	/** pi 0.73: the name of a tool's direct Pi tool, if it has one. */
	readonly directName?: (server: string, tool: string) => string | undefined;
}

export class PiApps {
	private sessions?: AppSessions;
	/** Which Pi session this is: each end (closeAll) starts the next. */
	private generation = 0;

	constructor(
		private readonly pi: ExtensionAPI,
		/** Pi 1.5's tools, through which a view's calls run as the model's do; none on pi 0.73. */
		private readonly routes: PiRoutes | undefined,
		private readonly options: PiAppsOptions = {},
	) {}

	/**
	 * The `showApp` of a call run in `ctx` (a tool's context: on Pi 1.5 the view's own calls run
	 * later through its `executeTool`, as the model's would have).
	 */
	forCall(
		runtime: McpRuntime,
		ctx: ExtensionContext,
	): (call: AppCall, signal?: AbortSignal) => Promise<string | undefined> {
		const generation = this.generation;
		return async (call, signal) => {
			const [{ AppSessions }, { appsSetting, piAppHost }] = await Promise.all([loadAppSessions(), loadAppHost()]);
			// A call of a session that has ended (its result came after) opens nothing: its page and
			// servers would outlive the session, which closed every page it knew of.
			if (generation !== this.generation) return undefined;
			this.sessions ??= new AppSessions();
			const { argv, directName } = this.options;
			const host = piAppHost(this.pi, ctx, runtime, this.routes, {
				...(argv ? { argv } : {}),
				...(directName ? { directName } : {}),
			});
			const launchDir = join(this.options.agentDir ?? resolveAgentDir(), LAUNCH_FOLDER);
			return this.sessions.show(call, host, appsSetting(runtime, ctx, launchDir), signal);
		};
	}

	/** Ends every app page of the session (its servers, its stream); a later session starts anew. */
	async closeAll(): Promise<void> {
		this.generation++;
		const sessions = this.sessions;
		this.sessions = undefined;
		await sessions?.closeAll();
	}
}
