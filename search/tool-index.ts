// The index behind the tool search: tools analyzed into fields (search/tool-text.ts), scored by
// BM25 (search/bm25.ts) with the query's expansion (search/query.ts), then ranked by what the
// catalog itself shows: a tool must answer the whole query (coordination and coverage), the
// catalog's actions weigh less beside an object, a tool whose name says nothing else comes first,
// a question prefers tools that read and a request to change tools that change. Updated in place,
// server by server.
import type { CatalogTool } from "../catalog/tool-catalog.ts";
import { Bm25Index, type QueryTerm } from "./bm25.ts";
import { CatalogHeads, type ServerHeads, serverHeads } from "./catalog-heads.ts";
import { readEntities } from "./entities.ts";
import { fuseNeeds, splitNeeds } from "./needs.ts";
import { asksQuestion, expandQuery } from "./query.ts";
import { regexSearch } from "./regex-search.ts";
import { accepting, type SearchHit, type SearchOptions } from "./search-options.ts";
import {
	type AnalyzedTool,
	aboutServer,
	analyzeTool,
	type IndexedTool,
	type ServerWords,
	sameText,
} from "./tool-text.ts";
import { analyze, tokenize } from "./words.ts";

const MAX_QUERY_CHARS = 2000;
const MAX_QUERY_WORDS = 40;

/**
 * What a server says of itself (its config description, its instructions: issue 50) weighs, in
 * each of its tools: a sixth of a tool's name, as Pi's own search weighs a namespace's words
 * (NAMESPACE_WEIGHT 0.5 beside a name's 3). No tuning set has enough servers' words to choose it:
 * 4 of the 35 catalogs send instructions, none of MetaTool's tools has a server.
 */
const SERVER_WORDS = 0.5;
/**
 * Field weights (the fields of search/tool-text.ts's IndexedTool, in order: name, server, description, parameters, then the parameters' notes, the first sentence and the server's own words), learned on the tuning set (bench/search-queries.ts,
 * with and without the idiom lexicon: coordinate ascent on MRR): the server's name and the description
 * count more than a tool's name suggested (was 6, 2.5, 1.2, 0.6). The parameters' descriptions (issue 41)
 * weigh least: they say what a tool acts on, not what it does (0.15-0.3 all gain on the tuning set; 0.2 its middle).
 * The description's first sentence (issue 41) adds 0.4 to its words: it says what the tool does, the rest
 * how (0.3-0.6 gain the same on the tuning set, with and without the idiom lexicon).
 */
const FIELD_BOOSTS = [3, 4, 1.8, 0.6, 0.2, 0.4, SERVER_WORDS] as const;
/**
 * Where a tool says what it does: its name, its parameters and its description's first sentence
 * ("Create a new issue"; not "make sure" further on).
 */
const STRONG_FIELDS = [0, 3, 5] as const;
/**
 * Where a word the query did not say may match: the query's own words match anywhere, but an
 * equivalent is no evidence in a tool's parameters (nouns it takes: "list" as "name" matched
 * every tool with a name parameter, "add" as "supply" a parameter note's "supplied"), and a
 * WordNet synonym, from any of a word's senses, counts only where the tool says what it is and
 * does: its name, its server and its description's first sentence (usage notes further on are
 * full of such words). The idiom lexicon's equivalents are software senses: the description too.
 * Chosen on the tuning set (issue 41, third round).
 */
const EQUIVALENT_FIELDS = [0, 1, 2, 5, 6] as const;
const GENERAL_FIELDS = [0, 1, 5] as const;
/** Where a plural's mark matches: a tool's name (search/query.ts `markPlurals`). */
const NAME_FIELD = [0] as const;
/**
 * A question ("what is assigned to me", "which projects do I have") is answered by a tool that
 * reads: one its server marks as changing things (`readOnlyHint: false`, MCP's tool annotations)
 * keeps this share less of its score (assignIssue under searchIssues); one marked read-only or not
 * marked at all is as it was. Chosen on the fresh tuning set (issue 41, fifth round: 0.4-0.9 all gain).
 */
