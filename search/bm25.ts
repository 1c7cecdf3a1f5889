// The inverted index under the tool search: BM25+ over weighted fields (MiniSearch's scoring:
// k 1.2, b 0.7, d 0.5), a document's score multiplied by how many of the query's groups (its words,
// each with the terms that stand for it) it matched, with
// prefix and typo (one edit) matches of a term. Kept as flat arrays per term and field, scored into
// one array per search: at 10,000 tools MiniSearch's radix tree and per-result objects cost 2-3×
// the build and most of a search. Documents are removed by marking them (statistics stay exact at
// once); their postings are dropped when a term is next read or, all at once, when they pile up.
// Every statistic a score reads (document counts, field lengths, a term's documents) is kept up to
// date by add and remove, so a change costs the documents changed, never a rebuild.

/** A query term, as the engine asks for it. */
export interface QueryTerm {
	readonly term: string;
	/** Multiplies its score: 1 for the query's own words, less for synonyms. */
	readonly boost: number;
	/** Also match words it starts (weighted down with each extra letter). */
	readonly prefix: boolean;
	/** Also match words one edit away (a typo). */
	readonly fuzzy: boolean;
	/**
	 * The groups (the query's words, by index) this term stands for: a document's score is
	 * multiplied by how many groups it matched (a word's synonyms add nothing to that count), and a
	 * search reports which groups a document answers. A term without groups is a group of its own.
	 */
	readonly groups?: readonly number[];
	/** The fields (by position) this term may match in; every field when not given. */
	readonly fields?: readonly number[];
}

export interface Bm25Options {
	/** Weight of each field, by position. */
	readonly fieldBoosts: readonly number[];
	/** Weight of a prefix match and of a typo match, before their length factor. */
	readonly prefixWeight: number;
	readonly fuzzyWeight: number;
	/** The fields in which a group's exact match is a strong one (a tool's name and parameters: where it says what it does). */
	readonly strongFields?: readonly number[];
	/** A document's score multiplier (0 leaves it out). */
	readonly boostDocument?: (id: number) => number;
	/**
	 * The caller's weight of each group (by index), when it multiplies a score by the share of these
	 * weights a document answers (search/tool-index.ts's coverage): documents are then handed out in
	 * the order of that bound (their score times the share they answer in any field), so that a
	 * caller that stops at the first one below what it keeps stops early on a long query too, where
	 * most documents answer a few of its words.
	 */
	readonly groupWeights?: Float64Array;
	readonly accept?: (id: number) => boolean;
}

const K = 1.2;
const B = 0.7;
const D = 0.5;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** Query terms whose derived terms are kept at most (a cache, emptied when full). */
const MAX_DERIVED = 4096;

/** One term's documents in one field: ids (ascending) and how often the term occurs in each. */
interface Postings {
	ids: number[];
	tfs: number[];
	/** Live documents among them. */
	live: number;
}

/** A term: its postings per field, and how many live documents hold it in any field. */
interface Term {
	readonly fields: (Postings | undefined)[];
	docs: number;
	/** The last document counted in `docs` (a document is counted once however many fields hold the term). */
	mark: number;
}

export class Bm25Index {
	private readonly terms = new Map<string, Term>();
	/** Live documents. */
	private count = 0;
	private readonly lengths: number[][];
	private readonly totalLength: number[];
	private dead = new Set<number>();
	/** One past the highest document id added. */
	private capacity = 0;
	private deadPostings = 0;
	private livePostings = 0;
	/** The vocabulary in order, for prefix matches; terms added since wait in `unsorted`. */
	private sorted: string[] = [];
	private unsorted: string[] = [];
	/** Counts the vocabulary's changes (a word added, words dropped): derived terms are kept for one version. */
	private vocabularyVersion = 0;
	/** A query term's derived terms (derivedTerms), by its flags and term, for one vocabulary and one pair of weights. */
	private readonly derived = new Map<string, readonly (readonly [string, number, boolean])[]>();
	private derivedAt = -1;
	private derivedWeights = "";

	constructor(private readonly fieldCount: number) {
		this.lengths = Array.from({ length: fieldCount }, () => []);
		this.totalLength = new Array(fieldCount).fill(0);
	}

	get size(): number {
		return this.count;
	}

