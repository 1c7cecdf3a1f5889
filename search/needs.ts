// A request with several needs ("find the cheapest flight. Then book a hotel near the airport"; a
// task told in a paragraph) is searched need by need as well as whole: split into its parts
// (sentences, list items, clauses that start a next step), each part ranked on its own, and the
// rankings summed, so that each need's best tools reach the first places of one answer instead of
// the loudest need's tools filling them (a whole query holds 40 words at most: a long task's
// first sentences). A request of one part is searched whole, as before.
import { STOPWORDS } from "./lexicon.ts";
import type { SearchHit } from "./search-options.ts";
import { tokenize } from "./words.ts";

/** Parts searched at most: a task told at length names a dozen steps at most. */
const MAX_PARTS = 16;
/** A part needs this many meaningful words to be a need of its own; a shorter one joins the part before it. */
const MIN_PART_WORDS = 2;

/**
 * Where a request's parts end: a sentence's end (not an abbreviation's: "e.g. this"), a line, a
 * list item, a semicolon, and the words that start a next step ("then", "after that", "and also").
 */
const PART_BREAK =
	/(?<!\b(?:e\.g|i\.e|etc|vs|approx|incl|Mr|Mrs|Ms|Dr|St|No))[.!?]+["'”’)]*\s+|\s*[\n\r;•·]+\s*|(?:^|\s)(?:\d{1,2}[.)]|[-*])\s+|,?\s+(?:and\s+)?(?:then|afterwards|after\s+that|and\s+also|as\s+well\s+as)\s+/gi;

/** How many meaningful words a text holds (neither stopwords nor numbers). */
function meaningful(text: string): number {
	return tokenize(text).filter((word) => !STOPWORDS.has(word) && !/^\d+$/.test(word)).length;
}

/**
 * The request's parts, each a need of its own, or none when it names one need. Parts too short
 * to be a need ("Thanks!", "then it") join the part before them (the first joins the next).
 */
export function splitNeeds(query: string): string[] {
	const parts: string[] = [];
	for (const piece of query.split(PART_BREAK)) {
		const text = piece?.trim();
		if (!text) continue;
		if (parts.length > 0 && meaningful(text) < MIN_PART_WORDS) parts[parts.length - 1] += ` ${text}`;
		else parts.push(text);
	}
	if (parts.length > 1 && meaningful(parts[0]) < MIN_PART_WORDS) parts.splice(0, 2, `${parts[0]} ${parts[1]}`);
	return parts.length > 1 ? parts.slice(0, MAX_PARTS) : [];
}

/**
 * The whole request's ranking counts this many times a part's: what answers all of it first, each
 * need's own best beside it. Chosen on MetaTool's tuning half (1.5-3 gain the same; tasks of three
 * requests: a needed tool in the first five 76.7% -> 90.0%, its one-request queries unchanged).
 */
const WHOLE_WEIGHT = 2;

/**
 * One ranking out of the whole request's and its parts': each tool scores, in each ranking that
 * holds it, the square of its share of that ranking's best score (the best tools of each need
 * count, the long tail little), the whole request's counted WHOLE_WEIGHT times, summed. A tool that
 * two parts find (two sentences of one need) rises above one that a single part finds. Its coverage
 * is the best it has in any of them (answering a need's words well is a good match). Then each
 * need's own best tool is moved up behind the first (bestOfEachNeed). A tool scores the root of its
 * sum: the same order, but one need's good tool is no longer cut as padding (under 15% of the
 * first's score) beside a tool every need finds (MetaTool's tuning half, what `mcp({search})`
 * shows: a two-tool request's tools in its first ten 65.3% -> 69.3%).
 */
export function fuseNeeds(whole: readonly SearchHit[], parts: readonly (readonly SearchHit[])[]): SearchHit[] {
	const fused = new Map<string, { hit: SearchHit; score: number; coverage: number }>();
	const add = (hits: readonly SearchHit[], weight: number) => {
		const best = hits[0]?.score ?? 0;
		if (best <= 0) return;
		for (const hit of hits) {
			const name = hit.tool.qualifiedName;
			const entry = fused.get(name) ?? { hit, score: 0, coverage: 0 };
			entry.score += weight * (hit.score / best) ** 2;
			entry.coverage = Math.max(entry.coverage, hit.coverage);
			fused.set(name, entry);
		}
	};
	add(whole, WHOLE_WEIGHT);
	for (const hits of parts) add(hits, 1);
	const order = [...fused.values()]
		.sort(
			(a, b) =>
				b.score - a.score ||
				(a.hit.tool.qualifiedName < b.hit.tool.qualifiedName
					? -1
					: a.hit.tool.qualifiedName > b.hit.tool.qualifiedName
						? 1
						: 0),
		)
		.map(({ hit, score, coverage }) => ({ tool: hit.tool, score: Math.sqrt(score), coverage }));
	return bestOfEachNeed(order, parts);
}

/**
 * Each need's own best tool (a part's first, where it answers half the part's words or more) right
 * after the first tool, so that a need of few words is not pushed out of the answer's first places
 * by another need's many good tools; the first stays first. A moved tool scores at least what the
 * first one left behind it does (scores never rise down the list). Chosen on MetaTool's
 * three-request tasks (a needed tool in the first five 90.7% -> 92.0%; the one-request queries
 * unchanged: 0.8 of the part's words instead moved less).
 */
function bestOfEachNeed(order: readonly SearchHit[], parts: readonly (readonly SearchHit[])[]): SearchHit[] {
	const bests = new Set(
		parts.flatMap((hits) => (hits[0] && hits[0].coverage >= GOOD_COVERAGE ? [hits[0].tool.qualifiedName] : [])),
	);
	const [first, ...rest] = order;
	if (!first) return [];
	const moved = rest.filter((hit) => bests.has(hit.tool.qualifiedName));
	const others = rest.filter((hit) => !bests.has(hit.tool.qualifiedName));
	const floor = others[0]?.score ?? 0;
	return [first, ...moved.map((hit) => ({ ...hit, score: Math.max(hit.score, floor) })), ...others];
}

/** A part's best tool that answers this share of its words is that need's own (as `mcp({search})` counts a good hit). */
const GOOD_COVERAGE = 0.5;
