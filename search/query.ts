// What a search query means to the index: its words as search/words.ts reads them, expanded with
// general-English synonyms (WordNet, search/thesaurus.ts, the sense chosen by the rest of the query)
// and the few software idioms a dictionary cannot know (search/lexicon.ts), each below the query's
// own words. search/engine.ts ranks tools with it.
import { EQUIVALENTS, IDIOM_PHRASES, STOPWORDS } from "./lexicon.ts";
import { baseForm, derivedForms, synonymsOf } from "./thesaurus.ts";
import { isPlural, pluralTerm, stem, tokenize } from "./words.ts";

/** A word found through a software idiom's equivalent counts this much of the word itself. */
const EQUIVALENT_WEIGHT = 0.55;
/** A WordNet synonym counts its sense's weight times this. */
const SYNONYM_WEIGHT = 0.45;

/** Lexicon keyed by stemmed phrase ("who chang", "folder") → stemmed words of its equivalents. */
const LEXICON: ReadonlyMap<string, readonly string[]> = (() => {
	const map = new Map<string, Set<string>>();
	for (const group of EQUIVALENTS) {
		const members = group.map((m) => tokenize(m).map(stem));
		for (const member of members) {
			const key = member.join(" ");
			const out = map.get(key) ?? new Set<string>();
			for (const other of members) for (const word of other) if (!STOPWORDS.has(word)) out.add(word);
			map.set(key, out);
		}
	}
	return new Map([...map].map(([k, v]) => [k, [...v]]));
})();

/** Stemmed idioms from the lexicon (phrases of 2+ words marked as idioms). */
const IDIOMS: ReadonlySet<string> = new Set(IDIOM_PHRASES.map((p) => tokenize(p).map(stem).join(" ")));
const IDIOM_WORD_WEIGHT = 0.25;

export interface ExpandedQuery {
	/** Every term to look up (stemmed), with its weight: 1 for the query's own words. */
	readonly weights: Map<string, number>;
	/** Per meaningful query word, the terms that stand for it (itself and its equivalents). */
	readonly concepts: Set<string>[];
	/** Terms only WordNet gave (a general dictionary: any of a word's senses), not the query or the idiom lexicon. */
	readonly general: Set<string>;
	/** Terms that match a tool's name only: the plural marks of a plural word's terms (search/words.ts `pluralTerm`). */
	readonly nameOnly: Set<string>;
}

/** The query's own words (weight 1) and their equivalents (lower weight), all stemmed. */
export function expandQuery(query: string): ExpandedQuery {
	const raw = tokenize(query);
	const stems = raw.map(stem);
	const weights = new Map<string, number>();
	const concepts = new Map<string, Set<string>>();
	const add = (term: string, weight: number) => weights.set(term, Math.max(weights.get(term) ?? 0, weight));
	const general = new Set<string>();
	const addGeneral = (term: string, weight: number) => {
		if (!weights.has(term)) general.add(term);
		add(term, weight);
	};
	raw.forEach((word, i) => {
		if (STOPWORDS.has(word)) return;
		add(stems[i], 1);
		concepts.set(stems[i], new Set([stems[i]]));
	});
	// Phrases ("who changed", "pull request") and single words, with and without stopwords
	// ("close the ticket" holds the phrase "close ticket").
	const contentRaw = raw.filter((w) => !STOPWORDS.has(w));
	const content = contentRaw.map(stem);
	const idiomWords = new Set<string>();
	// General English: WordNet synonyms of each word and two-word phrase, the sense chosen by the rest of the query.
	const context = new Set(contentRaw.flatMap((w) => [w, baseForm(w) ?? w]));
	for (let n = 2; n >= 1; n--) {
		for (let i = 0; i + n <= contentRaw.length; i++) {
			const words = contentRaw.slice(i, i + n);
			const others = new Set([...context].filter((w) => !words.includes(w)));
			for (const synonym of synonymsOf(words.join(" "), others)) {
				const term = stem(synonym.word);
				if (STOPWORDS.has(synonym.word) || content.includes(term)) continue;
				addGeneral(term, synonym.weight * SYNONYM_WEIGHT);
				for (const word of words) concepts.get(stem(word))?.add(term);
			}
		}
	}
	// Phrasal verbs whose particle is a stopword ("look for": search, "look up": consult, "shut down": close).
	raw.forEach((word, i) => {
		const particle = raw[i + 1];
		if (STOPWORDS.has(word) || particle === undefined || !STOPWORDS.has(particle)) return;
		const others = new Set([...context].filter((w) => w !== word));
		for (const synonym of synonymsOf(`${word} ${particle}`, others)) {
			const term = stem(synonym.word);
			if (STOPWORDS.has(synonym.word) || content.includes(term)) continue;
			addGeneral(term, synonym.weight * SYNONYM_WEIGHT);
			concepts.get(stems[i])?.add(term);
		}
	});
	// WordNet beyond synonyms: the forms derived from a word (payment: pay, addition: add), which stemming misses.
	contentRaw.forEach((word, i) => {
		for (const related of derivedForms(word)) {
			const term = stem(related.word);
			if (STOPWORDS.has(related.word) || content.includes(term)) continue;
			addGeneral(term, related.weight * SYNONYM_WEIGHT);
			concepts.get(content[i])?.add(term);
		}
	});
	for (const sequence of [stems, content]) {
		for (let n = 3; n >= 1; n--) {
			for (let i = 0; i + n <= sequence.length; i++) {
				const words = sequence.slice(i, i + n);
				const phrase = words.join(" ");
				if (n === 1 && idiomWords.has(phrase)) continue; // "file" in "file a ticket" is no document
				for (const term of LEXICON.get(phrase) ?? []) {
					add(term, EQUIVALENT_WEIGHT);
					general.delete(term);
					for (const word of words) concepts.get(word)?.add(term);
				}
				if (n > 1 && IDIOMS.has(phrase)) for (const word of words) idiomWords.add(word);
			}
		}
	}
	// An idiom ("file a ticket", "who changed"): its own words mean less than what it stands for.
	for (const word of idiomWords) if (weights.has(word)) weights.set(word, IDIOM_WORD_WEIGHT);
	lowerPurpose(raw, concepts, weights);
	const nameOnly = markPlurals(raw, concepts, weights);
	return { weights, concepts: [...concepts.values()], general, nameOnly };
}

