// The inverted index under the tool search: BM25+ over weighted fields (MiniSearch's scoring:
// k 1.2, b 0.7, d 0.5, a document's score multiplied by how many query terms it matched), with
// prefix and typo (one edit) matches of a term. Kept as flat arrays per term and field, scored into
// one array per search: at 10,000 tools MiniSearch's radix tree and per-result objects cost 2-3×
// the build and most of a search. Documents are removed by marking them (statistics stay exact at
// once); their postings are dropped when a term is next read or, all at once, when they pile up.

/** A query term, as the engine asks for it. */
export interface QueryTerm {
	readonly term: string;
	/** Multiplies its score: 1 for the query's own words, less for synonyms. */
	readonly boost: number;
	/** Also match words it starts (weighted down with each extra letter). */
	readonly prefix: boolean;
	/** Also match words one edit away (a typo). */
	readonly fuzzy: boolean;
}

export interface Bm25Options {
	/** Weight of each field, by position. */
	readonly fieldBoosts: readonly number[];
	/** Weight of a prefix match and of a typo match, before their length factor. */
	readonly prefixWeight: number;
	readonly fuzzyWeight: number;
	/** A document's score multiplier (0 leaves it out). */
	readonly boostDocument?: (id: number) => number;
	readonly accept?: (id: number) => boolean;
}

export interface Bm25Match {
	readonly id: number;
	readonly score: number;
	/** Query terms (by index) matched through a prefix or typo only. */
	readonly loose?: ReadonlySet<number>;
}

const K = 1.2;
const B = 0.7;
const D = 0.5;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** One term's documents in one field: ids and how often the term occurs in each. */
interface Postings {
	ids: number[];
	tfs: number[];
	/** Live documents among them. */
	live: number;
}

export class Bm25Index {
	/** term → postings per field. */
	private readonly terms = new Map<string, (Postings | undefined)[]>();
	/** Per document, its terms per field (to remove it) and its field lengths. */
	private readonly docs = new Map<number, { readonly fields: readonly (readonly string[])[] }>();
	private readonly lengths: number[][];
	private readonly totalLength: number[];
	private dead = new Set<number>();
	/** Word counts of the field being added (one map for every add: 40,000 of them at 10,000 tools). */
	private readonly counts = new Map<string, number>();
	/** One past the highest document id added. */
	private capacity = 0;
	private deadPostings = 0;
	private livePostings = 0;
	private sorted?: string[];

	constructor(private readonly fieldCount: number) {
		this.lengths = Array.from({ length: fieldCount }, () => []);
		this.totalLength = new Array(fieldCount).fill(0);
	}

	get size(): number {
		return this.docs.size;
	}