	/** Adds a document (its terms per field); ids only grow (a changed document comes back under a new id). */
	add(id: number, fields: readonly (readonly string[])[]): void {
		if (id < this.capacity) throw new Error(`document ids must grow: ${id} after ${this.capacity - 1}`);
		this.count++;
		this.capacity = id + 1;
		for (let f = 0; f < this.fieldCount; f++) {
			// A field's length is its distinct words, as MiniSearch counts it.
			let distinct = 0;
			for (const word of fields[f] ?? []) {
				const term = this.termOf(word);
				if (term.mark !== id) {
					term.mark = id;
					term.docs++;
				}
				let postings = term.fields[f];
				if (!postings) {
					postings = { ids: [], tfs: [], live: 0 };
					term.fields[f] = postings;
				}
				const last = postings.ids.length - 1;
				if (last >= 0 && postings.ids[last] === id) {
					postings.tfs[last]++;
					continue;
				}
				postings.ids.push(id);
				postings.tfs.push(1);
				postings.live++;
				this.livePostings++;
				distinct++;
			}
			this.lengths[f][id] = distinct;
			this.totalLength[f] += distinct;
		}
	}

	private termOf(word: string): Term {
		let term = this.terms.get(word);
		if (!term) {
			term = { fields: new Array(this.fieldCount), docs: 0, mark: -1 };
			this.terms.set(word, term);
			this.unsorted.push(word);
			this.vocabularyVersion++;
		}
		return term;
	}

	/** Removes a document, given the terms it was added with (the index keeps none per document: the caller has them). */
	remove(id: number, fields: readonly (readonly string[])[]): void {
		if (id >= this.capacity || this.dead.has(id)) return;
		this.count--;
		this.dead.add(id);
		const all = new Set<string>();
		for (let f = 0; f < this.fieldCount; f++) {
			const words = new Set(fields[f] ?? []);
			this.totalLength[f] -= words.size;
			for (const word of words) {
				all.add(word);
				const postings = this.terms.get(word)?.fields[f];
				if (!postings) continue;
				postings.live--;
				this.livePostings--;
				this.deadPostings++;
			}
		}
		for (const word of all) {
			const term = this.terms.get(word);
			if (term) term.docs--;
		}
		if (this.deadPostings > this.livePostings) this.compact();
	}

	/** Drops every removed document's postings, and terms no document has any more. */
	private compact(): void {
		let dropped = false;
		for (const [word, term] of this.terms) {
			for (let f = 0; f < this.fieldCount; f++) {
				const postings = term.fields[f];
				if (!postings) continue;
				if (postings.live === 0) term.fields[f] = undefined;
				else this.prune(postings);
			}
			if (term.docs === 0) {
				this.terms.delete(word);
				dropped = true;
			}
		}
		if (dropped) {
			this.vocabularyVersion++;
			this.sorted = [...this.terms.keys()].sort();
			this.unsorted = [];
		}
		this.dead = new Set();
		this.deadPostings = 0;
	}

	private prune(postings: Postings): void {
		if (postings.ids.length === postings.live) return;
		const ids: number[] = [];
		const tfs: number[] = [];
		for (let i = 0; i < postings.ids.length; i++) {
			if (this.dead.has(postings.ids[i])) continue;
			ids.push(postings.ids[i]);
			tfs.push(postings.tfs[i]);
		}
		postings.ids = ids;
		postings.tfs = tfs;
	}

	/** How many documents have the term, in any field. */
	docsWith(term: string): number {
		return this.terms.get(term)?.docs ?? 0;
	}

