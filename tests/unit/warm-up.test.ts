// The MCP client is loaded while the model thinks (a slow turn), never for a quick turn.
import { afterEach, describe, expect, it, vi } from "vitest";
import { WARM_AFTER_MS, warmWhileModelThinks } from "../../pi/warm-up.ts";

function fakePi() {
	const handlers = new Map<string, () => void>();
	return {
		on: (event: string, handler: () => void) => void handlers.set(event, handler),
		emit: (event: string) => handlers.get(event)?.(),
	};
}

describe("warm-up while the model thinks", () => {
	afterEach(() => vi.useRealTimers());

	it("a turn still going after the threshold warms the runtime once; a quick turn does not", () => {
		vi.useFakeTimers();
		const pi = fakePi();
		const warmUp = vi.fn();
		warmWhileModelThinks(pi, () => ({ warmUp }));
		pi.emit("turn_start");
		vi.advanceTimersByTime(WARM_AFTER_MS / 2);
		pi.emit("turn_end"); // a quick turn: the model answered at once
		vi.advanceTimersByTime(WARM_AFTER_MS * 10);
		expect(warmUp).not.toHaveBeenCalled();
		pi.emit("turn_start"); // the model thinks
		vi.advanceTimersByTime(WARM_AFTER_MS);
		expect(warmUp).toHaveBeenCalledTimes(1);
	});

	it("ends with the session: nothing fires after it stopped", () => {
		vi.useFakeTimers();
		const pi = fakePi();
		const warmUp = vi.fn();
		const stop = warmWhileModelThinks(pi, () => ({ warmUp }));
		pi.emit("turn_start");
		stop();
		vi.advanceTimersByTime(WARM_AFTER_MS * 10);
		expect(warmUp).not.toHaveBeenCalled();
	});
});
