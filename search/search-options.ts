// What a search is asked (SearchOptions) and what it answers (SearchHit), for every way the
// engine searches (search/tool-index.ts's words, search/regex-search.ts's patterns).
import type { CatalogTool } from "../catalog/tool-catalog.ts";

export interface SearchOptions {
	readonly regex?: boolean;
	readonly server?: string;
	/** Only the tools this accepts (Pi's tool_search: those not loaded yet; a codemode namespace). */
	readonly filter?: (tool: CatalogTool) => boolean;
	/** At most this many hits, the best. */
	readonly limit?: number;
	/**
	 * Only the hits that can matter to an answer: the `top` best, and every hit scoring at least
	 * `share` of the best. Hits below both are left out, which spares scoring thousands of them.
	 */
	readonly keep?: { readonly top: number; readonly share: number };
}

export interface SearchHit {
	readonly tool: CatalogTool;
	readonly score: number;
	/** Share of the query's words (or their synonyms) the tool answers, each word weighted by its rarity (IDF): below 0.5 is a weak match. */
	readonly coverage: number;
}

/** Which tools a search's `server` and `filter` options keep (none when neither is set). */
export function accepting(options: SearchOptions, toolOf: (id: number) => CatalogTool) {
	const { server, filter } = options;
	if (!server && !filter) return undefined;
	return (id: number) => {
		const tool = toolOf(id);
		return (!server || tool.server === server) && (!filter || filter(tool));
	};
}