const WRITE_IN_QUESTION = 0.8;
/**
 * And the other way: a request whose first word starts (mostly) tools that change things ("create",
 * "delete": the catalog's own annotations say so: search/catalog-heads.ts) ranks
 * a tool marked read-only at half its score. Chosen on the tuning sets (issue 41, fifth round).
 */
const READ_IN_CHANGE = 0.5;
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

/** What the index keeps of one tool (its fields' terms and name key are not kept: a removal analyzes the tool again). */
interface Entry extends Pick<AnalyzedTool, "nameWords" | "ownNameWords"> {
	tool: CatalogTool;
}

/** Tools by server, as a catalog holds them (an unchanged server's list is the same array). */
export type ServerTools = ReadonlyMap<string, readonly CatalogTool[]>;

/** What the index keeps of one server: the list it indexed (to skip it while unchanged), its tools' ids, its names' first words. */
interface ServerState extends ServerHeads {
	readonly list: readonly CatalogTool[];
	readonly ids: readonly number[];
	/** Its own words as its tools were indexed with them (search/tool-text.ts `aboutServer`), and their terms. */
	readonly about: string;
	readonly aboutTerms: readonly string[];
}

/** What a server says of itself, by server (none: nothing). */
export type ServerAbout = (server: string) => ServerWords | undefined;

/** Tools indexed per step of an update: a background build yields to Pi between steps. */
const STEP = 400;

/**
 * A BM25 index over one list of tools. It is updated in place, server by server: a server whose
 * list is the same array as before costs nothing, and in a changed one a tool whose name, text and
 * parameters did not change keeps its entry, so a server reconnecting re-indexes only its own tools.
 */
export class ToolSearchIndex {
	private readonly index = new Bm25Index(FIELD_BOOSTS.length);
	/** Entries by id (ids only grow: a changed tool comes back under a new one). */
	private readonly entries: (Entry | undefined)[] = [];
	private live = 0;
	/** Entry ids by the tool's name as `word_word`, to spot a query that is exactly a tool name. */
	private readonly byNameKey = new Map<string, number | number[]>();
	private readonly servers = new Map<string, ServerState>();
	/** The catalog's actions and the first words that ask to change things. */
	private readonly heads = new CatalogHeads();
	/** What the last update looked at: the tools it compared with their entries, and those it analyzed and added. */
	lastUpdate = { compared: 0, added: 0 };

	constructor(tools: readonly CatalogTool[] | ServerTools = []) {
		this.update(tools);
	}

	/** Brings the index to these tools at once (a list, or a catalog's tools by server). */
	update(tools: readonly CatalogTool[] | ServerTools, about?: ServerAbout): void {
		for (const _ of this.updating(tools, about));
	}

