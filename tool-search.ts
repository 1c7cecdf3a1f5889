// Ranked tool search. Names are split into words (snake, kebab, dots, camelCase) and stemmed;
// the query is expanded with general-English synonyms (WordNet, search-thesaurus.ts) and a small
// set of software idioms (search-lexicon.ts); MiniSearch scores with BM25 over weighted fields
// (tool name > server > description > parameter names and values) and tolerates typos. What the
// catalog itself shows decides the rest: a tool must answer the whole query (coordination: "add
// numbers" is about a sum, so the verb alone does not win), and words that start many tool names
// (get, list, add: actions every server has) weigh less than the thing the query is about.
// `regex` matches a pattern against names and descriptions instead.
// One index per catalog version: built on the first search after the tools change.
import MiniSearch from "minisearch";
import { RE2JS } from "re2js";
import { stemmer } from "stemmer";
import { EQUIVALENTS, IDIOM_PHRASES, STOPWORDS } from "./search-lexicon.ts";
import { baseForm, synonymsOf } from "./search-thesaurus.ts";
import { quote } from "./errors.ts";
import type { CatalogTool, ToolCatalog } from "./tool-catalog.ts";

export interface SearchOptions {
	readonly regex?: boolean;
	readonly server?: string;
	readonly limit?: number;
}

export interface SearchHit {
	readonly tool: CatalogTool;
	readonly score: number;
	/** Share of the query's words (or their synonyms) the tool answers: below 0.5 is a weak match. */
	readonly coverage: number;
}

const MAX_QUERY_CHARS = 2000;
const MAX_QUERY_WORDS = 40;

/** Field weights: a word in the tool's name counts most, one in a parameter name least. */
const BOOST = { name: 6, server: 2.5, description: 1.2, params: 0.6 } as const;
/** A word found through a software idiom's equivalent counts this much of the word itself. */
const EQUIVALENT_WEIGHT = 0.55;
/** A WordNet synonym counts its sense's weight times this. */
const SYNONYM_WEIGHT = 0.6;
/** Query words that start many tool names are actions; with an object beside them they count this much. */
const ACTION_WEIGHT = 0.5;
/** The weight from which a synonym makes its word an action. */
const CLOSE_SYNONYM = 0.25;

/** Lowercase word pieces: `createIssue`, `create_issue`, `create-issue`, `create.issue` → create, issue. */
export function tokenize(text: string): string[] {
	return text
		.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
		.replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter((t) => t.length > 0);
}

const stems = new Map<string, string>();
/** One word as the index keeps it: stemmed, so "issues", "issued" and "issue" meet. Memoized: indexing stems every word of every tool. */
export function stem(word: string): string {
	let stemmed = stems.get(word);
	if (stemmed === undefined) {
		stemmed = /^\d+$/.test(word) ? word : stemmer(word);
		if (stems.size < 200_000) stems.set(word, stemmed);
	}
	return stemmed;
}

/** Words of a text as indexed: tokenized, without stopwords, stemmed. */
export function analyze(text: string): string[] {
	return tokenize(text)
		.filter((t) => !STOPWORDS.has(t))
		.map(stem);
}

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
}

/** The query's own words (weight 1) and their equivalents (lower weight), all stemmed. */
export function expandQuery(query: string): ExpandedQuery {
	const raw = tokenize(query);
	const stems = raw.map(stem);
	const weights = new Map<string, number>();
	const concepts = new Map<string, Set<string>>();
	const add = (term: string, weight: number) => weights.set(term, Math.max(weights.get(term) ?? 0, weight));
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
				add(term, synonym.weight * SYNONYM_WEIGHT);
				for (const word of words) concepts.get(stem(word))?.add(term);
			}
		}
	}
	for (const sequence of [stems, content]) {
		for (let n = 3; n >= 1; n--) {
			for (let i = 0; i + n <= sequence.length; i++) {
				const words = sequence.slice(i, i + n);
				const phrase = words.join(" ");
				if (n === 1 && idiomWords.has(phrase)) continue; // "file" in "file a ticket" is no document
				for (const term of LEXICON.get(phrase) ?? []) {
					add(term, EQUIVALENT_WEIGHT);
					for (const word of words) concepts.get(word)?.add(term);
				}
				if (n > 1 && IDIOMS.has(phrase)) for (const word of words) idiomWords.add(word);
			}
		}
	}
	// An idiom ("file a ticket", "who changed"): its own words mean less than what it stands for.
	for (const word of idiomWords) if (weights.has(word)) weights.set(word, IDIOM_WORD_WEIGHT);
	return { weights, concepts: [...concepts.values()] };
}

