// One search index per tool catalog (a session's), brought up to date with the catalog before a
// search, or in the background (prepareSearch, search/background-index.ts) so that the first
// search after a start or a server's change finds it built.
import type { ToolCatalog } from "../catalog/tool-catalog.ts";
import type { SearchHit, SearchOptions } from "./search-options.ts";
import { type ServerAbout, ToolSearchIndex } from "./tool-index.ts";

/** What each server says of itself, as the catalog holds it (the config's description, the server's instructions). */
const aboutOf =
	(catalog: ToolCatalog): ServerAbout =>
	(server) =>
		catalog.metadata(server);

/** A catalog's index, the catalog version it reflects, and an update under way in the background. */
interface CatalogIndex {
	readonly index: ToolSearchIndex;
	version: number;
	/** How many times the index was brought up to date (a search with no change since does not count). */
	updates: number;
	pending?: Generator<void, void, void>;
}

const indexes = new WeakMap<ToolCatalog, CatalogIndex>();

function indexOf(catalog: ToolCatalog): CatalogIndex {
	let state = indexes.get(catalog);
	if (!state) {
		state = { index: new ToolSearchIndex(), version: -1, updates: 0 };
		indexes.set(catalog, state);
	}
	return state;
}

/** The catalog's index, brought up to date first: a background update is finished, a change since is applied. */
export function searchCatalog(catalog: ToolCatalog, query: string, options: SearchOptions = {}): SearchHit[] {
	const state = indexOf(catalog);
	if (state.pending) {
		for (const _ of state.pending);
		state.pending = undefined;
		state.updates++;
	}
	if (state.version !== catalog.version) {
		state.index.update(catalog.byServer(), aboutOf(catalog));
		state.version = catalog.version;
		state.updates++;
	}
	return state.index.search(query, options);
}

/**
 * Which catalog version the index reflects (-1: none yet), how often it was updated, and what its
 * last update looked at: what tests and the bench observe.
 */
export function indexInfo(catalog: ToolCatalog): {
	readonly version: number;
	readonly updates: number;
	readonly lastUpdate: { readonly compared: number; readonly added: number };
} {
	const { version, updates, index } = indexOf(catalog);
	return { version, updates, lastUpdate: index.lastUpdate };
}

/**
 * Updates the catalog's index in the background, a few hundred tools per turn of the event loop,
 * so the first search after a session start or a server's change finds it built. A search that
 * comes first finishes the update itself.
 */
export function prepareSearch(catalog: ToolCatalog): Promise<void> {
	const state = indexOf(catalog);
	if (state.pending || state.version === catalog.version) return Promise.resolve();
	const version = catalog.version;
	const steps = state.index.updating(catalog.byServer(), aboutOf(catalog));
	state.pending = steps;
	return new Promise((resolve) => {
		const step = () => {
			if (state.pending !== steps) return resolve(); // a search finished it
			if (!steps.next().done) return void setImmediate(step);
			state.pending = undefined;
			state.version = version;
			state.updates++;
			resolve();
		};
		setImmediate(step);
	});
}
