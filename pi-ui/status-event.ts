// pi-mcp-adapter 2.36's status event, which GUIs and footers built on 2.36 listen for
// (`pi.events.on("pi-mcp-adapter/status/v1")`): the same channel, the same shape and values, emitted
// on Pi's shared event bus whenever a server's state or tools change, and an empty snapshot when the
// session ends. A listener that throws never disturbs MCP. Our states map to 2.36's six: idle
// (tools known, not running) is `cached`; starting or installing, needing configuration or
// approval, and denied are `not-connected`.
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { ServerLifecycle, ServerState } from "../lifecycle.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { oneLine } from "../trust/safe-text.ts";
import { statusLine } from "./status-line.ts";

export const MCP_STATUS_EVENT = "pi-mcp-adapter/status/v1";

export interface McpServerStatus {
	readonly name: string;
	readonly status: "connected" | "cached" | "failed" | "needs-auth" | "not-connected" | "disabled";
	/** Always `legacy` when connected (2.36's word for a connection that does not listen), else `disconnected`. */
	readonly listenState: "legacy" | "disconnected";
	readonly toolCount: number;
	readonly directToolCount: number;
	readonly resourceCount?: number;
	readonly failedAgoSeconds?: number;
	readonly disabled: boolean;
}

export interface McpStatusSnapshot {
	readonly version: 1;
	readonly servers: readonly McpServerStatus[];
	readonly totalTools: number;
	readonly totalResources: number;
	readonly connectedCount: number;
	readonly disabledCount: number;
}

/** What the session ending emits (2.36's shutdown snapshot). */
export const EMPTY_STATUS: McpStatusSnapshot = {
	version: 1,
	servers: [],
	totalTools: 0,
	totalResources: 0,
	connectedCount: 0,
	disabledCount: 0,
};

const STATUS: Record<ServerState, McpServerStatus["status"]> = {
	connected: "connected",
	idle: "cached",
	failed: "failed",
	"needs-auth": "needs-auth",
	starting: "not-connected",
	installing: "not-connected",
	"not-connected": "not-connected",
	"needs-config": "not-connected",
	"awaiting-approval": "not-connected",
	denied: "not-connected",
};

/** The snapshot of every configured server, turned-off ones last; `directToolServers`: each direct tool's server. */
export function statusSnapshot(
	lifecycle: ServerLifecycle,
	directToolServers: readonly string[],
	now = Date.now(),
): McpStatusSnapshot {
	// Counted once per snapshot, not once per server (it is sent at every change).
	const directCounts = new Map<string, number>();
	for (const server of directToolServers) directCounts.set(server, (directCounts.get(server) ?? 0) + 1);
	const servers: McpServerStatus[] = lifecycle.serverNames().map((name) => {
		const status = STATUS[lifecycle.state(name)];
		const failure = lifecycle.failure(name);
		// As 2.36: a server in failure backoff counts no tools or resources.
		const known = status === "failed" ? undefined : lifecycle.catalog.metadata(name);
		const resourceCount = known?.resources.length;
		return {
			name,
			status,
			listenState: status === "connected" ? "legacy" : "disconnected",
			toolCount: known ? lifecycle.catalog.forServer(name).length : 0,
			directToolCount: directCounts.get(name) ?? 0,
			...(resourceCount === undefined ? {} : { resourceCount }),
			...(status === "failed" && failure
				? { failedAgoSeconds: Math.max(0, Math.round((now - failure.at) / 1000)) }
				: {}),
			disabled: false,
		};
	});
	for (const name of lifecycle.config.disabled?.keys() ?? [])
		servers.push({
			name,
			status: "disabled",
			listenState: "disconnected",
			toolCount: 0,
			directToolCount: 0,
			disabled: true,
		});
	const live = servers.filter((s) => !s.disabled);
	return {
		version: 1,
		servers,
		totalTools: live.reduce((sum, s) => sum + s.toolCount, 0),
		totalResources: live.reduce((sum, s) => sum + (s.resourceCount ?? 0), 0),
		connectedCount: live.filter((s) => s.status === "connected").length,
		disabledCount: servers.length - live.length,
	};
}

/** Pi's shared event bus (both Pi lines have `pi.events`); feature-tested all the same. */
export interface StatusEvents {
	readonly events?: { emit(channel: string, data: unknown): void };
}

/** Emits a snapshot; snapshots are not de-duplicated (2.36's are not: listeners take repeats). */
export function emitStatus(pi: StatusEvents, snapshot: McpStatusSnapshot): void {
	try {
		pi.events?.emit(MCP_STATUS_EVENT, snapshot);
	} catch {
		// A listener's failure is its own: MCP goes on (as 2.36 does).
	}
}

/** The reports as a service of the session (pi-session/session.ts `SessionService`): each runtime it takes, and its end. */
export interface StatusReports {
	attach(runtime: McpRuntime, ctx: ExtensionContext): void;
	end(): void;
}

/**
 * What the user's footer and 2.36's listeners see of a session's servers: the status line and the
 * status event at every change of a runtime's servers, and the empty snapshot when the session ends.
 */
export function statusReports(pi: StatusEvents, directToolServers: () => readonly string[]): StatusReports {
	return {
		attach(runtime, ctx) {
			const report = () => {
				const line = statusLine(runtime.lifecycle);
				ctx.ui.setStatus("mcp", line === undefined ? undefined : oneLine(line));
				emitStatus(pi, statusSnapshot(runtime.lifecycle, directToolServers()));
			};
			runtime.onChange(report);
			report();
		},
		end: () => emitStatus(pi, EMPTY_STATUS),
	};
}