/** What the words after "for" or "about" weigh: the request's purpose or topic, not what to act on. */
const PURPOSE_WEIGHT = 0.25;

/**
 * "search the web for the latest node release notes", "stage files for commit", "what do you know
 * about project apollo": the words after the first "for" or "about" say what the request is for or
 * about, which many tools name (release notes, commits, projects) and the one that does it need
 * not. They still count, at a quarter of their weight. A "for" after a lone verb is a phrasal
 * verb's ("search for files", "please wait for the page"), whose object follows: no purpose.
 * Chosen on both tuning sets (issue 41, fifth round: 0.1-0.5 gain, with and without the lexicon).
 */
function lowerPurpose(raw: readonly string[], concepts: Map<string, Set<string>>, weights: Map<string, number>): void {
	const at = raw.findIndex((word, i) => (word === "about" && i > 0) || (word === "for" && actedOn(raw.slice(0, i))));
	if (at < 0) return;
	// What is said before the purpose, and every term standing for it, is what to act on ("create a
	// ticket about the login bug": bug's equivalents hold ticket, which keeps its weight).
	const kept = new Set(raw.slice(0, at).flatMap((word) => [...(concepts.get(stem(word)) ?? [])]));
	const lowered = new Set<string>();
	for (const word of new Set(raw.slice(at + 1).map(stem)))
		for (const term of concepts.get(word) ?? []) if (!kept.has(term)) lowered.add(term);
	for (const term of lowered) weights.set(term, (weights.get(term) ?? 0) * PURPOSE_WEIGHT);
}

/**
 * Whether the words before a "for" name something to act on beyond a verb: with only one meaningful
 * word before it ("search for files", "please wait for the page"), it is a phrasal verb's particle
 * and what follows is its object. "About" is a topic's after any verb ("what do you know about X").
 */
function actedOn(before: readonly string[]): boolean {
	return before.filter((word) => !STOPWORDS.has(word)).length >= 2;
}

/**
 * A plural query word ("meetings", "which projects") asks for many: each of its terms (itself and
 * its equivalents) also finds, at its own weight, a tool whose name holds that term in the plural
 * (list-events over get-event). Chosen on the fresh tuning set (issue 41, fifth round).
 */
function markPlurals(
	raw: readonly string[],
	concepts: Map<string, Set<string>>,
	weights: Map<string, number>,
): Set<string> {
	const marks = new Set<string>();
	// Each plural word once; a term two plurals share is marked at the higher of its weights.
	for (const word of new Set(raw.filter(isPlural).map(stem))) {
		const concept = concepts.get(word);
		if (!concept) continue;
		// Each concept once (one per stem): it holds no mark yet, so no mark is marked again.
		for (const term of [...concept]) {
			const mark = pluralTerm(term);
			weights.set(mark, Math.max(weights.get(mark) ?? 0, weights.get(term) ?? 0));
			concept.add(mark);
			marks.add(mark);
		}
	}
	return marks;
}

/** Words that open a question ("which projects do I have"; not "can you", "do", "how to": requests). */
const QUESTION_OPENERS = /^(what|whats|which|who|whose|where|when|is|are|was|were|any|does|did|has)$/;
/** Words that open a request, even one ending in "?" ("can you create an issue?"). */
const REQUEST_OPENERS = /^(can|could|would|will|please|pls|lets?)$/;

/**
 * Whether the query asks what is (a question), which a tool that reads answers, not one that
 * changes things. Not a request asked politely ("can you delete the branch?"), nor a question about
 * which tool to use ("which tool creates an issue", "is there a tool to..."): the request is in it.
 */
export function asksQuestion(query: string, words: readonly string[]): boolean {
	if (REQUEST_OPENERS.test(words[0] ?? "") || words.some((word) => word === "tool" || word === "tools")) return false;
	return (
		/\?\s*$/.test(query) ||
		QUESTION_OPENERS.test(words[0] ?? "") ||
		(words[0] === "how" && /^(many|much)$/.test(words[1] ?? ""))
	);
}
