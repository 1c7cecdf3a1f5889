// When the search engine loads, and when a big catalog's index is built: the engine (its BM25 index,
// stemmer, WordNet) loads on the first search or index update, never with Pi; a catalog of 1,000
// tools or more is indexed in the background once its changes settle (a session start fills it
// server by server), so the first search does not pay for it. A smaller one is indexed on the
// first search, in milliseconds.
import type { ToolCatalog } from "../catalog/tool-catalog.ts";
import { loadSearch } from "./engine.lazy.ts";

/** Quiet time after the last catalog change before the index is updated in the background. */
const SETTLE_MS = 300;
/** From this many tools the index is built in the background (~40 ms per 1,000 tools). */
export const BACKGROUND_INDEX_TOOLS = 1000;

/** Follows one catalog for a session; `stop` at its end. */
export class BackgroundIndex {
	private timer?: ReturnType<typeof setTimeout>;
	private stopped = false;

	constructor(private readonly catalog: ToolCatalog) {}

	/** The catalog changed: update the index once changes have settled, if it is big enough to matter. */
	changed(): void {
		if (this.stopped) return;
		clearTimeout(this.timer);
		this.timer = setTimeout(() => {
			if (this.catalog.all().length < BACKGROUND_INDEX_TOOLS) return;
			void loadSearch().then((search) => {
				if (!this.stopped) return search.prepareSearch(this.catalog);
			});
		}, SETTLE_MS);
		this.timer.unref?.(); // never keeps Pi alive
	}

	stop(): void {
		this.stopped = true;
		clearTimeout(this.timer);
	}
}
