// Ranked tool search. Tool text and the query are analyzed and the query expanded by
// search-query.ts (stems, WordNet synonyms, software idioms); search/bm25.ts scores with BM25 over weighted fields
// (tool name > server > description > parameter names and values) and tolerates typos. What the
// catalog itself shows decides the rest: a tool must answer the whole query (coordination: "add
// numbers" is about a sum, so the verb alone does not win), and words that start many tool names
// (get, list, add: actions every server has) weigh less than the thing the query is about.
// `regex` matches a pattern against names and descriptions instead.
// One index per catalog, updated in place when its tools change (in the background: prepareSearch).
import { RE2JS } from "re2js";
import type { CatalogTool, ToolCatalog } from "../catalog/tool-catalog.ts";
import { quote } from "../errors.ts";
import { Bm25Index, type QueryTerm } from "./bm25.ts";
import { analyze, analyzeTokens, expandQuery, tokenize } from "./query.ts";

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

const MAX_QUERY_CHARS = 2000;
const MAX_QUERY_WORDS = 40;

/**
 * Field weights (the fields of IndexedTool, in order), learned on the tuning set (bench/search-queries.ts,
 * with and without the idiom lexicon: coordinate ascent on MRR): the server's name and the description
 * count more than a tool's name suggested (was 6, 2.5, 1.2, 0.6).
 */
const FIELD_BOOSTS = [3, 4, 1.8, 0.6] as const;
/** A match through a word the query word starts, or one a typo away, counts this much (before its length factor). */
const PREFIX_WEIGHT = 0.4;
const FUZZY_WEIGHT = 0.3;
/** Query words that start many tool names are actions; with an object beside them they count this much. */
const ACTION_WEIGHT = 0.5;
/**
 * How much of a score rests on the tool's name words being asked for (past its server's): of two
 * tools answering the query, the one whose name says nothing else ("open a pull request":
 * create_pull_request over create_pull_request_review). Learned with the field weights.
 */
const NAME_PRECISION = 0.2;
/** The weight from which a synonym makes its word an action. */
const CLOSE_SYNONYM = 0.18;

/** A tool's fields as indexed, each analyzed into its terms. */
interface IndexedTool {
	readonly name: readonly string[];
	readonly server: readonly string[];
	readonly description: readonly string[];
	readonly params: readonly string[];
}

/** What the index keeps of one tool. */
interface Entry {
	tool: CatalogTool;
	readonly fields: IndexedTool;
	/** Every term of the tool, to see which query words it answers (made when first needed: few tools ever are). */
	terms?: ReadonlySet<string>;
	/** Its terms in its name and parameters: where a tool says what it does (not "make sure" in a description). */
	actionTerms?: ReadonlySet<string>;
	/** Its name as `word_word` (the key of byNameKey). */
	readonly nameKey: string;
	/** Its name's stemmed words, to find the catalog's actions. */
	readonly nameWords: readonly string[];
}

/** Tools indexed per step of an update: a background build yields to Pi between steps. */
const STEP = 400;

/**
 * A BM25 index over one list of tools. It is updated in place: a tool whose name, text and
 * parameters did not change keeps its entry, so a server reconnecting re-indexes only that server.
 */
export class ToolSearchIndex {
	private readonly index = new Bm25Index(FIELD_BOOSTS.length);
	private readonly entries = new Map<number, Entry>();
	/** Entry id by the tool's qualified name (unique in a catalog). */
	private readonly ids = new Map<string, number>();
	private nextId = 0;
	/** Entry ids by the tool's name as `word_word`, to spot a query that is exactly a tool name. */
	private readonly byNameKey = new Map<string, number[]>();
	/** Per server, the first word of each of its tool names (after the server's shared prefix). */
	private readonly headsOf = new Map<string, string[]>();
	/** Stemmed words that start many tool names: the catalog's actions (get, list, create...). */
	private actions: ReadonlySet<string> = new Set();

	constructor(tools: readonly CatalogTool[] = []) {
		this.update(tools);
	}

	/** Brings the index to this list of tools at once. */
	update(tools: readonly CatalogTool[]): void {
		for (const _ of this.updating(tools));
	}