	/**
	 * Every document matching any query term, scored, best first. Lazily: a caller that stops after
	 * the best few does not pay for ordering thousands (a binary heap, popped as it reads).
	 */
	search(query: readonly QueryTerm[], options: Bm25Options): Bm25Results {
		const size = this.capacity;
		const scores = new Float64Array(size);
		const seen = new Uint8Array(size);
		let groupCount = query.reduce((n, spec) => Math.max(n, ...(spec.groups ?? []).map((g) => g + 1)), 0);
		const termGroups = query.map((spec) => (spec.groups?.length ? spec.groups : [groupCount++]));
		const groups = new GroupSets(size, groupCount);
		const strong = new Array<boolean>(this.fieldCount).fill(false);
		for (const f of options.strongFields ?? []) strong[f] = true;
		const touched: number[] = [];
		const docCount = this.count;
		const { accept, boostDocument } = options;
		query.forEach((spec, index) => {
			const specGroups = termGroups[index];
			for (const [word, weight, isLoose] of this.derivedTerms(spec, options)) {
				const term = this.terms.get(word);
				if (!term) continue;
				for (let f = 0; f < this.fieldCount; f++) {
					const postings = term.fields[f];
					const fieldBoost = options.fieldBoosts[f] ?? 0;
					if (!postings || postings.live === 0 || fieldBoost === 0) continue;
					if (spec.fields && !spec.fields.includes(f)) continue;
					if (this.deadPostings > 0) this.prune(postings);
					const idf = Math.log(1 + (docCount - postings.live + 0.5) / (postings.live + 0.5));
					const average = this.totalLength[f] / docCount;
					const base = weight * spec.boost * fieldBoost * idf;
					const strongMatch = !isLoose && strong[f];
					const { ids, tfs } = postings;
					const lengths = this.lengths[f];
					for (let i = 0; i < ids.length; i++) {
						const id = ids[i];
						if (accept && !accept(id)) continue;
						const docBoost = boostDocument ? boostDocument(id) : 1;
						if (docBoost === 0) continue;
						const tf = tfs[i];
						const norm = tf + K * (1 - B + (B * lengths[id]) / average);
						if (seen[id] === 0) {
							seen[id] = 1;
							touched.push(id);
						}
						scores[id] += base * docBoost * (D + (tf * (K + 1)) / norm);
						for (let g = 0; g < specGroups.length; g++) groups.mark(id, specGroups[g], strongMatch);
					}
				}
			}
		});
		// Coordination, as MiniSearch multiplies by the query terms matched, but by the query's words:
		// matching a word and two of its synonyms is one word answered, not three.
		for (const id of touched) scores[id] *= groups.count(id);
		return new Bm25Results(touched, scores, groups, this.bounds(touched, scores, groups, options.groupWeights));
	}

	/** Each document's score times the share of the group weights it answers in any field (none: its score). */
	private bounds(
		touched: readonly number[],
		scores: Float64Array,
		groups: GroupSets,
		weights: Float64Array | undefined,
	): Float64Array {
		const total = weights?.reduce((sum, w) => sum + w, 0) ?? 0;
		if (!weights || total <= 0) return scores;
		const bounds = new Float64Array(scores.length);
		const none = new Uint32Array(0);
		for (const id of touched) bounds[id] = scores[id] * (groups.answered(id, none, weights) / total);
		return bounds;
	}

	/**
	 * The term itself, then the words it starts, then the words one edit away, each with its weight.
	 * Kept until the vocabulary changes: a request with several needs looks up each of its words
	 * once for the whole request and again for each part that holds it.
	 */
	private derivedTerms(spec: QueryTerm, options: Bm25Options): readonly (readonly [string, number, boolean])[] {
		const weights = `${options.prefixWeight} ${options.fuzzyWeight}`;
		if (this.derivedAt !== this.vocabularyVersion || this.derivedWeights !== weights) {
			this.derived.clear();
			this.derivedAt = this.vocabularyVersion;
			this.derivedWeights = weights;
		}
		const key = `${spec.prefix ? 1 : 0}${spec.fuzzy ? 1 : 0}${spec.term}`;
		let out = this.derived.get(key);
		if (!out) {
			if (this.derived.size >= MAX_DERIVED) this.derived.clear();
			out = this.deriveTerms(spec, options);
			this.derived.set(key, out);
		}
		return out;
	}

	private deriveTerms(spec: QueryTerm, options: Bm25Options): [string, number, boolean][] {
		const out: [string, number, boolean][] = [[spec.term, 1, false]];
		const seen = new Set([spec.term]);
		if (spec.prefix) {
			for (const word of this.withPrefix(spec.term)) {
				if (seen.has(word)) continue;
				seen.add(word);
				const distance = word.length - spec.term.length;
				out.push([word, (options.prefixWeight * word.length) / (word.length + 0.3 * distance), true]);
			}
		}
		if (spec.fuzzy) {
			for (const word of oneEditAway(spec.term)) {
				if (seen.has(word) || !this.terms.has(word)) continue;
				seen.add(word);
				out.push([word, (options.fuzzyWeight * word.length) / (word.length + 1), true]);
			}
		}
		return out;
	}

	/** Indexed words that start with `prefix`, from the sorted vocabulary (words added since merged in first). */
	private withPrefix(prefix: string): string[] {
		if (this.unsorted.length > 0) this.mergeUnsorted();
		const words = this.sorted;
		let low = 0;
		let high = words.length;
		while (low < high) {
			const mid = (low + high) >> 1;
			if (words[mid] < prefix) low = mid + 1;
			else high = mid;
		}
		const out: string[] = [];
		for (let i = low; i < words.length && words[i].startsWith(prefix); i++) out.push(words[i]);
		return out;
	}

