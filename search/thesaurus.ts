// General-English synonyms for the tool search, from WordNet 3.1 (data/thesaurus.json, built by
// scripts/build-thesaurus.ts). A word's senses come in WordNet's order, most frequent first; a
// sense whose words or definition share a word with the rest of the query is the one meant
// (simplified Lesk: in "add numbers", add as in "make an addition by combining numbers"), so its
// synonyms count more. Which synonyms matter is then decided by the catalog itself: a tool only
// gains from a synonym it contains, and the search's coordination rewards tools that answer the
// whole query ("add numbers" → the tool about a sum of numbers, not every tool that adds).
import { readFileSync } from "node:fs";
import { join } from "node:path";

interface ThesaurusFile {
	readonly words: string[];
	readonly synsets: number[][];
	readonly lemmas: Record<string, number[]>;
	/** Per word: the forms derived from it or it from (WordNet's derivationally related forms). */
	readonly derived: Record<string, string[]>;
}

export interface Synonym {
	readonly word: string;
	/** 0..1: how likely this is what the query word means here. */
	readonly weight: number;
}

/** Senses that count: later ones are rare meanings ("remove" as "murder")... */
const MAX_SENSES = 4;
/** ...unless the sense is among the synonym's own first ones, or the query points at it. */
const LOOKED_AT = 8;
/** Weight of the first sense's synonyms; each later sense counts less. */
const FIRST_SENSE = 0.5;
const SENSE_DECAY = 0.7;
/** A sense the rest of the query points at. */
const MEANT_SENSE = 0.8;
const MAX_SYNONYMS = 12;

let loaded: ThesaurusFile | undefined;
function thesaurus(): ThesaurusFile {
	if (!loaded) {
		const file = JSON.parse(
			readFileSync(join(import.meta.dirname, "..", "data", "thesaurus.json"), "utf8"),
		) as ThesaurusFile;
		// Looked up by any word a query holds: "constructor" or "toString" must find nothing, not Object's own.
		Object.setPrototypeOf(file.lemmas, null);
		Object.setPrototypeOf(file.derived, null);
		loaded = file;
	}
	return loaded;
}

/** A form derived from the word (payment → pay) counts this much of a first sense's synonym (learned on the tuning set). */
const DERIVED = 0.5;

/** Forms WordNet derives from a word or the word from (payment → pay, deletion → delete), with their weight. */
export function derivedForms(word: string): Synonym[] {
	const base = baseForm(word);
	return ((base && thesaurus().derived[base]) || []).map((form) => ({ word: form, weight: DERIVED }));
}

/** Suffix → ending, tried in order (WordNet's detachment rules for nouns, verbs and adjectives). */
const MORPHY_RULES: readonly (readonly [string, string])[] = [
	["ies", "y"],
	["es", ""],
	["s", ""],
	["ing", ""],
	["ing", "e"],
	["ed", ""],
	["ed", "e"],
	["er", ""],
	["est", ""],
];

/** WordNet's base form of a word (its "morphy" rules, for the forms queries use). */
export function baseForm(word: string): string | undefined {
	const { lemmas } = thesaurus();
	if (lemmas[word]) return word;
	for (const [suffix, ending] of MORPHY_RULES) {
		if (word.length > suffix.length + 2 && word.endsWith(suffix)) {
			const base = word.slice(0, -suffix.length) + ending;
			if (lemmas[base]) return base;
		}
	}
	return undefined;
}

/**
 * Synonyms of a word or phrase (lowercase, words separated by spaces), single words only, with
 * the weight of the sense they come from. `context` holds the query's other words (any form).
 */
export function synonymsOf(phrase: string, context: ReadonlySet<string>): Synonym[] {
	const { words, synsets, lemmas } = thesaurus();
	const key = phrase.includes(" ") ? phrase : baseForm(phrase);
	const senses = key ? lemmas[key] : undefined;
	if (!senses) return [];
	const best = new Map<string, number>();
	senses.slice(0, LOOKED_AT).forEach((index, rank) => {
		const synset = synsets[index];
		const members = synset.slice(1, 1 + synset[0]).map((n) => words[n]);
		const gloss = synset.slice(1 + synset[0]).map((n) => words[n]);
		const meant = [...members, ...gloss].some((w) => w !== key && (context.has(w) || context.has(baseForm(w) ?? w)));
		for (const member of members) {
			if (member === key || member.includes(" ") || member.includes("-")) continue;
			// Synonymy goes both ways: "create" is the first sense of create even where it is a late sense of make.
			const theirs = lemmas[member]?.indexOf(index) ?? -1;
			const closest = theirs >= 0 ? Math.min(rank, theirs) : rank;
			if (closest >= MAX_SENSES && !meant) continue;
			const weight = meant ? MEANT_SENSE : FIRST_SENSE * SENSE_DECAY ** closest;
			best.set(member, Math.max(best.get(member) ?? 0, weight));
		}
	});
	return [...best]
		.sort((a, b) => b[1] - a[1])
		.slice(0, MAX_SYNONYMS)
		.map(([word, weight]) => ({ word, weight }));
}
