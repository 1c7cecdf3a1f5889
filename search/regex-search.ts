// `regex: true`: a pattern matched against tools' names and descriptions instead of words.
import { RE2JS } from "re2js";
import type { CatalogTool } from "../catalog/tool-catalog.ts";
import { quote } from "../errors.ts";
import type { SearchHit, SearchOptions } from "./search-options.ts";

/** Longer patterns are refused: no tool name needs one, and compiling is not free. */
const MAX_PATTERN_LENGTH = 500;

/**
 * RE2 semantics (linear time, no backtracking): `(a+)+$` cannot freeze Pi the way JavaScript's
 * engine would (55 s on one tool description). Throws a clear error for a pattern that does not compile.
 */
export function regexSearch(tools: readonly CatalogTool[], pattern: string, options: SearchOptions): SearchHit[] {
	if (pattern.length > MAX_PATTERN_LENGTH)
		throw new Error(
			`The regex is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH} are accepted. Search by words instead.`,
		);
	let re: RE2JS;
	try {
		re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
	} catch (error) {
		throw new Error(
			`Invalid regex ${quote(pattern)}: ${(error as Error).message}. Fix the pattern (RE2 syntax: no lookaround or backreferences), or drop regex: true to search by words.`,
		);
	}
	const test = (text: string) => re.matcher(text).find();
	const hits: SearchHit[] = [];
	for (const tool of tools) {
		if (options.server && tool.server !== options.server) continue;
		if (options.filter && !options.filter(tool)) continue;
		const score = (test(tool.qualifiedName) || test(tool.name) ? 10 : 0) + (test(tool.description) ? 2 : 0);
		if (score > 0) hits.push({ tool, score, coverage: 1 });
	}
	hits.sort((a, b) => b.score - a.score || a.tool.qualifiedName.localeCompare(b.tool.qualifiedName));
	return options.limit ? hits.slice(0, options.limit) : hits;
}