	/** Sorts the words added since the last prefix search and merges them in (a server's new words, not the whole vocabulary again). */
	private mergeUnsorted(): void {
		const fresh = this.unsorted.sort();
		this.unsorted = [];
		const old = this.sorted;
		const merged: string[] = new Array(old.length + fresh.length);
		let i = 0;
		let j = 0;
		let k = 0;
		while (i < old.length && j < fresh.length) merged[k++] = old[i] < fresh[j] ? old[i++] : fresh[j++];
		while (i < old.length) merged[k++] = old[i++];
		while (j < fresh.length) merged[k++] = fresh[j++];
		this.sorted = merged;
	}
}

/** Per document, two bit sets over the query's groups: answered anywhere, answered strongly. */
class GroupSets {
	private readonly words: number;
	private readonly any: Uint32Array;
	private readonly strong: Uint32Array;

	constructor(size: number, groups: number) {
		this.words = Math.ceil(groups / 32);
		this.any = new Uint32Array(size * this.words);
		this.strong = new Uint32Array(size * this.words);
	}

	mark(id: number, group: number, strong: boolean): void {
		const at = id * this.words + (group >> 5);
		const bit = 1 << (group & 31);
		this.any[at] |= bit;
		if (strong) this.strong[at] |= bit;
	}

	/** How many groups the document matched (any way). */
	count(id: number): number {
		let n = 0;
		for (let word = 0; word < this.words; word++) {
			let bits = this.any[id * this.words + word];
			while (bits !== 0) {
				bits &= bits - 1;
				n++;
			}
		}
		return n;
	}

	answered(id: number, strongGroups: Uint32Array, weights: Float64Array): number {
		let sum = 0;
		for (let word = 0; word < this.words; word++) {
			const at = id * this.words + word;
			const only = strongGroups[word] ?? 0;
			let bits = ((this.any[at] & ~only) | (this.strong[at] & only)) >>> 0;
			// Lowest group first: summed in the groups' order.
			while (bits !== 0) {
				const bit = 31 - Math.clz32(bits & -bits);
				sum += weights[word * 32 + bit] ?? 0;
				bits = (bits & ~(1 << bit)) >>> 0;
			}
		}
		return sum;
	}
}

/**
 * A search's matches, handed out by their bound, highest first (their score, or what
 * Bm25Options.groupWeights makes of it; a max-heap popped one at a time: a caller that stops after
 * the best few does not pay for ordering thousands), and which of the query's groups each answers.
 * Valid until the index changes.
 */
export class Bm25Results {
	private size: number;

	constructor(
		private readonly heap: number[],
		private readonly scores: Float64Array,
		private readonly groups: GroupSets,
		private readonly bounds: Float64Array = scores,
	) {
		this.size = heap.length;
		for (let i = (this.size >> 1) - 1; i >= 0; i--) this.sift(i);
	}

	/** The document of highest bound not handed out yet, or -1 when none is left. */
	next(): number {
		if (this.size === 0) return -1;
		const id = this.heap[0];
		this.size--;
		this.heap[0] = this.heap[this.size];
		this.sift(0);
		return id;
	}

	score(id: number): number {
		return this.scores[id];
	}

	/** What no document handed out after this one scores above, as the caller weighs coverage (its score without groupWeights). */
	bound(id: number): number {
		return this.bounds[id];
	}

	/**
	 * The summed weights of the groups the document answers: a group in `strong` (bit g of word
	 * g >> 5) only by an exact match in a strong field, any other in any field, exactly or by a prefix or typo.
	 */
	answered(id: number, strong: Uint32Array, weights: Float64Array): number {
		return this.groups.answered(id, strong, weights);
	}

	private sift(from: number): void {
		const { heap, bounds, size } = this;
		let at = from;
		for (;;) {
			const left = 2 * at + 1;
			const right = left + 1;
			let top = at;
			if (left < size && bounds[heap[left]] > bounds[heap[top]]) top = left;
			if (right < size && bounds[heap[right]] > bounds[heap[top]]) top = right;
			if (top === at) return;
			const swap = heap[at];
			heap[at] = heap[top];
			heap[top] = swap;
			at = top;
		}
	}
}

/** Every string one deletion, substitution or insertion away (Levenshtein distance 1) over a-z0-9. */
function oneEditAway(word: string): Set<string> {
	const out = new Set<string>();
	for (let i = 0; i <= word.length; i++) {
		const head = word.slice(0, i);
		const rest = word.slice(i);
		if (i < word.length) out.add(head + word.slice(i + 1));
		for (const c of ALPHABET) {
			out.add(head + c + rest);
			if (i < word.length && c !== word[i]) out.add(head + c + word.slice(i + 1));
		}
	}
	out.delete(word);
	return out;
}
