// The first call of a session pays for loading the MCP client (the SDK and the connection code,
// ~100-300 ms) unless it was loaded before. Loaded while the model thinks: a turn still going
// after WARM_AFTER_MS is waiting on the model; a quick turn (a short `pi -p`) costs nothing, and
// Pi's start-up never waits for it.

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