	/**
	 * The same update in steps of a few hundred tools; the index answers correctly only once the
	 * generator is done. Tools that left or changed are removed, new or changed ones analyzed and added.
	 */
	*updating(tools: readonly CatalogTool[]): Generator<void, void, void> {
		const wanted = new Map<string, CatalogTool>();
		for (const tool of tools) wanted.set(tool.qualifiedName, tool);
		const touched = new Set<string>();
		for (const [key, id] of this.ids) {
			const entry = this.entries.get(id) as Entry;
			const tool = wanted.get(key);
			if (tool && sameText(entry.tool, tool)) {
				entry.tool = tool; // the catalog hands out fresh objects
				wanted.delete(key);
				continue;
			}
			this.index.remove(id);
			const same = (this.byNameKey.get(entry.nameKey) ?? []).filter((other) => other !== id);
			if (same.length > 0) this.byNameKey.set(entry.nameKey, same);
			else this.byNameKey.delete(entry.nameKey);
			this.entries.delete(id);
			this.ids.delete(key);
			touched.add(entry.tool.server);
		}
		const added = [...wanted.values()];
		for (let at = 0; at < added.length; at += STEP) {
			for (const tool of added.slice(at, at + STEP)) this.indexing(tool);
			if (at + STEP < added.length) yield;
		}
		for (const tool of added) touched.add(tool.server);
		if (touched.size > 0) this.actions = this.nameHeads(touched);
	}

	/** Analyzes one tool and adds it: its entry is kept, its fields indexed. */
	private indexing(tool: CatalogTool): void {
		const id = this.nextId++;
		const nameTokens = tokenize(tool.name);
		const document: IndexedTool = {
			name: analyzeTokens(tool.title ? [...nameTokens, ...tokenize(tool.title)] : nameTokens),
			server: analyzeServer(tool.server),
			description: analyze(summary(tool.description)),
			params: analyze(paramText(tool.inputSchema)),
		};
		const nameKey = nameTokens.join("_");
		this.entries.set(id, { tool, fields: document, nameKey, nameWords: analyzeTokens(nameTokens) });
		this.ids.set(tool.qualifiedName, id);
		const same = this.byNameKey.get(nameKey);
		if (same) same.push(id);
		else this.byNameKey.set(nameKey, [id]);
		this.index.add(id, [document.name, document.server, document.description, document.params]);
	}

	/**
	 * The words that start at least 1% of all tool names (and 3): the catalog's actions. A name's
	 * first word is taken after the prefix most of its server's names share (`linear_`, `browser_`).
	 * Only the servers whose tools changed are looked at again.
	 */
	private nameHeads(servers: ReadonlySet<string>): Set<string> {
		const namesOf = new Map<string, (readonly string[])[]>([...servers].map((server) => [server, []]));
		for (const { tool, nameWords } of this.entries.values()) namesOf.get(tool.server)?.push(nameWords);
		for (const [server, names] of namesOf) {
			if (names.length === 0) this.headsOf.delete(server);
			else this.headsOf.set(server, serverHeads(names));
		}
		const counts = new Map<string, number>();
		for (const heads of this.headsOf.values()) for (const head of heads) counts.set(head, (counts.get(head) ?? 0) + 1);
		const least = Math.max(3, this.entries.size / 100);
		return new Set([...counts].filter(([, n]) => n >= least).map(([word]) => word));
	}

