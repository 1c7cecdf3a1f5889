// The services a session builds from its settings: the pool's options (limits in bytes and ms, the
// credentials, the client's answers, the broker), npx launches through a resolver made at the first
// stdio start (a session with a warm cache may never start one), and the `approveTools` questions,
// whose code loads at the first call that asks.
import { once } from "../bounds/waits.ts";
import { APPS_EXTENSION } from "../catalog/tool-ui.ts";
import { loadToolApproval } from "../client/tool-approval.lazy.ts";
import type { ToolApprovals } from "../client/tool-approval.ts";
import type { Dialogs } from "../client/user-dialogs.ts";
import type { NpxResolver } from "../npx-resolver.ts";
import { credentialRenewal } from "../oauth-handler.ts";
import type { AskApproval } from "../server-lifecycle/requests.ts";
import type { ServerManagerOptions } from "../server-manager.ts";
import type { ClientRequests, Launcher } from "../transport/open-connection.ts";
import type { Redactor } from "../trust/redaction.ts";
import { loadSavedToolApprovals } from "../trust/saved-tool-approvals.lazy.ts";
import type { McpSettings } from "../types.ts";

/** `npx pkg` resolution: at the first stdio start. */
const loadNpxResolver = once(() => import("../npx-resolver.ts"));

/** Who the session is: where its files are, its environment, and what scrubs its messages. */
export interface SessionPlace {
	readonly agentDir: string;
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly redactor: Redactor;
}

/** The pool's options from the session's settings: MB as bytes, the sign-in's renewal, what servers may ask. */
export function poolOptions(
	settings: McpSettings,
	place: SessionPlace,
	requests: ClientRequests,
	launch: Launcher,
): ServerManagerOptions {
	const { agentDir, env } = place;
	return {
		requestTimeoutMs: settings.requestTimeoutMs,
		maxTotalTimeoutMs: settings.maxTotalTimeoutMs,
		connectTimeoutMs: settings.connectTimeoutMs,
		maxMessageBytes: settings.maxMessageMB * 1024 * 1024,
		maxArgumentBytes: settings.maxArgumentMB * 1024 * 1024,
		env,
		auth: { agentDir, env },
		renewCredentials: credentialRenewal({ agentDir, env }),
		launch,
		redactor: place.redactor,
		// Servers may give a client that shows apps (settings.apps) their tools with views.
		requests: { ...requests, ...(settings.apps ? { extensions: APPS_EXTENSION } : {}) },
		broker: {
			agentDir,
			shares: (entry) => entry.share ?? settings.shareServers,
			lingerMs: (entry) => (entry.idleTimeout ?? settings.idleTimeout) * 60_000,
		},
	};
}

/** How stdio servers start: npx launches resolved (and installed) by a resolver made at the first start. */
export class NpxLaunches {
	private resolver?: Promise<NpxResolver>;

	constructor(
		private readonly agentDir: string,
		private readonly offline: boolean,
		private readonly installTimeoutMs: number,
	) {}

	readonly launch: Launcher = async (entry, signal, onInstall) => {
		this.resolver ??= loadNpxResolver().then(
			({ NpxResolver }) =>
				new NpxResolver({ agentDir: this.agentDir, offline: this.offline, installTimeoutMs: this.installTimeoutMs }),
		);
		return (await this.resolver).launcher()(entry, signal, onInstall);
	};

	/** Whether a stdio start has made the resolver. */
	get started(): boolean {
		return this.resolver !== undefined;
	}

	dispose(): void {
		void this.resolver?.then((resolver) => resolver.dispose());
	}
}

/** Asks the user about a call `approveTools` names; the approvals (and their saved answers) load at the first such call. */
export function toolApprovalAsker(place: SessionPlace, dialogs: () => Dialogs | undefined): AskApproval {
	let approvals: Promise<ToolApprovals> | undefined;
	return async (entry, tool, args, signal) => {
		approvals ??= Promise.all([loadToolApproval(), loadSavedToolApprovals()]).then(
			([{ ToolApprovals }, { SavedToolApprovals }]) =>
				new ToolApprovals({
					dialogs,
					scrub: (t) => place.redactor.scrub(t),
					saved: new SavedToolApprovals(place.agentDir),
				}),
		);
		return (await approvals).ask(entry, tool, args, signal);
	};
}