	/**
	 * The same update in steps of a few hundred tools; the index answers correctly only once the
	 * generator is done. Only servers whose list changed are looked at: their tools that left or
	 * changed are removed, new or changed ones analyzed and added; a server whose own words changed
	 * has all its tools indexed again.
	 */
	*updating(tools: readonly CatalogTool[] | ServerTools, about?: ServerAbout): Generator<void, void, void> {
		const lists = Array.isArray(tools) ? byServer(tools) : (tools as ServerTools);
		const words = new Map([...lists.keys()].map((server) => [server, aboutServer(about?.(server))]));
		const changed = [...this.servers].flatMap(([server, state]) =>
			lists.get(server) !== state.list || (words.get(server) ?? "") !== state.about ? [server] : [],
		);
		for (const server of lists.keys()) if (!this.servers.has(server)) changed.push(server);
		this.lastUpdate = { compared: 0, added: 0 };
		if (changed.length === 0) return;
		const kept = new Map<string, number[]>();
		const added: CatalogTool[] = [];
		const aboutTerms = new Map(changed.map((server) => [server, analyze(words.get(server) ?? "")]));
		for (const server of changed) {
			const wanted = new Map((lists.get(server) ?? []).map((tool) => [tool.qualifiedName, tool]));
			const keep: number[] = [];
			const sameAbout = (words.get(server) ?? "") === this.servers.get(server)?.about;
			for (const id of this.servers.get(server)?.ids ?? []) {
				this.lastUpdate.compared++;
				const entry = this.entry(id);
				const tool = wanted.get(entry.tool.qualifiedName);
				if (tool && sameAbout && sameText(entry.tool, tool)) {
					entry.tool = tool; // a list of fresh objects for the same tools
					wanted.delete(tool.qualifiedName);
					keep.push(id);
				} else this.removeEntry(id);
			}
			kept.set(server, keep);
			added.push(...wanted.values());
		}
		this.lastUpdate.added = added.length;
		const newIds = new Map<string, number[]>();
		for (let at = 0; at < added.length; at += STEP) {
			for (const tool of added.slice(at, at + STEP)) {
				const ids = newIds.get(tool.server) ?? [];
				ids.push(this.indexing(tool, aboutTerms.get(tool.server) ?? []));
				newIds.set(tool.server, ids);
			}
			if (at + STEP < added.length) yield;
		}
		for (const server of changed) {
			const list = lists.get(server);
			const ids = [...(kept.get(server) ?? []), ...(newIds.get(server) ?? [])];
			this.setServer(
				server,
				list
					? {
							list,
							ids,
							heads: serverHeads(ids.map((id) => this.entry(id).nameWords)),
							marked: this.marked(ids),
							about: words.get(server) ?? "",
							aboutTerms: aboutTerms.get(server) ?? [],
						}
					: undefined,
			);
		}
		this.heads.settle(this.live);
	}

	/** Analyzes one tool and adds it: its entry is kept, its fields indexed. Returns its id. */
	private indexing(tool: CatalogTool, about: readonly string[]): number {
		const id = this.entries.length;
		const { fields, nameKey, nameWords, ownNameWords } = analyzeTool(tool, about);
		this.entries.push({ tool, nameWords, ownNameWords });
		this.live++;
		const same = this.byNameKey.get(nameKey);
		if (same === undefined) this.byNameKey.set(nameKey, id);
		else if (typeof same === "number") this.byNameKey.set(nameKey, [same, id]);
		else same.push(id);
		this.index.add(id, fieldList(fields));
		return id;
	}

	private removeEntry(id: number): void {
		const entry = this.entries[id];
		if (!entry) return;
		// Its server's words as it was indexed with them: its server's state is replaced after its tools.
		const { fields, nameKey } = analyzeTool(entry.tool, this.servers.get(entry.tool.server)?.aboutTerms);
		this.index.remove(id, fieldList(fields));
		const same = [this.byNameKey.get(nameKey) ?? []].flat().filter((other) => other !== id);
		if (same.length > 1) this.byNameKey.set(nameKey, same);
		else if (same.length === 1) this.byNameKey.set(nameKey, same[0]);
		else this.byNameKey.delete(nameKey);
		this.entries[id] = undefined;
		this.live--;
	}

	/** The marked tools among `ids`: each one's own name's first word, and whether it changes things. */
	private marked(ids: readonly number[]): [string, boolean][] {
		const out: [string, boolean][] = [];
		for (const id of ids) {
			const { tool, ownNameWords } = this.entry(id);
			const readOnly = tool.annotations?.readOnlyHint;
			if (readOnly !== undefined && ownNameWords.length > 0) out.push([ownNameWords[0], !readOnly]);
		}
		return out;
	}

	/** Records a server's state (none: it left), its names' first words counted in place of its old ones. */
	private setServer(server: string, state: ServerState | undefined): void {
		this.heads.replace(this.servers.get(server), state);
		if (state) this.servers.set(server, state);
		else this.servers.delete(server);
	}

