// Words as the search index reads them: text split into lowercase pieces (snake, kebab, dots,
// camelCase: `createIssue`, `create_issue`, `HTMLParser` → create, issue, html, parser), stopwords
// dropped, the rest stemmed (Porter), so "issues", "issued" and "issue" meet. Indexing reads every
// word of every tool (half a million at 10,000 tools), so the index's own reading looks each word
// up by its characters in a table of the words met before, without making a string for it.
import { stemmer } from "stemmer";
import { STOPWORDS } from "./lexicon.ts";

/** Where one word of a text lies, as the reader hands it on. */
interface WordSink {
	word(text: string, start: number, end: number, capitals: boolean, hash: number): void;
}

const FNV_START = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/**
 * Reads an ASCII text's words into the sink, with each word's hash (FNV-1a of its lowercase
 * letters). Returns false, at once, for text beyond ASCII, whose lowercase may hold ASCII letters
 * (the Kelvin sign is a k): the caller reads that as the regexes say, dropping what was handed on.
 */
function readWords(text: string, sink: WordSink, length = text.length, from = 0): boolean {
	let start = -1;
	let capitals = false; // whether the word being read has a capital (only then is it lowercased)
	let hash = FNV_START;
	for (let i = from; i < length; i++) {
		const c = text.charCodeAt(i);
		if (c > 127) return false;
		const upper = c >= 65 && c <= 90;
		if (!upper && !isLowerOrDigit(c)) {
			if (start >= 0 && !isClitic(text, start, i)) sink.word(text, start, i, capitals, hash);
			start = -1;
			continue;
		}
		const lower = upper ? c + 32 : c;
		if (start < 0) {
			start = i;
			capitals = upper;
			hash = Math.imul(FNV_START ^ lower, FNV_PRIME);
			continue;
		}
		// A word starts at a capital after a small letter or digit (createIssue), or before a small letter after a capital (HTMLParser).
		if (upper) {
			const before = text.charCodeAt(i - 1);
			const after = i + 1 < length ? text.charCodeAt(i + 1) : 0;
			if (isLowerOrDigit(before) || (before >= 65 && before <= 90 && after >= 97 && after <= 122)) {
				sink.word(text, start, i, capitals, hash);
				start = i;
				hash = FNV_START;
			}
			capitals = true;
		}
		hash = Math.imul(hash ^ lower, FNV_PRIME);
	}
	if (start >= 0 && !isClitic(text, start, length)) sink.word(text, start, length, capitals, hash);
	return true;
}

/**
 * Whether a word piece is an English clitic after an apostrophe ("what's", "user's", "you've",
 * "don't"): the `s` of every possessive in a tool's description would be a term, and a query's
 * "what's" would find them all.
 */
function isClitic(text: string, start: number, end: number): boolean {
	if (end - start > 2 || start < 2 || text.charCodeAt(start - 1) !== 39 || !isLetter(text.charCodeAt(start - 2)))
		return false;
	return CLITICS.has(text.slice(start, end).toLowerCase());
}
const CLITICS = new Set(["s", "t", "d", "m", "ve", "ll", "re"]);
/**
 * The same for text beyond ASCII, with the apostrophes typed beside `'` (’ ‘ ´ ʼ). Not "rE": the
 * one-pass reader splits it at its capital (as camelCase) before it could read a clitic.
 */
const CLITIC_AFTER_LETTER =
	/(?<=\p{L})['\u2019\u2018\u00b4\u02bc](?:[sStTdDmM]|ve|VE|Ve|ll|LL|Ll|re|RE|Re)(?![\p{L}\p{N}])/gu;

/** Whether a character code is an ASCII letter. */
export function isLetter(c: number): boolean {
	const lower = c | 32;
	return lower >= 97 && lower <= 122;
}

function isLowerOrDigit(c: number): boolean {
	return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
}

/**
 * Scripts written without spaces between words (Chinese, Japanese) and Hangul, whose words carry
 * particles: read as overlapping pairs of characters (天气预报: 天气 气预 预报), which find a
 * text's words without a dictionary. A lone character is read as itself.
 */
const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc";
const CJK_RUN = new RegExp(`([${CJK}]+)`, "u");
const IS_CJK = new RegExp(`^[${CJK}]`, "u");
/** A character beyond ASCII and the typographic punctuation beside it (U+2000-206F). */
const BEYOND_PUNCTUATION = /[^\p{ASCII}\u2000-\u206f]/u;

/**
 * The same split for text beyond ASCII: letters and digits of any script, a Latin letter's accents
 * dropped (café is cafe), compatibility forms read as what they stand for (ＡＢＣ, the Kelvin sign),
 * Chinese, Japanese and Korean in pairs of characters.
 */
function unicodeWords(text: string): string[] {
	const split = text
		.replace(CLITIC_AFTER_LETTER, "")
		.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
		.replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
	// Most text beyond ASCII is ASCII with typographic punctuation (’ — “ ”): nothing to recompose.
	const read = (
		BEYOND_PUNCTUATION.test(split)
			? split
					.normalize("NFKD")
					.replace(/(?<=[A-Za-z])\p{M}+/gu, "")
					.normalize("NFC")
			: split
	).toLowerCase();
	const out: string[] = [];
	for (const run of read.split(/[^\p{L}\p{N}]+/u)) {
		for (const piece of run.split(CJK_RUN)) {
			if (piece === "") continue;
			if (!IS_CJK.test(piece)) out.push(piece);
			else if (piece.length === 1) out.push(piece);
			else for (let i = 0; i + 1 < piece.length; i++) out.push(piece.slice(i, i + 2));
		}
	}
	return out;
}

function hashOf(word: string): number {
	let hash = FNV_START;
	for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), FNV_PRIME);
	return hash;
}

