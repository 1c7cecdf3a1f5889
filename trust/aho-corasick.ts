// An Aho-Corasick automaton over UTF-16 code units, in typed arrays: the matcher of the short
// secrets (trust/secret-matcher.ts). Fed one code unit at a time, it says the length of the longest
// pattern that ends there, so a text is scanned once, in time linear in its length whatever the
// patterns' number (each step follows failure links at most as often as earlier steps went deeper).
//
// Why not an npm package: the ones there (ahocorasick, @monyone/aho-corasick) keep a Map object
// per trie node (tens of bytes per pattern character) and report every match with its pattern,
// so nested patterns make the answer longer than the text; masking needs only the longest match
// at each position, over a stream of decoded text (trust/text-views.ts), not over a string.

const ROOT = 0;
const EMPTY = -1;

/** An immutable automaton: `step` from `ROOT`, `longestEndingAt` the state reached. */
export class AhoCorasick {
	static readonly ROOT = ROOT;
	/** The child of the root for each code unit, 0 for none (most steps of a text that holds no secret end here). */
	readonly rootNext = new Int32Array(0x10000);
	/** Other edges: open addressing on (node, unit); `EMPTY` marks a free slot. */
	private readonly edgeNode: Int32Array;
	private readonly edgeUnit: Uint16Array;
	private readonly edgeChild: Int32Array;
	private readonly mask: number;
	private readonly fail: Int32Array;
	/** The length of the longest pattern that is a suffix of the node's string (0: none). */
	readonly longest: Int32Array;
	readonly maxLength: number;

	constructor(patterns: readonly string[]) {
		let total = 1;
		let maxLength = 0;
		for (const p of patterns) {
			total += p.length;
			maxLength = Math.max(maxLength, p.length);
		}
		this.maxLength = maxLength;
		let capacity = 16;
		while (capacity < total * 2) capacity *= 2;
		this.mask = capacity - 1;
		this.edgeNode = new Int32Array(capacity).fill(EMPTY);
		this.edgeUnit = new Uint16Array(capacity);
		this.edgeChild = new Int32Array(capacity);
		this.fail = new Int32Array(total);
		this.longest = new Int32Array(total);
		// The trie's children as linked lists, for the breadth-first pass that sets failure links.
		const firstChild = new Int32Array(total).fill(EMPTY);
		const nextSibling = new Int32Array(total).fill(EMPTY);
		const unitOf = new Uint16Array(total);
		let nodes = 1;
		for (const pattern of patterns) {
			let node = ROOT;
			for (let i = 0; i < pattern.length; i++) {
				const unit = pattern.charCodeAt(i);
				let child = this.child(node, unit);
				if (child === EMPTY) {
					child = nodes++;
					this.link(node, unit, child);
					unitOf[child] = unit;
					nextSibling[child] = firstChild[node];
					firstChild[node] = child;
				}
				node = child;
			}
			if (pattern.length > this.longest[node]) this.longest[node] = pattern.length;
		}
		const queue = new Int32Array(nodes);
		let head = 0;
		let tail = 0;
		for (let child = firstChild[ROOT]; child !== EMPTY; child = nextSibling[child]) queue[tail++] = child;
		while (head < tail) {
			const node = queue[head++];
			for (let child = firstChild[node]; child !== EMPTY; child = nextSibling[child]) {
				const target = this.step(this.fail[node], unitOf[child]);
				this.fail[child] = target;
				if (this.longest[target] > this.longest[child]) this.longest[child] = this.longest[target];
				queue[tail++] = child;
			}
		}
	}

	/** The state after `unit` from `state`: the longest suffix of the text read that is a prefix of a pattern. */
	step(state: number, unit: number): number {
		for (let node = state; node !== ROOT; node = this.fail[node]) {
			const child = this.child(node, unit);
			if (child !== EMPTY) return child;
		}
		return this.rootNext[unit];
	}

	/** The length of the longest pattern ending at this state, 0 if none. */
	longestEndingAt(state: number): number {
		return this.longest[state];
	}

	private child(node: number, unit: number): number {
		if (node === ROOT) return this.rootNext[unit] || EMPTY;
		for (let slot = this.slot(node, unit); ; slot = (slot + 1) & this.mask) {
			const owner = this.edgeNode[slot];
			if (owner === EMPTY) return EMPTY;
			if (owner === node && this.edgeUnit[slot] === unit) return this.edgeChild[slot];
		}
	}

	private link(node: number, unit: number, child: number): void {
		if (node === ROOT) {
			this.rootNext[unit] = child;
			return;
		}
		let slot = this.slot(node, unit);
		while (this.edgeNode[slot] !== EMPTY) slot = (slot + 1) & this.mask;
		this.edgeNode[slot] = node;
		this.edgeUnit[slot] = unit;
		this.edgeChild[slot] = child;
	}

	private slot(node: number, unit: number): number {
		return (Math.imul(node, 0x9e3779b1) ^ Math.imul(unit, 0x85ebca6b)) & this.mask;
	}
}