	add(id: number, fields: readonly (readonly string[])[]): void {
		this.docs.set(id, { fields });
		this.capacity = Math.max(this.capacity, id + 1);
		const counts = this.counts;
		for (let f = 0; f < this.fieldCount; f++) {
			counts.clear();
			for (const word of fields[f] ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
			// A field's length is its distinct words, as MiniSearch counts it.
			this.lengths[f][id] = counts.size;
			this.totalLength[f] += counts.size;
			for (const [word, tf] of counts) {
				let perField = this.terms.get(word);
				if (!perField) {
					perField = new Array(this.fieldCount);
					this.terms.set(word, perField);
					this.sorted = undefined;
				}
				let postings = perField[f];
				if (!postings) {
					postings = { ids: [], tfs: [], live: 0 };
					perField[f] = postings;
				}
				postings.ids.push(id);
				postings.tfs.push(tf);
				postings.live++;
				this.livePostings++;
			}
		}
	}

	remove(id: number): void {
		const doc = this.docs.get(id);
		if (!doc) return;
		this.docs.delete(id);
		this.dead.add(id);
		for (let f = 0; f < this.fieldCount; f++) {
			const words = new Set(doc.fields[f] ?? []);
			this.totalLength[f] -= words.size;
			for (const word of words) {
				const postings = this.terms.get(word)?.[f];
				if (!postings) continue;
				postings.live--;
				this.livePostings--;
				this.deadPostings++;
			}
		}
		if (this.deadPostings > this.livePostings) this.compact();
	}

	/** Drops every removed document's postings, and terms no document has any more. */
	private compact(): void {
		for (const [word, perField] of this.terms) {
			let any = false;
			for (let f = 0; f < this.fieldCount; f++) {
				const postings = perField[f];
				if (!postings) continue;
				if (postings.live === 0) perField[f] = undefined;
				else {
					this.prune(postings);
					any = true;
				}
			}
			if (!any) {
				this.terms.delete(word);
				this.sorted = undefined;
			}
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
		const perField = this.terms.get(term);
		if (!perField) return 0;
		const withTerm = perField.filter((postings): postings is Postings => postings !== undefined && postings.live > 0);
		if (withTerm.length <= 1) return withTerm[0]?.live ?? 0;
		const ids = new Set<number>();
		for (const postings of withTerm) {
			if (this.deadPostings > 0) this.prune(postings);
			for (const id of postings.ids) ids.add(id);
		}
		return ids.size;
	}

	/**
	 * Every document matching any query term, scored, best first. Lazily: a caller that stops after
	 * the best few does not pay for ordering thousands (a binary heap, popped as it reads).
	 */
	search(query: readonly QueryTerm[], options: Bm25Options): Iterable<Bm25Match> {
		const size = this.capacity;
		const scores = new Float64Array(size);
		/** How many query terms each document matched: it multiplies the score, as MiniSearch does. */
		const matched = new Uint16Array(size);
		const lastTerm = new Int32Array(size).fill(-1);
		const touched: number[] = [];
		const loose = new Map<number, Set<number>>();
		const docCount = this.docs.size;
		query.forEach((spec, index) => {
			for (const [word, weight, isLoose] of this.derivedTerms(spec, options)) {
				const perField = this.terms.get(word);
				if (!perField) continue;
				for (let f = 0; f < this.fieldCount; f++) {
					const postings = perField[f];
					const fieldBoost = options.fieldBoosts[f] ?? 0;
					if (!postings || postings.live === 0 || fieldBoost === 0) continue;
					if (this.deadPostings > 0) this.prune(postings);
					const idf = Math.log(1 + (docCount - postings.live + 0.5) / (postings.live + 0.5));
					const average = this.totalLength[f] / docCount;
					const base = weight * spec.boost * fieldBoost * idf;
					const { ids, tfs } = postings;
					const lengths = this.lengths[f];
					for (let i = 0; i < ids.length; i++) {
						const id = ids[i];
						if (options.accept && !options.accept(id)) continue;
						const docBoost = options.boostDocument ? options.boostDocument(id) : 1;
						if (docBoost === 0) continue;
						const tf = tfs[i];
						const norm = tf + K * (1 - B + (B * lengths[id]) / average);
						if (lastTerm[id] < 0) touched.push(id);
						scores[id] += base * docBoost * (D + (tf * (K + 1)) / norm);
						if (lastTerm[id] === index) continue;
						lastTerm[id] = index;
						matched[id]++;
						if (!isLoose) continue;
						const set = loose.get(id) ?? new Set<number>();
						set.add(index);
						loose.set(id, set);
					}
				}
			}
		});
		for (const id of touched) scores[id] *= matched[id];
		return bestFirst(touched, scores, loose);
	}

	/** The term itself, then the words it starts, then the words one edit away, each with its weight. */
	private derivedTerms(spec: QueryTerm, options: Bm25Options): [string, number, boolean][] {
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

	/** Indexed words that start with `prefix`, from a sorted list made when the vocabulary last changed. */
	private withPrefix(prefix: string): string[] {
		this.sorted ??= [...this.terms.keys()].sort();
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
}

/** The documents in order of score, best first, as a max-heap popped one at a time. */
function* bestFirst(
	ids: number[],
	scores: Float64Array,
	loose: ReadonlyMap<number, ReadonlySet<number>>,
): Generator<Bm25Match> {
	const heap = ids;
	const above = (a: number, b: number) => scores[heap[a]] > scores[heap[b]];
	const sift = (from: number, size: number) => {
		let at = from;
		for (;;) {
			const left = 2 * at + 1;
			const right = left + 1;
			let top = at;
			if (left < size && above(left, top)) top = left;
			if (right < size && above(right, top)) top = right;
			if (top === at) return;
			[heap[at], heap[top]] = [heap[top], heap[at]];
			at = top;
		}
	};
	for (let i = (heap.length >> 1) - 1; i >= 0; i--) sift(i, heap.length);
	for (let size = heap.length; size > 0; size--) {
		const id = heap[0];
		heap[0] = heap[size - 1];
		sift(0, size - 1);
		yield { id, score: scores[id], loose: loose.get(id) };
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
