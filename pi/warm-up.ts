// Two ways a session gets ready while the model thinks, so a first call does not wait:
// - the MCP client (the SDK and the connection code, ~100-300 ms) loads during a slow turn (one still
//   going after WARM_AFTER_MS is waiting on the model); a quick turn (a short `pi -p`) costs nothing;
// - the learned warm-up: at the session's first prompt, once it has waited WARM_AFTER_MS on the
//   model, the servers this project's recent sessions called (pi/server-usage.ts) start in the
//   background. Not at load: Pi's start never waits for it, and a session that is never prompted
//   starts nothing. Not at the prompt itself either: building the runtime and loading the SDK hold
//   the event loop (~0.5 s on a loaded machine), and done there they held back the prompt's request
//   to the model by as much. Only servers that may start ahead of a call
//   (`McpRuntime.startAhead`: never one awaiting approval, disabled, outside `--mcp-servers`,
//   backing off, or with `settings.warmUp: false`).
import { projectFolder } from "../trust/project-approval.ts";
import { ServerUsage } from "./server-usage.ts";

/** A turn still going after this long is waiting on the model. */
export const WARM_AFTER_MS = 200;

interface TurnEvents {
	on(event: "turn_start" | "turn_end", handler: () => void): void;
}

/** Warms the session's runtime during slow turns; returns what stops it (at session end). */
export function warmWhileModelThinks(pi: TurnEvents, runtime: () => { warmUp(): void } | undefined): () => void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	pi.on("turn_start", () => {
		clearTimeout(timer);
		timer = setTimeout(() => runtime()?.warmUp(), WARM_AFTER_MS);
		timer.unref?.(); // never keeps Pi alive
	});
	pi.on("turn_end", () => clearTimeout(timer));
	return () => clearTimeout(timer);
}

interface SessionEvents {
	on(
		event: "session_start" | "agent_start" | "agent_end",
		handler: (event: unknown, ctx: { cwd: string }) => void,
	): void;
	on(event: "session_shutdown", handler: () => Promise<void>): void;
}

/** What the learned warm-up asks of the session's runtime. */
export interface WarmTarget {
	/** Starts a server ahead of any call; false when nothing started (see `McpRuntime.startAhead`). */
	startAhead(server: string, why: "learned"): boolean;
}

/**
 * Starts at each session's first prompt what the project's recent sessions called, and learns what
 * this one calls (`used`, told by the runtime for every request a server gets).
 */
export function learnedWarmUp(
	pi: SessionEvents,
	agentDir: string,
	runtime: () => Promise<WarmTarget | undefined>,
): { used(server: string): void } {
	const usage = new ServerUsage(agentDir);
	let project: string | undefined;
	let prompted = false;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const warm = (at: string) => {
		const learned = usage.learned(at);
		if (learned.length === 0) return;
		// A runtime that cannot be built starts nothing here; the call that needs it builds it again and says why.
		runtime().then(
			(active) => {
				const started = active ? learned.filter((server) => active.startAhead(server, "learned")) : [];
				usage.warmed(at, started);
			},
			() => undefined,
		);
	};
	pi.on("session_start", (_event, ctx) => {
		project = projectFolder(ctx.cwd);
		prompted = false;
		usage.newSession();
	});
	pi.on("agent_start", () => {
		if (prompted || project === undefined) return;
		prompted = true;
		const at = project;
		timer = setTimeout(() => warm(at), WARM_AFTER_MS);
		timer.unref?.(); // never keeps Pi alive
	});
	// The model answered within WARM_AFTER_MS (a quick `pi -p`): its calls, if any, start their own servers.
	pi.on("agent_end", () => clearTimeout(timer));
	pi.on("session_shutdown", () => {
		clearTimeout(timer);
		return usage.flush();
	});
	return {
		used: (server) => {
			if (project !== undefined) usage.used(project, server);
		},
	};
}
