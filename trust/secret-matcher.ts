// Where known secrets are in a text, in time linear in the text whatever the secrets' sizes and
// number: each pattern (a secret's canonical form or a base64 core: trust/secret-forms.ts) goes to
// the Aho-Corasick automaton when shorter than WIDTH units, else to the block fingerprints. A
// text's canonical units (trust/text-views.ts) are fed to both in one pass per view; what they
// find becomes spans of the original text, merged. No pattern is ever compiled from a secret.
//
// `-` and `_` are read as `+` and `/` on both sides, so one base64 core matches the standard and
// the URL-safe alphabet, and a space as `+`, as a form body writes it (a secret's own `-`, `_` or
// space then also matches `+` or `/`: more masked, never less).

import { AhoCorasick } from "./aho-corasick.ts";
import { BlockFingerprints, filterBit, probe, WIDTH } from "./block-fingerprints.ts";
import { isPlainUnit, joinsBackslash, percentDecoded, readEscape, unitBuffer } from "./text-views.ts";

/** Units a scan remembers: the start of a match up to WIDTH units back. */
const RING = WIDTH * 2;
const RING_MASK = RING - 1;

function folded(pattern: string): string {
	return pattern.replace(/[-_ ]/g, (c) => (c === "_" ? "/" : "+"));
}

/** The spans of a text that hold known secrets: sorted, disjoint, [start, end) pairs in `starts`/`ends`. */
export interface Spans {
	readonly starts: number[];
	readonly ends: number[];
}

/** The spans of one view of a text where a pattern is: one pass, the reading and the matching in one loop. */
function scan(text: string, automaton: AhoCorasick | undefined, blocks: BlockFingerprints | undefined): Spans {
	const spans: Spans = { starts: [], ends: [] };
	const record = (start: number, end: number) => addSpan(spans, start, end);
	const startRing = new Int32Array(RING);
	const unitRing = new Uint16Array(RING);
	const read = unitBuffer();
	const rootNext = automaton?.rootNext;
	const longest = automaton?.longest ?? new Int32Array(1);
	const table = blocks?.table();
	const [base1, base2, drop1, drop2] = blocks ? [blocks.base1, blocks.base2, blocks.drop1, blocks.drop2] : [0, 0, 0, 0];
	const filter = table?.filter ?? new Int32Array(1);
	const filterShift = table ? table.filterShift : 31;
	let state = AhoCorasick.ROOT;
	let h1 = 0;
	let h2 = 0;
	let at = -1;
	let previous = -1;
	let i = 0;
	// Units left of what readEscape read, and where the next of them is in `read`.
	let pending = 0;
	let next = 1;
	for (;;) {
		let raw: number;
		let start: number;
		let end: number;
		if (pending > 0) {
			raw = read[next];
			start = read[next + 1];
			end = read[next + 2];
			next += 3;
			pending--;
		} else if (i < text.length) {
			// Most characters are one unit of their own, read here; the rest by readEscape.
			raw = text.charCodeAt(i);
			if (!isPlainUnit(raw)) {
				i = readEscape(text, i, read);
				pending = read[0];
				next = 1;
				continue;
			}
			start = i;
			end = ++i;
		} else break;
		if (joinsBackslash(previous, raw)) continue;
		previous = raw;
		const code = raw === 0x2d || raw === 0x20 ? 0x2b : raw === 0x5f ? 0x2f : raw; // the fold: see the header
		startRing[++at & RING_MASK] = start;
		if (rootNext) {
			state = state === AhoCorasick.ROOT ? rootNext[code] : (automaton as AhoCorasick).step(state, code);
			const found = longest[state];
			if (found > 0) record(startRing[(at - found + 1) & RING_MASK], end);
		}
		if (table) {
			const leaving = unitRing[(at - WIDTH) & RING_MASK];
			unitRing[at & RING_MASK] = code;
			h1 = (Math.imul((h1 - Math.imul(leaving, drop1)) | 0, base1) + code) | 0;
			h2 = (Math.imul((h2 - Math.imul(leaving, drop2)) | 0, base2) + code) | 0;
			// The filter (a bit per fingerprint, small enough for the cache) turns away almost every unit.
			const bit = filterBit(h1, h2, filterShift);
			if (at >= WIDTH - 1 && filter[bit >>> 5] & (1 << (bit & 31)) && probe(table, h1, h2))
				record(startRing[(at - WIDTH + 1) & RING_MASK], end);
		}
	}
	return spans;
}

/** Adds [start, end) to spans whose ends come in order: it merges with the spans it touches at the top. */
function addSpan(spans: Spans, start: number, end: number): void {
	const { starts, ends } = spans;
	let from = start;
	while (ends.length > 0 && from <= ends[ends.length - 1]) {
		from = Math.min(from, starts[starts.length - 1]);
		starts.pop();
		ends.pop();
	}
	starts.push(from);
	ends.push(end);
}

/** Two sorted lists of disjoint spans as one, overlapping or touching spans joined. */
function union(a: Spans, b: Spans): Spans {
	const out: Spans = { starts: [], ends: [] };
	let i = 0;
	let j = 0;
	while (i < a.starts.length || j < b.starts.length) {
		const fromA = j >= b.starts.length || (i < a.starts.length && a.starts[i] <= b.starts[j]);
		const start = fromA ? a.starts[i] : b.starts[j];
		const end = fromA ? a.ends[i++] : b.ends[j++];
		const last = out.ends.length - 1;
		if (last >= 0 && start <= out.ends[last]) out.ends[last] = Math.max(out.ends[last], end);
		else {
			out.starts.push(start);
			out.ends.push(end);
		}
	}
	return out;
}

/** The patterns known so far, and where they are in a text. */
export class SecretMatcher {
	private readonly short = new Set<string>();
	private automaton: AhoCorasick | undefined;
	private stale = false;
	private readonly blocks = new BlockFingerprints();

	/** Patterns shorter than this are not kept: they would match ordinary text. */
	constructor(private readonly minLength: number) {}

	get empty(): boolean {
		return this.short.size === 0 && this.blocks.size === 0;
	}

	add(pattern: string): void {
		if (pattern.length < this.minLength) return;
		const units = folded(pattern);
		if (units.length >= WIDTH) this.blocks.addPattern(units);
		else if (!this.short.has(units)) {
			this.short.add(units);
			this.stale = true;
		}
	}

	/** The spans of `text` where a pattern is, in any of the forms the views undo. */
	find(text: string): Spans {
		if (this.stale) {
			this.automaton = new AhoCorasick([...this.short]);
			this.stale = false;
		}
		const automaton = this.short.size > 0 ? this.automaton : undefined;
		const blocks = this.blocks.size > 0 ? this.blocks : undefined;
		const plain = scan(text, automaton, blocks);
		if (!text.includes("%")) return plain;
		const view = percentDecoded(text);
		const { starts, ends } = scan(view.text, automaton, blocks);
		return union(plain, { starts: starts.map(view.toSource), ends: ends.map(view.toSource) });
	}
}