	search(query: string, options: SearchOptions = {}): SearchHit[] {
		if (options.regex)
			return regexSearch(
				[...this.entries.values()].map((e) => e.tool),
				query,
				options,
			);
		// What a query can mean fits in a few dozen words; a megabyte of them must not cost seconds.
		const words = tokenize(query.slice(0, MAX_QUERY_CHARS)).slice(0, MAX_QUERY_WORDS);
		const { weights, concepts } = expandQuery(words.join(" "));
		if (weights.size === 0) return [];
		// "add numbers": the action is common to many tools, the object says which one.
		const actionWords = concepts.filter((c) => this.actions.has(ownWord(c)));
		if (actionWords.length > 0 && actionWords.length < concepts.length) {
			for (const concept of actionWords)
				for (const term of concept) weights.set(term, (weights.get(term) ?? 1) * ACTION_WEIGHT);
		}
		const exact = new Set(this.byNameKey.get(words.join("_")) ?? []);
		// Only the query's own words match by prefix or typo: a typo or a partial word of an equivalent is noise.
		const terms: QueryTerm[] = [...weights].map(([term, boost]) => ({
			term,
			boost,
			fuzzy: term.length >= 5 && boost === 1,
			prefix: term.length >= 4 && boost === 1,
		}));
		const results = this.index.search(terms, {
			fieldBoosts: FIELD_BOOSTS,
			prefixWeight: PREFIX_WEIGHT,
			fuzzyWeight: FUZZY_WEIGHT,
			// The exact tool name typed as the query always comes first.
			boostDocument: exact.size > 0 ? (id) => (exact.has(id) ? 3 : 1) : undefined,
			accept: accepting(options, (id) => this.entry(id).tool),
		});
		// Coordination: a tool that answers every word of the query beats one that answers a rare word
		// loudly ("find files by name": search_files over find_organizations).
		// A concept is an action when its word is one, or a close synonym is ("make": create), not a far one ("number": list).
		// Each concept weighs its word's rarity (IDF): answering "dsn" says more than answering "get".
		const conceptTerms = concepts.map((c) => ({
			terms: [...c],
			action: [...c].some((t) => this.actions.has(t) && (weights.get(t) ?? 0) >= CLOSE_SYNONYM),
			weight: Math.log(1 + this.entries.size / (1 + this.index.docsWith(ownWord(c)))),
		}));
		// Coverage only lowers a score and the index hands results out best first: once a result scores below every
		// hit that can still matter, no later one can matter either.
		const keep = options.keep ?? (options.limit ? { top: options.limit, share: 1 } : undefined);
		const leaders = new Leaders(keep?.top ?? 0);
		let best = 0;
		const hits: SearchHit[] = [];
		for (const r of results) {
			if (keep && r.score < best * keep.share && r.score < leaders.last()) break;
			const entry = this.entry(r.id);
			const { terms: all, actionTerms } = termsOf(entry);
			const loose = r.loose ? [...r.loose].map((i) => terms[i].term) : [];
			let covered = 0;
			let total = 0;
			for (const { terms, action, weight } of conceptTerms) {
				// An action counts where the tool names what it does; anything else anywhere (a typo's match included).
				const has = action ? actionTerms : all;
				total += weight;
				if (terms.some((t) => has.has(t)) || (!action && terms.some((t) => loose.includes(t)))) covered += weight;
			}
			const coverage = total > 0 ? covered / total : 1;
			const score = r.score * coverage * (1 - NAME_PRECISION + NAME_PRECISION * namePrecision(entry, weights));
			hits.push({ tool: entry.tool, score, coverage });
			best = Math.max(best, score);
			leaders.add(score);
		}
		hits.sort((a, b) => b.score - a.score);
		return options.limit ? hits.slice(0, options.limit) : hits;
	}

	private entry(id: number): Entry {
		return this.entries.get(id) as Entry;
	}
}

/** The share of a tool's name words (past its server's name) the expanded query holds. */
function namePrecision(entry: Entry, query: ReadonlyMap<string, number>): number {
	let own = 0;
	let asked = 0;
	for (const word of entry.nameWords) {
		if (entry.fields.server.includes(word)) continue;
		own++;
		if (query.has(word)) asked++;
	}
	return own > 0 ? asked / own : 1;
}

/** A tool's terms, and those of its name and parameters (kept once made). */
function termsOf(entry: Entry): { terms: ReadonlySet<string>; actionTerms: ReadonlySet<string> } {
	if (!entry.terms || !entry.actionTerms) {
		const { name, server, description, params } = entry.fields;
		entry.actionTerms = new Set([...name, ...params]);
		entry.terms = new Set([...entry.actionTerms, ...server, ...description]);
	}
	return { terms: entry.terms, actionTerms: entry.actionTerms };
}

/** The `size` best scores seen so far; `last()` is the lowest of them (0 until there are `size`: none may be left out yet). */
class Leaders {
	private readonly scores: number[] = [];
	constructor(private readonly size: number) {}

	add(score: number): void {
		if (this.size === 0) return;
		const at = this.scores.findIndex((s) => s < score);
		if (at < 0) this.scores.push(score);
		else this.scores.splice(at, 0, score);
		if (this.scores.length > this.size) this.scores.pop();
	}

	last(): number {
		if (this.size === 0) return Number.POSITIVE_INFINITY;
		return this.scores.length < this.size ? 0 : (this.scores[this.size - 1] as number);
	}
}

/** Which tools a search's `server` and `filter` options keep (none when neither is set). */
function accepting(options: SearchOptions, toolOf: (id: number) => CatalogTool) {
	const { server, filter } = options;
	if (!server && !filter) return undefined;
	return (id: number) => {
		const tool = toolOf(id);
		return (!server || tool.server === server) && (!filter || filter(tool));
	};
}

