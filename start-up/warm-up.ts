// The warm-up: two ways a session gets ready while the model thinks, so a first call does not wait:
// - the learned start: at the session's first prompt the servers this project's recent sessions
//   called (start-up/server-usage.ts) start ahead of their call, in the background; then
// - the MCP client (the SDK and the connection code, ~100-700 ms) and the call path load.
// Both while the model thinks: when a turn's model has not answered WARM_AFTER_MS after the turn's
// request went out (a quick turn, a short `pi -p`, costs nothing). Counted from the request on the
// wire, never from the turn's start: building the runtime and loading the SDK hold the event loop
// (~0.5-1.7 s on a loaded machine), and begun before Pi had sent its request they held it back by as
// much. Not at load: Pi's start never waits for it, and a session never prompted starts nothing.
// Only servers that may start ahead of a call (`McpRuntime.startAhead`: never one awaiting
// approval, disabled, outside `--mcp-servers`, backing off, or with `settings.warmUp: false`).
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { projectFolder } from "../trust/project-approval.ts";
import { ServerUsage } from "./server-usage.ts";

/** A turn's model still thinking this long after its request went out is not answering at once. */
export const WARM_AFTER_MS = 200;
/** A request Pi built and no fetch was seen sending (another HTTP stack) counts as sent after this long. */
export const SEND_WAIT_MS = 1000;

/** Tells when a request's body went on the wire. */
export type RequestsSent = (listener: () => void) => () => void;

/** Node's fetch (undici, which Pi's providers use) tells each request sent on a diagnostics channel. */
export const fetchRequestsSent: RequestsSent = (listener) => {
	const channel = "undici:request:bodySent";
	const onSent = () => listener();
	subscribe(channel, onSent);
	return () => void unsubscribe(channel, onSent);
};

interface TurnEvents {
	on(event: "before_provider_request" | "turn_end", handler: () => void): void;
}

/**
 * Calls `warm` in each turn whose model has not answered WARM_AFTER_MS after the turn's request
 * went out: Pi builds it (`before_provider_request`), Node's fetch sends it (`sent`), or, when no
 * fetch is seen sending it, SEND_WAIT_MS after it was built. Returns what stops the turn's wait (at
 * session end); the next session's turns are watched again.
 */
export function whileModelThinks(pi: TurnEvents, warm: () => void, sent: RequestsSent = fetchRequestsSent): () => void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	/** Listens for the turn's request going out (until the turn ends or it warmed). */
	let listening: (() => void) | undefined;
	let sending = false;
	const stop = () => {
		sending = false;
		listening?.();
		listening = undefined;
		clearTimeout(timer);
	};
	const warmIn = (ms: number) => {
		clearTimeout(timer);
		timer = setTimeout(() => {
			stop();
			warm();
		}, ms);
		timer.unref?.(); // never keeps Pi alive
	};
	pi.on("before_provider_request", () => {
		stop();
		warmIn(SEND_WAIT_MS + WARM_AFTER_MS);
		sending = true;
		// The first request sent from now on is this one (another extension's fetch only warms a little early).
		listening = sent(() => {
			if (!sending) return;
			sending = false;
			warmIn(WARM_AFTER_MS);
		});
	});
	pi.on("turn_end", stop);
	return stop;
}

interface SessionEvents {
	on(event: "session_start" | "agent_start", handler: (event: unknown, ctx: { cwd: string }) => void): void;
	on(event: "session_shutdown", handler: () => Promise<void>): void;
}

/** What the learned start asks of the session's runtime. */
export interface WarmTarget {
	/** Starts a server ahead of any call; false when nothing started (see `McpRuntime.startAhead`). */
	startAhead(server: string, why: "learned"): boolean;
}

/**
 * Starts, while the model thinks over each session's first prompt (`warm`, called by
 * `whileModelThinks`), what the project's recent sessions called, and learns what this one calls
 * (`used`, told by the runtime for every request a server gets). `warm` settles once those starts
 * were asked for (the client's load waits for their processes: `McpServerManager.warmUp`).
 */
export function learnedWarmUp(
	pi: SessionEvents,
	agentDir: string,
	runtime: () => Promise<WarmTarget | undefined>,
): { used(server: string): void; warm(): Promise<void> } {
	const usage = new ServerUsage(agentDir);
	let project: string | undefined;
	let prompts = 0;
	let warmed = false;
	pi.on("session_start", (_event, ctx) => {
		project = projectFolder(ctx.cwd);
		prompts = 0;
		warmed = false;
		usage.newSession();
	});
	pi.on("agent_start", () => {
		prompts++;
	});
	pi.on("session_shutdown", () => usage.flush());
	return {
		used: (server) => {
			if (project !== undefined) usage.used(project, server);
		},
		warm: async () => {
			const at = project;
			if (warmed || prompts !== 1 || at === undefined) return;
			warmed = true;
			const learned = usage.learned(at);
			if (learned.length === 0) return;
			// A runtime that cannot be built starts nothing here; the call that needs it builds it again and says why.
			const active = await runtime().catch(() => undefined);
			const started = active ? learned.filter((server) => active.startAhead(server, "learned")) : [];
			usage.warmed(at, started);
		},
	};
}