	search(query: string, options: SearchOptions = {}): SearchHit[] {
		if (options.regex)
			return regexSearch(
				this.entries.flatMap((e) => (e ? [e.tool] : [])),
				query,
				options,
			);
		// What a query can mean fits in a few dozen words a need; a megabyte of them must not cost seconds.
		const text = readEntities(query.slice(0, MAX_QUERY_CHARS));
		const parts = splitNeeds(text);
		if (parts.length === 0) return this.rank(text, options);
		// Each need on its own as well as the whole (search/needs.ts).
		const each = {
			...options,
			limit: undefined,
			keep: options.keep ?? (options.limit ? { top: options.limit, share: 1 } : undefined),
		};
		const fused = fuseNeeds(
			this.rank(text, each),
			parts.map((part) => this.rank(part, each)),
		);
		return options.limit ? fused.slice(0, options.limit) : fused;
	}

	/** The tools ranked for one need (a request's identifiers already read). */
	private rank(text: string, options: SearchOptions): SearchHit[] {
		const words = tokenize(text).slice(0, MAX_QUERY_WORDS);
		const { weights, concepts, general, nameOnly } = expandQuery(words.join(" "));
		if (weights.size === 0) return [];
		const question = asksQuestion(text, words);
		// "delete spam from last week": a request whose first word is an action the catalog's tools that
		// change things start is done by one of them, not by a tool its server marks read-only.
		const changeAsked = !question && concepts.length > 1 && this.heads.changing.has(ownWord(concepts[0]));
		// "add numbers": the action is common to many tools, the object says which one.
		const actionWords = concepts.filter((c) => this.heads.actions.has(ownWord(c)));
		if (actionWords.length > 0 && actionWords.length < concepts.length) {
			for (const concept of actionWords)
				for (const term of concept) weights.set(term, (weights.get(term) ?? 1) * ACTION_WEIGHT);
		}
		const exact = new Set([this.byNameKey.get(words.join("_")) ?? []].flat());
		// Only the query's own words match by prefix or typo: a typo or a partial word of an equivalent is noise.
		// Each term reports the concepts it stands for, so coverage is read from the scoring pass.
		const own = new Set(concepts.map(ownWord));
		const terms: QueryTerm[] = [...weights].map(([term, boost]) => ({
			term,
			boost,
			fuzzy: term.length >= 5 && boost === 1,
			prefix: term.length >= 4 && boost === 1,
			groups: concepts.flatMap((c, i) => (c.has(term) ? [i] : [])),
			fields: own.has(term)
				? undefined
				: nameOnly.has(term)
					? NAME_FIELD
					: general.has(term)
						? GENERAL_FIELDS
						: EQUIVALENT_FIELDS,
		}));
		const results = this.index.search(terms, {
			fieldBoosts: FIELD_BOOSTS,
			prefixWeight: PREFIX_WEIGHT,
			fuzzyWeight: FUZZY_WEIGHT,
			strongFields: STRONG_FIELDS,
			// The exact tool name typed as the query always comes first.
			boostDocument: exact.size > 0 ? (id) => (exact.has(id) ? 3 : 1) : undefined,
			accept: accepting(options, (id) => this.entry(id).tool),
		});
		// Coordination: a tool that answers every word of the query beats one that answers a rare word
		// loudly ("find files by name": search_files over find_organizations).
		// A concept is an action when its word is one, or a close synonym is ("make": create), not a far one ("number": list);
		// an action counts where the tool names what it does (its name, parameters, first sentence), anything else anywhere (a typo's match included).
		// Each concept weighs its word's rarity (IDF): answering "dsn" says more than answering "get".
		const strong = new Uint32Array(Math.ceil(concepts.length / 32));
		const conceptWeights = new Float64Array(concepts.length);
		let total = 0;
		concepts.forEach((c, i) => {
			if ([...c].some((t) => this.heads.actions.has(t) && (weights.get(t) ?? 0) >= CLOSE_SYNONYM))
				strong[i >> 5] |= 1 << (i & 31);
			conceptWeights[i] = Math.log(1 + this.live / (1 + this.index.docsWith(ownWord(c))));
			total += conceptWeights[i];
		});
		// Coverage only lowers a score and the index hands results out best first: once a result scores below every
		// hit that can still matter, no later one can matter either.
		const keep = options.keep ?? (options.limit ? { top: options.limit, share: 1 } : undefined);
		const leaders = new Leaders(keep?.top ?? 0);
		let best = 0;
		const ids: number[] = [];
		const scores: number[] = [];
		const coverages: number[] = [];
		for (let id = results.next(); id >= 0; id = results.next()) {
			const raw = results.score(id);
			if (keep && raw < best * keep.share && raw < leaders.last()) break;
			const coverage = total > 0 ? results.answered(id, strong, conceptWeights) / total : 1;
			const entry = this.entry(id);
			const { tool } = entry;
			const score =
				raw *
				coverage *
				(1 - NAME_PRECISION + NAME_PRECISION * namePrecision(entry, weights)) *
				(question && tool.annotations?.readOnlyHint === false ? 1 - WRITE_IN_QUESTION : 1) *
				(changeAsked && tool.annotations?.readOnlyHint === true ? 1 - READ_IN_CHANGE : 1);
			ids.push(id);
			scores.push(score);
			coverages.push(coverage);
			if (score > best) best = score;
			leaders.add(score);
		}
		// Of what was read, only what can matter: the `top` best and every hit near the best.
		const floor = keep ? Math.min(best * keep.share, leaders.last()) : Number.NEGATIVE_INFINITY;
		const order = ids.map((_, i) => i).filter((i) => scores[i] >= floor);
		// Equal scores in the order of the tools' names: the same whichever way the index was built.
		const name = (i: number) => this.entry(ids[i]).tool.qualifiedName;
		order.sort((a, b) => scores[b] - scores[a] || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : a - b));
		const shown = options.limit ? order.slice(0, options.limit) : order;
		return shown.map((i) => ({ tool: this.entry(ids[i]).tool, score: scores[i], coverage: coverages[i] }));
	}

	private entry(id: number): Entry {
		return this.entries[id] as Entry;
	}
}