/** Whether two listings of a tool are found by the same text (strings compare by reference first: cheap when unchanged). */
function sameText(a: CatalogTool, b: CatalogTool): boolean {
	return (
		a.server === b.server &&
		a.name === b.name &&
		a.title === b.title &&
		a.description === b.description &&
		// The same schema object (a catalog rebuilt around an unchanged server) needs no second look.
		(a.inputSchema === b.inputSchema || paramText(a.inputSchema) === paramText(b.inputSchema))
	);
}

/** The query's own word of a concept: expandQuery puts it first, before its equivalents. */
function ownWord(concept: ReadonlySet<string>): string {
	const [own] = concept;
	return own;
}

/** The first word of each of a server's tool names, after the prefix most of them share. */
function serverHeads(names: readonly (readonly string[])[]): string[] {
	const counts = new Map<string, number>();
	for (const words of names) if (words.length > 1) counts.set(words[0], (counts.get(words[0]) ?? 0) + 1);
	const [top, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
	const prefix = n >= 2 && n > names.length / 2 ? top : undefined;
	return names
		.map((words) => (words.length > 1 && words[0] === prefix ? words[1] : words[0]))
		.filter((head) => head !== undefined && head !== "");
}

const paramTexts = new WeakMap<object, string>();
/** Parameter names and the values an enum allows (jira's action: create, transition, ...). Kept per schema: updates compare it. */
function paramText(schema: Record<string, unknown>): string {
	let text = paramTexts.get(schema);
	if (text === undefined) {
		text = paramWords(schema);
		paramTexts.set(schema, text);
	}
	return text;
}

function paramWords(schema: Record<string, unknown>): string {
	const properties = (schema.properties ?? {}) as Record<string, { enum?: unknown[]; items?: { enum?: unknown[] } }>;
	const parts: string[] = [];
	for (const [name, property] of Object.entries(properties)) {
		parts.push(name);
		const values = property?.enum ?? property?.items?.enum;
		if (Array.isArray(values)) parts.push(...values.slice(0, 30).filter((v): v is string => typeof v === "string"));
	}
	return parts.join(" ");
}

const serverTerms = new Map<string, readonly string[]>();
/** A server's name, analyzed once for all its tools. */
function analyzeServer(server: string): readonly string[] {
	let terms = serverTerms.get(server);
	if (!terms) {
		terms = analyze(server);
		if (serverTerms.size < 10_000) serverTerms.set(server, terms);
	}
	return terms;
}

/**
 * The part of a description that says what the tool does. Long descriptions (some run to pages
 * of usage notes) would otherwise match every query through their sheer number of words.
 */
function summary(description: string): string {
	// Only the head is flattened (some descriptions run to pages); all of it when the head flattens to too little.
	const head = description.length > HEAD_CHARS ? description.slice(0, HEAD_CHARS) : description;
	let flat = head.replace(/\s+/g, " ").trim();
	if (head !== description && flat.length <= DESCRIPTION_CHARS + 1) flat = description.replace(/\s+/g, " ").trim();
	return flat.length <= DESCRIPTION_CHARS ? flat : flat.slice(0, flat.lastIndexOf(" ", DESCRIPTION_CHARS));
}
const HEAD_CHARS = 1200;
const DESCRIPTION_CHARS = 300;

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
		state.index.update(catalog.all());
		state.version = catalog.version;
		state.updates++;
	}
	return state.index.search(query, options);
}

/** Which catalog version the index reflects (-1: none yet) and how often it was updated: what tests and the bench observe. */
export function indexInfo(catalog: ToolCatalog): { readonly version: number; readonly updates: number } {
	const { version, updates } = indexOf(catalog);
	return { version, updates };
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
	const steps = state.index.updating(catalog.all());
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

/** Longer patterns are refused: no tool name needs one, and compiling is not free. */
const MAX_PATTERN_LENGTH = 500;

/**
 * RE2 semantics (linear time, no backtracking): `(a+)+$` cannot freeze Pi the way JavaScript's
 * engine would (55 s on one tool description). Throws a clear error for a pattern that does not compile.
 */
function regexSearch(tools: readonly CatalogTool[], pattern: string, options: SearchOptions): SearchHit[] {
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
