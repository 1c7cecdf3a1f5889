// Small async helpers that put an end to waiting: at most N at once, at most so long, or until a
// signal; and one promise shared by every caller. Shared by the lifecycle, the pool and the
// connection code.

/**
 * The promise `make` returns on the first call, handed to every later caller: a module imported
 * on demand is imported once (Pi's loader can hand a second concurrent importer an unfinished module).
 */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
	let made: Promise<T> | undefined;
	return () => (made ??= make());
}

/**
 * Waits for `promise` (whose failure is ignored), at most `ms` (if given) or until `signal` aborts;
 * the timer is cleared either way.
 */
export async function within(promise: Promise<unknown>, ms: number | undefined, signal?: AbortSignal): Promise<void> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	let onAbort: (() => void) | undefined;
	const stop = new Promise<void>((resolve) => {
		if (ms !== undefined) timer = setTimeout(resolve, ms);
		onAbort = () => resolve();
		signal?.addEventListener("abort", onAbort, { once: true });
	});
	// Whether it failed is its owner's business: this only bounds how long the caller waits.
	await Promise.race([promise.catch(() => undefined), stop]);
	clearTimeout(timer);
	if (onAbort) signal?.removeEventListener("abort", onAbort);
}

/** Resolves or rejects with `promise`, or rejects with the signal's reason as soon as it aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
	if (signal.aborted) {
		promise.catch(() => undefined); // it settles later; nobody waits for it any more
		return Promise.reject(signal.reason);
	}
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => reject(signal.reason);
		signal.addEventListener("abort", onAbort, { once: true });
		promise.then(
			(value) => {
				signal.removeEventListener("abort", onAbort);
				resolve(value);
			},
			(error) => {
				signal.removeEventListener("abort", onAbort);
				reject(error);
			},
		);
	});
}

/** Runs `fn` over `items` with at most `limit` running at once. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
	const results: R[] = new Array(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const i = next++;
			results[i] = await fn(items[i]);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
	return results;
}

/** A plain wait that keeps Node alive (not unref'd): for shutdown steps that must finish before the process may exit. */
export function delay(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (the timer goes with it). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal.aborted) return reject(signal.reason);
		const timer = setTimeout(() => {
			signal.removeEventListener("abort", onAbort);
			resolve();
		}, ms);
		const onAbort = () => {
			clearTimeout(timer);
			reject(signal.reason);
		};
		signal.addEventListener("abort", onAbort, { once: true });
	});
}
