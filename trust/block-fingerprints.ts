// The long secrets' side of the matcher (trust/secret-matcher.ts): a secret of `WIDTH` code units
// or more is cut into blocks of `WIDTH` (the last one ending at its end), and each block's
// fingerprint is kept. A text is scanned with a rolling fingerprint of its last `WIDTH` units: one
// multiply-add and one table probe per unit, whatever the secrets' sizes and number. Every block
// of a secret found in the text is masked, so a whole secret is masked wherever it appears (its
// blocks cover it) and so is any part of it that holds a whole block (a token cut short by a
// server shows at most the 2 x (WIDTH - 1) units around its blocks: a part under 2 x WIDTH may be
// shown whole, as it may hold no block).
//
// A fingerprint is two polynomial hashes modulo 2^32 with random odd bases, chosen per table:
// text that no secret's block equals matches only by a collision of both (about one chance in
// 2^64 per unit and block), which would mask one run of ordinary text, never show a secret. The
// secrets themselves are not kept.

/** Units per block: the shortest secret this side takes (shorter ones: trust/aho-corasick.ts). */
export const WIDTH = 32;
/** The filter's most words: 2^21 (8 MB, 2^26 bits). */
const MAX_FILTER_WORDS = 1 << 21;

function randomOdd(): number {
	return (Math.floor(Math.random() * 0x7fffffff) * 2 + 1) | 0;
}

function power(base: number, exponent: number): number {
	let out = 1;
	for (let i = 0; i < exponent; i++) out = Math.imul(out, base);
	return out;
}

/** A set of block fingerprints, and the rolling fingerprint a scan keeps (`Rolling`). */
export class BlockFingerprints {
	readonly base1 = randomOdd();
	readonly base2 = randomOdd();
	/** base^(WIDTH-1): the weight of the unit leaving the window. */
	readonly drop1 = power(this.base1, WIDTH - 1);
	readonly drop2 = power(this.base2, WIDTH - 1);
	private keys1 = new Int32Array(64);
	private keys2 = new Int32Array(64);
	private used = new Uint8Array(64);
	/** One bit per value of h2's low bits, set for each fingerprint kept: about 32 bits per fingerprint, at most 8 MB. */
	private filter = new Int32Array(64);
	private count = 0;

	get size(): number {
		return this.count;
	}

	/** Keeps the fingerprints of a pattern's blocks (a pattern shorter than `WIDTH` has none). */
	addPattern(pattern: string): void {
		const last = pattern.length - WIDTH;
		for (let start = 0; start <= last; start += WIDTH) this.addBlock(pattern, start);
		if (last >= 0 && last % WIDTH !== 0) this.addBlock(pattern, last);
	}

	has(h1: number, h2: number): boolean {
		return probe(this.table(), h1, h2);
	}

	/** The table as it is now, for a scan to probe without a call per unit (valid until the next add). */
	table(): FingerprintTable {
		return {
			keys1: this.keys1,
			keys2: this.keys2,
			used: this.used,
			mask: this.used.length - 1,
			filter: this.filter,
			filterShift: 32 - Math.log2(this.filter.length * 32),
		};
	}

	private addBlock(pattern: string, start: number): void {
		let h1 = 0;
		let h2 = 0;
		for (let i = start; i < start + WIDTH; i++) {
			const unit = pattern.charCodeAt(i);
			h1 = (Math.imul(h1, this.base1) + unit) | 0;
			h2 = (Math.imul(h2, this.base2) + unit) | 0;
		}
		if (this.has(h1, h2)) return;
		if ((this.count + 1) * 2 > this.used.length) this.grow();
		this.insert(h1, h2);
		this.count++;
		if (this.count * 32 > this.filter.length * 32 && this.filter.length < MAX_FILTER_WORDS) this.growFilter();
		else this.mark(h1, h2);
	}

	private insert(h1: number, h2: number): void {
		const mask = this.used.length - 1;
		let slot = this.slot(h1, h2);
		while (this.used[slot]) slot = (slot + 1) & mask;
		this.used[slot] = 1;
		this.keys1[slot] = h1;
		this.keys2[slot] = h2;
	}

	private mark(h1: number, h2: number): void {
		const bit = filterBit(h1, h2, 32 - Math.log2(this.filter.length * 32));
		this.filter[bit >>> 5] |= 1 << (bit & 31);
	}

	/** Doubles the filter and marks every fingerprint again (from the table). */
	private growFilter(): void {
		this.filter = new Int32Array(this.filter.length * 2);
		for (let slot = 0; slot < this.used.length; slot++)
			if (this.used[slot]) this.mark(this.keys1[slot], this.keys2[slot]);
	}

	private grow(): void {
		const [keys1, keys2, used] = [this.keys1, this.keys2, this.used];
		this.keys1 = new Int32Array(used.length * 2);
		this.keys2 = new Int32Array(used.length * 2);
		this.used = new Uint8Array(used.length * 2);
		for (let slot = 0; slot < used.length; slot++) if (used[slot]) this.insert(keys1[slot], keys2[slot]);
	}

	private slot(h1: number, h2: number): number {
		return slotOf(h1, h2, this.used.length - 1);
	}
}

export interface FingerprintTable {
	readonly keys1: Int32Array;
	readonly keys2: Int32Array;
	readonly used: Uint8Array;
	readonly mask: number;
	readonly filter: Int32Array;
	readonly filterShift: number;
}

/** A slot of the table: the top bits of a multiplicative mix (a polynomial hash's low bits vary least). */
export function slotOf(h1: number, h2: number, mask: number): number {
	return (Math.imul(h1 ^ Math.imul(h2, 0x9e3779b1), 0x85ebca6b) >>> 7) & mask;
}

/** The filter's bit for a fingerprint: the top `32 - shift` bits of another mix. */
export function filterBit(h1: number, h2: number, shift: number): number {
	return Math.imul(h2 ^ Math.imul(h1, 0x85ebca6b), 0x9e3779b1) >>> shift;
}

/** Whether the table holds the fingerprint (h1, h2). */
export function probe(table: FingerprintTable, h1: number, h2: number): boolean {
	const { keys1, keys2, used, mask } = table;
	for (let slot = slotOf(h1, h2, mask); used[slot]; slot = (slot + 1) & mask)
		if (keys1[slot] === h1 && keys2[slot] === h2) return true;
	return false;
}