/** A tool's fields in the index's order. */
function fieldList(tool: IndexedTool): readonly (readonly string[])[] {
	return [tool.name, tool.server, tool.description, tool.params, tool.paramNotes, tool.lead, tool.about];
}

/** A list of tools by server, in the list's order. */
function byServer(tools: readonly CatalogTool[]): Map<string, CatalogTool[]> {
	const lists = new Map<string, CatalogTool[]>();
	for (const tool of tools) {
		const list = lists.get(tool.server);
		if (list) list.push(tool);
		else lists.set(tool.server, [tool]);
	}
	return lists;
}

/** The share of a tool's name words (past its server's name) the expanded query holds. */
function namePrecision(entry: Entry, query: ReadonlyMap<string, number>): number {
	const own = entry.ownNameWords;
	if (own.length === 0) return 1;
	let asked = 0;
	for (const word of own) if (query.has(word)) asked++;
	return asked / own.length;
}

/** The `size` best scores seen so far; `last()` is the lowest of them (0 until there are `size`: none may be left out yet). */
class Leaders {
	private readonly scores: number[] = [];
	constructor(private readonly size: number) {}

	add(score: number): void {
		if (this.size === 0) return;
		if (this.scores.length === this.size && score <= (this.scores[this.size - 1] as number)) return;
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

/** The query's own word of a concept: expandQuery puts it first, before its equivalents. */
function ownWord(concept: ReadonlySet<string>): string {
	const [own] = concept;
	return own;
}