const stems = new Map<string, string>();
/** One word as the index keeps it: stemmed. Memoized: the query expansion stems every synonym it weighs. */
export function stem(word: string): string {
	let stemmed = stems.get(word);
	if (stemmed === undefined) {
		// Porter's rules are English: a word of another script is kept as it is.
		stemmed = /^\d+$/.test(word) || !/^[a-z0-9]+$/.test(word) ? word : stemmer(word);
		if (stems.size < MEMO_SIZE) stems.set(word, stemmed);
	}
	return stemmed;
}
/** Words remembered at most (a table or memo this full computes new words each time). */
const MEMO_SIZE = 200_000;

/** The word itself, or lowercased when it has capitals. */
function wordAt(text: string, start: number, end: number, capitals: boolean): string {
	return capitals ? text.slice(start, end).toLowerCase() : text.slice(start, end);
}

/**
 * Each word met before and its indexed form (its stem, or "" for a stopword), found by the word's
 * characters in the text (open addressing on the word's hash): a word met again costs no string.
 */
class FormTable implements WordSink {
	private keys: (string | undefined)[] = new Array(1024);
	private forms: string[] = new Array(1024);
	private hashes = new Int32Array(1024);
	private size = 0;
	/** Where `word` puts the forms it finds. */
	out: string[] = [];

	word(text: string, start: number, end: number, capitals: boolean, hash: number): void {
		const form = this.form(text, start, end, capitals, hash);
		if (form !== "") this.out.push(form);
	}

	form(text: string, start: number, end: number, capitals: boolean, hash: number): string {
		const mask = this.keys.length - 1;
		const length = end - start;
		for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
			const key = this.keys[slot];
			if (key === undefined) break;
			if (this.hashes[slot] === hash && key.length === length && sameWord(key, text, start, capitals))
				return this.forms[slot];
		}
		const word = wordAt(text, start, end, capitals);
		const form = STOPWORDS.has(word) ? "" : stem(word);
		if (this.size < MEMO_SIZE) this.insert(word, form, hash);
		return form;
	}

	private insert(word: string, form: string, hash: number): void {
		if ((this.size + 1) * 2 > this.keys.length) this.grow();
		const mask = this.keys.length - 1;
		let slot = hash & mask;
		while (this.keys[slot] !== undefined) slot = (slot + 1) & mask;
		this.keys[slot] = word;
		this.forms[slot] = form;
		this.hashes[slot] = hash;
		this.size++;
	}

	private grow(): void {
		const { keys, forms, hashes } = this;
		this.keys = new Array(keys.length * 2);
		this.forms = new Array(keys.length * 2);
		this.hashes = new Int32Array(keys.length * 2);
		this.size = 0;
		keys.forEach((key, slot) => {
			if (key !== undefined) this.insert(key, forms[slot], hashes[slot]);
		});
	}
}

/** Whether the text's characters from `start` are the (lowercase) word, read lowercased when they have capitals. */
function sameWord(word: string, text: string, start: number, capitals: boolean): boolean {
	for (let k = 0; k < word.length; k++) {
		let c = text.charCodeAt(start + k);
		if (capitals && c >= 65 && c <= 90) c += 32;
		if (c !== word.charCodeAt(k)) return false;
	}
	return true;
}

const table = new FormTable();

/** Lowercase word pieces of a text, as they are, stopwords included. */
export function tokenize(text: string): string[] {
	const out: string[] = [];
	const sink: WordSink = { word: (t, start, end, capitals) => void out.push(wordAt(t, start, end, capitals)) };
	return readWords(text, sink) ? out : unicodeWords(text);
}

/** Words of a text as indexed: tokenized, without stopwords, stemmed. */
export function analyze(text: string): string[] {
	return analyzeInto(text, []);
}

/**
 * The same, added to `out` (a field read from several texts); of the text's characters from
 * `start` (where no word goes on from before it) to `end` when given.
 */
export function analyzeInto(text: string, out: string[], end = text.length, start = 0): string[] {
	const from = out.length;
	table.out = out;
	const read = readWords(text, table, end, start);
	table.out = [];
	if (read) return out;
	out.length = from;
	for (const word of unicodeWords(start > 0 || end < text.length ? text.slice(start, end) : text)) {
		const form = table.form(word, 0, word.length, false, hashOf(word));
		if (form !== "") out.push(form);
	}
	return out;
}

/** Tokens as indexed: without stopwords, stemmed (for text already tokenized). */
export function analyzeTokens(tokens: readonly string[]): string[] {
	const out: string[] = [];
	for (const token of tokens) {
		const form = table.form(token, 0, token.length, false, hashOf(token));
		if (form !== "") out.push(form);
	}
	return out;
}

/**
 * Whether a word is a plural ("events", "processes"; not "status", "class", "alias"): a search for
 * "meetings" or "which projects" asks for many, which a tool named for many (list-events,
 * find_projects) answers rather than one named for one (get-event, update_project).
 */
export function isPlural(word: string): boolean {
	return word.length >= 4 && word.endsWith("s") && !/(ss|us|is)$/.test(word) && stem(word) !== word;
}

/** The term that marks a plural in a tool's name: "events" is "event#pl" (no word holds a '#'). */
export function pluralTerm(term: string): string {
	return `${term}#pl`;
}
