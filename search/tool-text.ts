// What of a tool the search index reads, analyzed into terms (search/words.ts): its name (and
// title, and a mark for each plural in it), its server's name, the head of its description, its parameters' names and the values an
// enum allows, and the head of each parameter's description (what the tool acts on: "path: the
// file to read"); the description's first sentence once more, as its own field (what the tool does);
// its server's own words (its description and instructions). Whether two listings of a tool read the same (a reconnected server keeps the
// entries of its unchanged tools).
import type { CatalogTool } from "../catalog/tool-catalog.ts";
import { analyze, analyzeInto, analyzeTokens, isLetter, isPlural, pluralTerm, stem, tokenize } from "./words.ts";

/** A tool's fields as indexed, each analyzed into its terms (the order is the index's field order). */
export interface IndexedTool {
	readonly name: readonly string[];
	readonly server: readonly string[];
	readonly description: readonly string[];
	readonly params: readonly string[];
	/** The first words of each parameter's description. */
	readonly paramNotes: readonly string[];
	/** The description's first sentence (within its first 300 characters): what the tool does. */
	readonly lead: readonly string[];
	/** Its server's own words (search/tool-text.ts `aboutServer`), the same for each of its tools. */
	readonly about: readonly string[];
}

/** What a server says of itself beside its tools: the config's description of it, its instructions. */
export interface ServerWords {
	readonly description?: string;
	readonly instructions?: string;
}

/**
 * A server's words as its tools are searched with them: the head of each (300 characters, as a
 * description's: instructions run to pages of usage rules). "finance" server, "Stock quotes and
 * company data": its `get_history` is found for "stock prices".
 */
export function aboutServer(words: ServerWords | undefined): string {
	if (!words) return "";
	const head = (text: string | undefined) => (text ? text.slice(0, summaryEnd(text)) : "");
	return [head(words.description), head(words.instructions)].filter(Boolean).join("\n");
}

/** A tool as the index reads it: its fields, and what the ranking needs of its name. */
export interface AnalyzedTool {
	readonly fields: IndexedTool;
	/** Its name as `word_word` (a query that is exactly a tool's name comes first). */
	readonly nameKey: string;
	/** Its name's stemmed words, to find the catalog's actions. */
	readonly nameWords: readonly string[];
	/** Its name's stemmed words past its server's name: what a name says of this tool. */
	readonly ownNameWords: readonly string[];
}

export function analyzeTool(tool: CatalogTool, about: readonly string[] = []): AnalyzedTool {
	const nameTokens = tokenize(tool.name);
	const nameWords = analyzeTokens(nameTokens);
	// The summary read in two parts: its first sentence, then the rest (the lead field is the first part's words).
	const summary = summaryEnd(tool.description);
	const leadEnd = firstSentenceEnd(tool.description, summary);
	const description = analyzeInto(tool.description, [], leadEnd);
	const leadLength = description.length;
	if (leadEnd < summary) analyzeInto(tool.description, description, summary, leadEnd);
	// Its name's plurals marked ("list-events": event#pl), for a query that asks for many.
	const plurals = nameTokens.filter(isPlural).map((word) => pluralTerm(stem(word)));
	const named = tool.title ? analyzeInto(tool.title, [...nameWords]) : nameWords;
	const fields: IndexedTool = {
		name: plurals.length > 0 ? [...named, ...plurals] : named,
		server: analyzeServer(tool.server),
		description,
		params: analyzeParams(tool.inputSchema),
		paramNotes: analyzeParamNotes(tool.inputSchema),
		lead: description.slice(0, leadLength),
		about,
	};
	return {
		fields,
		nameKey: nameTokens.join("_"),
		nameWords,
		// Most names hold no word of their server's: then the same array serves.
		ownNameWords: nameWords.some((word) => fields.server.includes(word))
			? nameWords.filter((word) => !fields.server.includes(word))
			: nameWords,
	};
}

/** Whether two listings of a tool are found by the same text (strings compare by reference first: cheap when unchanged). */
export function sameText(a: CatalogTool, b: CatalogTool): boolean {
	return (
		a.server === b.server &&
		a.name === b.name &&
		a.title === b.title &&
		a.description === b.description &&
		// The same schema object (a catalog rebuilt around an unchanged server) needs no second look.
		(a.inputSchema === b.inputSchema || paramText(a.inputSchema) === paramText(b.inputSchema))
	);
}

type Properties = Record<string, { description?: unknown; enum?: unknown[]; items?: { enum?: unknown[] } } | undefined>;

