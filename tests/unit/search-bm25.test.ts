// The inverted index under the tool search (search/bm25.ts): what a long request's ranking relies
// on to stay cheap (results handed out by what the caller can still score, a query word's prefix
// and typo matches looked up once) without changing what it finds.
import { describe, expect, it } from "vitest";
import { Bm25Index, type Bm25Results } from "../../search/bm25.ts";

const OPTIONS = { fieldBoosts: [1], prefixWeight: 0.4, fuzzyWeight: 0.3 };
const word = (term: string, group: number, loose = false) => ({
	term,
	boost: 1,
	prefix: loose,
	fuzzy: loose,
	groups: [group],
});

function drain(results: Bm25Results): number[] {
	const out: number[] = [];
	for (let id = results.next(); id >= 0; id = results.next()) out.push(id);
	return out;
}

describe("Bm25Index", () => {
	it("a query word's prefix and typo matches reach the words of documents added after it was first searched", () => {
		const index = new Bm25Index(1);
		index.add(0, [["alpha"]]);
		const query = [word("deploi", 0, true)];
		expect(drain(index.search(query, OPTIONS))).toEqual([]);
		index.add(1, [["deploiment"]]); // the query word starts it
		index.add(2, [["deplai"]]); // one letter away
		expect(drain(index.search(query, OPTIONS)).sort()).toEqual([1, 2]);
	});

	it("with the caller's weight of each query word, hands documents out by their score times the share of the weights they answer", () => {
		const index = new Bm25Index(1);
		index.add(0, [["rare"]]); // the louder match (a rarer word), of a word that weighs little
		for (let id = 1; id < 4; id++) index.add(id, [["common", `filler${id}`]]);
		const query = [word("rare", 0), word("common", 1)];
		const plain = index.search(query, OPTIONS);
		expect(plain.next()).toBe(0);
		const weighed = index.search(query, { ...OPTIONS, groupWeights: Float64Array.from([0.1, 10]) });
		const first = weighed.next();
		expect(first).toBeGreaterThan(0);
		expect(weighed.bound(first)).toBeCloseTo((weighed.score(first) * 10) / 10.1);
		expect(drain(weighed)).toContain(0);
	});
});