interface IndexedTool {
	readonly id: number;
	readonly name: string;
	readonly server: string;
	readonly description: string;
	readonly params: string;
}

/** A MiniSearch index over one list of tools. */
export class ToolSearchIndex {
	private readonly index: MiniSearch<IndexedTool>;
	/** Each tool's terms, to see which query words it answers. */
	private readonly termsOf: ReadonlySet<string>[];
	/** Each tool's terms in its name and parameters: where a tool says what it does (not "make sure" in a description). */
	private readonly actionTermsOf: ReadonlySet<string>[];
	/** Each tool's name as `word_word`, to spot a query that is exactly a tool name. */
	private readonly nameKeys: string[];
	/** Stemmed words that start many tool names: the catalog's actions (get, list, create...). */
	private readonly actions: ReadonlySet<string>;

	constructor(private readonly tools: readonly CatalogTool[]) {
		// Each field is analyzed once, here; MiniSearch gets the stemmed words space-separated.
		this.index = new MiniSearch<IndexedTool>({
			fields: ["name", "server", "description", "params"],
			storeFields: [],
			tokenize: (text) => text.split(" "),
			processTerm: (term) => term || null,
		});
		const termsOf: Set<string>[] = [];
		const actionTermsOf: Set<string>[] = [];
		const documents = tools.map((tool, id) => {
			const fields = {
				name: analyze(`${tool.name} ${tool.title ?? ""}`),
				server: analyze(tool.server),
				description: analyze(summary(tool.description)),
				params: analyze(paramText(tool.inputSchema)),
			};
			termsOf.push(new Set([...fields.name, ...fields.server, ...fields.description, ...fields.params]));
			actionTermsOf.push(new Set([...fields.name, ...fields.params]));
			return { id, name: fields.name.join(" "), server: fields.server.join(" "), description: fields.description.join(" "), params: fields.params.join(" ") };
		});
		this.index.addAll(documents);
		this.termsOf = termsOf;
		this.actionTermsOf = actionTermsOf;
		this.nameKeys = tools.map((tool) => tokenize(tool.name).join("_"));
		this.actions = nameHeads(tools);
	}

	search(query: string, options: SearchOptions = {}): SearchHit[] {
		if (options.regex) return regexSearch(this.tools, query, options);
		// What a query can mean fits in a few dozen words; a megabyte of them must not cost seconds.
		const words = tokenize(query.slice(0, MAX_QUERY_CHARS)).slice(0, MAX_QUERY_WORDS);
		const { weights, concepts } = expandQuery(words.join(" "));
		if (weights.size === 0) return [];
		// "add numbers": the action is common to many tools, the object says which one.
		const actionWords = concepts.filter((c) => this.actions.has(ownWord(c)));
		if (actionWords.length > 0 && actionWords.length < concepts.length) {
			for (const concept of actionWords) for (const term of concept) weights.set(term, (weights.get(term) ?? 1) * ACTION_WEIGHT);
		}
		const wholeName = words.join("_");
		const results = this.index.search([...weights.keys()].join(" "), {
			// The terms are already tokenized and stemmed.
			tokenize: (text) => text.split(" "),
			processTerm: (term) => term,
			combineWith: "OR",
			boost: BOOST,
			boostTerm: (term) => weights.get(term) ?? 1,
			// Only for the query's own words: a typo or a partial word of an equivalent is noise.
			fuzzy: (term) => (term.length >= 5 && weights.get(term) === 1 ? 1 : false),
			prefix: (term) => term.length >= 4 && weights.get(term) === 1,
			weights: { fuzzy: 0.3, prefix: 0.4 },
			// The exact tool name typed as the query always comes first.
			boostDocument: (id) => (this.nameKeys[id as number] === wholeName ? 3 : 1),
			filter: options.server ? (result) => this.tools[result.id as number].server === options.server : undefined,
		});
		// Coordination: a tool that answers every word of the query beats one that answers a rare word
		// loudly ("find files by name": search_files over find_organizations).
		// A concept is an action when its word is one, or a close synonym is ("make": create), not a far one ("number": list).
		const conceptTerms = concepts.map((c) => ({ terms: [...c], action: [...c].some((t) => this.actions.has(t) && (weights.get(t) ?? 0) >= CLOSE_SYNONYM) }));
		const hits: SearchHit[] = results.map((r) => {
			const id = r.id as number;
			let covered = 0;
			for (const { terms, action } of conceptTerms) {
				// An action counts where the tool names what it does; anything else anywhere (a typo's match included).
				const has = action ? this.actionTermsOf[id] : this.termsOf[id];
				if (terms.some((t) => has.has(t)) || (!action && terms.some((t) => r.queryTerms.includes(t)))) covered++;
			}
			const coverage = conceptTerms.length > 0 ? covered / conceptTerms.length : 1;
			return { tool: this.tools[id], score: r.score * coverage, coverage };
		});
		hits.sort((a, b) => b.score - a.score);
		return options.limit ? hits.slice(0, options.limit) : hits;
	}
}