/** What of a schema is searched: parameter names and the values an enum allows (jira's action: create, transition, ...). */
function paramWords(schema: Record<string, unknown>, add: (text: string) => void): void {
	const properties = (schema.properties ?? {}) as Properties;
	for (const [name, property] of Object.entries(properties)) {
		add(name);
		const values = property?.enum ?? property?.items?.enum;
		if (!Array.isArray(values)) continue;
		for (const value of values.slice(0, ENUM_VALUES)) if (typeof value === "string") add(value);
	}
}
const ENUM_VALUES = 30;

/** A schema's searched words, analyzed (each part on its own: the same words as their text joined by spaces). */
function analyzeParams(schema: Record<string, unknown>): string[] {
	const out: string[] = [];
	paramWords(schema, (text) => analyzeInto(text, out));
	return out;
}

/** How much of a parameter's description is read: its first words say what the parameter is. */
const NOTE_CHARS = 60;

/**
 * Where a note's examples start ("e.g. patch, rollout"; "(for undo subcommand)"; "for example"),
 * often other tools' words, looked for within the part read; the note's length when none.
 */
function examplesAt(note: string): number {
	const end = Math.min(note.length, NOTE_CHARS + 1);
	for (let i = 0; i < end; i++) {
		const code = note.charCodeAt(i);
		if (code === 40) return i; // "("
		if (i > 0 && isLetter(note.charCodeAt(i - 1))) continue; // only at a word's start
		const c = code | 32; // lowercase
		if (c === 101 && note.startsWith(".g.", i + 1)) return i;
		if (c === 102 && note.slice(i, i + 11).toLowerCase() === "for example") return i;
	}
	return note.length;
}

/** The head of each parameter's description, each cut at a word's end within NOTE_CHARS. */
function paramNotes(schema: Record<string, unknown>, add: (text: string, end: number) => void): void {
	const properties = (schema.properties ?? {}) as Properties;
	for (const property of Object.values(properties)) {
		const note = property?.description;
		if (typeof note !== "string" || note === "") continue;
		const head = examplesAt(note);
		const cut = head <= NOTE_CHARS ? head : note.lastIndexOf(" ", NOTE_CHARS);
		if (cut !== 0) add(note, cut > 0 ? cut : NOTE_CHARS);
	}
}

function analyzeParamNotes(schema: Record<string, unknown>): string[] {
	const out: string[] = [];
	paramNotes(schema, (text, end) => analyzeInto(text, out, end));
	return out;
}

/** A schema's searched words as one text, to compare two listings of a tool. */
function paramText(schema: Record<string, unknown>): string {
	const parts: string[] = [];
	paramWords(schema, (text) => parts.push(text));
	paramNotes(schema, (text, end) => parts.push(text.slice(0, end)));
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

/** How much of a description is read: its first characters, whitespace runs counted as one space. */
const DESCRIPTION_CHARS = 300;

/**
 * Where the part of a description that says what the tool does ends: its first 300 characters
 * with whitespace collapsed (as `.replace(/\s+/g, " ").trim()`), cut at the last space within
 * them (at 300 when there is none). Long descriptions (some run to pages of usage notes) would
 * otherwise match every query through their sheer number of words. Counted on the text as it is,
 * reading no further than needed: the words before that point are the summary's words.
 */
export function summaryEnd(text: string): number {
	let flat = 0; // characters of the collapsed text so far
	let lastSpace = -1; // where, in the text, the run of whitespace behind the last collapsed space began
	let run = -1; // where the run of whitespace being read began
	for (let i = 0; i < text.length; i++) {
		if (isSpace(text.charCodeAt(i))) {
			if (run < 0) run = i;
			continue;
		}
		if (run >= 0 && flat > 0) {
			if (flat === DESCRIPTION_CHARS) return run; // the collapsed space is the 301st character: cut there
			lastSpace = run;
			flat++;
		}
		run = -1;
		if (flat === DESCRIPTION_CHARS) return lastSpace >= 0 ? lastSpace : i;
		flat++;
	}
	return text.length;
}

/** What `\s` and `trim()` count as whitespace (ECMAScript's WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
	if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
	if (c < 160) return false;
	return (
		c === 160 ||
		c === 0x1680 ||
		(c >= 0x2000 && c <= 0x200a) ||
		c === 0x2028 ||
		c === 0x2029 ||
		c === 0x202f ||
		c === 0x205f ||
		c === 0x3000 ||
		c === 0xfeff
	);
}

/** Where a description's first sentence ends within its summary: at a stop before a space or the end, or a line's end. */
function firstSentenceEnd(text: string, summary: number): number {
	for (let i = 0; i < summary; i++) {
		const c = text.charCodeAt(i);
		if (c === 10) return i;
		if ((c === 46 || c === 33 || c === 63) && (i + 1 === text.length || isSpace(text.charCodeAt(i + 1)))) return i;
	}
	return summary;
}