/** The query's own word of a concept: expandQuery puts it first, before its equivalents. */
function ownWord(concept: ReadonlySet<string>): string {
	const [own] = concept;
	return own;
}

/**
 * The words that start at least 1% of all tool names (and 3): the catalog's actions. A name's
 * first word is taken after the prefix most of its server's names share (`linear_`, `browser_`).
 */
function nameHeads(tools: readonly CatalogTool[]): Set<string> {
	const words = tools.map((tool) => tokenize(tool.name).filter((w) => !STOPWORDS.has(w)).map(stem));
	const firstWords = new Map<string, Map<string, number>>();
	const sizes = new Map<string, number>();
	tools.forEach((tool, i) => {
		const counts = firstWords.get(tool.server) ?? new Map<string, number>();
		if (words[i].length > 1) counts.set(words[i][0], (counts.get(words[i][0]) ?? 0) + 1);
		firstWords.set(tool.server, counts);
		sizes.set(tool.server, (sizes.get(tool.server) ?? 0) + 1);
	});
	const prefixOf = new Map<string, string>();
	for (const [server, counts] of firstWords) {
		const [top, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
		if (n >= 2 && n > (sizes.get(server) ?? 0) / 2) prefixOf.set(server, top);
	}
	const of = tools.map((tool, i) => (words[i].length > 1 && words[i][0] === prefixOf.get(tool.server) ? words[i][1] : words[i][0]));
	const counts = new Map<string, number>();
	for (const head of of) if (head) counts.set(head, (counts.get(head) ?? 0) + 1);
	const least = Math.max(3, tools.length / 100);
	return new Set([...counts].filter(([, n]) => n >= least).map(([word]) => word));
}

/** Parameter names and the values an enum allows (jira's action: create, transition, ...). */
function paramText(schema: Record<string, unknown>): string {
	const properties = (schema.properties ?? {}) as Record<string, { enum?: unknown[]; items?: { enum?: unknown[] } }>;
	const parts: string[] = [];
	for (const [name, property] of Object.entries(properties)) {
		parts.push(name);
		const values = property?.enum ?? property?.items?.enum;
		if (Array.isArray(values)) parts.push(...values.slice(0, 30).filter((v): v is string => typeof v === "string"));
	}
	return parts.join(" ");
}

/**
 * The part of a description that says what the tool does. Long descriptions (some run to pages
 * of usage notes) would otherwise match every query through their sheer number of words.
 */
function summary(description: string): string {
	const flat = description.replace(/\s+/g, " ").trim();
	return flat.length <= DESCRIPTION_CHARS ? flat : flat.slice(0, flat.lastIndexOf(" ", DESCRIPTION_CHARS));
}
const DESCRIPTION_CHARS = 300;

const indexes = new WeakMap<ToolCatalog, { version: number; index: ToolSearchIndex }>();

/** The catalog's index, rebuilt only when its tools changed since the last search. */
export function searchCatalog(catalog: ToolCatalog, query: string, options: SearchOptions = {}): SearchHit[] {
	let cached = indexes.get(catalog);
	if (!cached || cached.version !== catalog.version) {
		cached = { version: catalog.version, index: new ToolSearchIndex(catalog.all()) };
		indexes.set(catalog, cached);
	}
	return cached.index.search(query, options);
}

/** Longer patterns are refused: no tool name needs one, and compiling is not free. */
const MAX_PATTERN_LENGTH = 500;

/**
 * RE2 semantics (linear time, no backtracking): `(a+)+$` cannot freeze Pi the way JavaScript's
 * engine would (55 s on one tool description). Throws a clear error for a pattern that does not compile.
 */
function regexSearch(tools: readonly CatalogTool[], pattern: string, options: SearchOptions): SearchHit[] {
	if (pattern.length > MAX_PATTERN_LENGTH) throw new Error(`The regex is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH} are accepted. Search by words instead.`);
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
		const score = (test(tool.qualifiedName) || test(tool.name) ? 10 : 0) + (test(tool.description) ? 2 : 0);
		if (score > 0) hits.push({ tool, score, coverage: 1 });
	}
	hits.sort((a, b) => b.score - a.score || a.tool.qualifiedName.localeCompare(b.tool.qualifiedName));
	return options.limit ? hits.slice(0, options.limit) : hits;
}
