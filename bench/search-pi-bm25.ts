// Pi's own tool search, the baseline the public sets measure this package's engine against: the
// BM25 ranker of Pi 1.5.2's tool_search and codemode searchTools() (dist/extensions/tool-search/
// tool.js, the same file in Pi 1.6.0; MIT), ported line for line so that it runs in this process
// over the same tools: Pi's package cannot be imported outside Pi (its workspace packages are
// bundled). Only `resolveSchemaRef` (local `#/...` references) is written here.

/** What Pi indexes of a tool: its name (`mcp__<server>__<tool>`), description, parameters and namespace. */
export interface PiTool {
	readonly name: string;
	readonly description: string;
	readonly parameters: unknown;
	readonly namespace?: { readonly name: string; readonly description?: string; readonly instructions?: string };
}

const wordSegmenter = new Intl.Segmenter(undefined, { granularity: "word" });
const STOP_WORDS = new Set("a an and are as at be by for from in is it of on or that the this to with".split(" "));

function stem(term: string): string {
	if (term.length > 4 && term.endsWith("ies")) return `${term.slice(0, -3)}y`;
	if (term.length > 4 && /(ches|shes|sses|xes|zes)$/.test(term)) return term.slice(0, -2);
	if (term.length > 3 && term.endsWith("s") && !term.endsWith("ss")) return term.slice(0, -1);
	return term;
}

export function piTokenize(text: string): string[] {
	const normalized = text
		.normalize("NFC")
		.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
		.replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}]+/gu, " ");
	const words = /^[a-z0-9 ]*$/.test(normalized)
		? normalized.split(" ")
		: Array.from(wordSegmenter.segment(normalized), (segment) => (segment.isWordLike ? segment.segment : ""));
	return words
		.filter((word) => word.length > 0 && !STOP_WORDS.has(word))
		.map((word) => (/^[a-z0-9]+$/.test(word) ? stem(word) : word));
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
	typeof value === "object" && value !== null && !Array.isArray(value);

function resolveSchemaRef(ref: string, root: unknown): unknown {
	if (!ref.startsWith("#/")) return undefined;
	let at: unknown = root;
	for (const part of ref.slice(2).split("/")) {
		if (!isObject(at)) return undefined;
		at = at[part.replace(/~1/g, "/").replace(/~0/g, "~")];
	}
	return at;
}

function schemaText(schema: unknown, root: unknown, parts: string[], seen: Set<unknown>): void {
	if (!isObject(schema)) return;
	if (typeof schema.$ref === "string") {
		const target = resolveSchemaRef(schema.$ref, root);
		if (isObject(target) && !seen.has(target)) {
			seen.add(target);
			schemaText(target, root, parts, seen);
		}
	}
	if (typeof schema.description === "string") parts.push(schema.description);
	if (isObject(schema.properties)) {
		for (const [name, property] of Object.entries(schema.properties)) {
			parts.push(name);
			schemaText(property, root, parts, seen);
		}
	}
	schemaText(schema.items, root, parts, seen);
	for (const key of ["anyOf", "oneOf", "allOf"]) {
		const variants = schema[key];
		if (Array.isArray(variants)) for (const variant of variants) schemaText(variant, root, parts, seen);
	}
}

function normalizeName(name: string): string {
	return name
		.trim()
		.toLowerCase()
		.replace(/[^a-z0-9_$]/g, "_");
}

function isExactNameQuery(query: string, name: string): boolean {
	const normalized = normalizeName(name);
	return normalized === query || normalized.endsWith(`__${query}`);
}

interface Indexed {
	name: string;
	nameTerms: Set<string>;
	localNameTerms: string[];
	textCounts: Map<string, number>;
	textLength: number;
	namespaceTerms: Set<string>;
}

function indexTool(tool: PiTool): Indexed {
	const parts = [tool.description];
	schemaText(tool.parameters, tool.parameters, parts, new Set([tool.parameters]));
	const text = parts.filter((part) => part.trim()).join(" ");
	const ns = tool.namespace;
	const namespaceText = ns ? [ns.name, ns.description ?? "", ns.instructions ?? ""].join(" ") : "";
	const textCounts = new Map<string, number>();
	for (const term of piTokenize(text)) textCounts.set(term, (textCounts.get(term) ?? 0) + 1);
	const segments = tool.name.split("__");
	return {
		name: tool.name,
		nameTerms: new Set(piTokenize(tool.name)),
		localNameTerms: [...new Set(piTokenize(segments[segments.length - 1]))],
		textCounts,
		textLength: [...textCounts.values()].reduce((sum, count) => sum + count, 0),
		namespaceTerms: new Set(piTokenize(namespaceText)),
	};
}

const NAME_WEIGHT = 3;
const NAMESPACE_WEIGHT = 0.5;
const K1 = 1.2;
const B = 0.75;

/** Pi's `Bm25Ranker`, its documents indexed once for many queries (Pi indexes them at each search: the same ranking). */
export class PiBm25 {
	private readonly indexed: Indexed[];
	private readonly averageLength: number;

	constructor(tools: readonly PiTool[]) {
		this.indexed = tools.map(indexTool);
		this.averageLength = this.indexed.reduce((sum, d) => sum + d.textLength, 0) / this.indexed.length || 1;
	}

	rank(query: string, limit: number): string[] {
		const queryTerms = new Set(piTokenize(query));
		if (queryTerms.size === 0 || this.indexed.length === 0 || limit <= 0) return [];
		const n = this.indexed.length;
		const idf = new Map(
			[...queryTerms].map((term) => {
				const frequency = this.indexed.filter(
					(d) => d.nameTerms.has(term) || d.textCounts.has(term) || d.namespaceTerms.has(term),
				).length;
				return [term, Math.log(1 + (n - frequency + 0.5) / (frequency + 0.5))];
			}),
		);
		const fullNameBonus = [...idf.values()].reduce((sum, value) => sum + value, 0);
		const exactQuery = normalizeName(query);
		const matches: { name: string; score: number; covered: number; exact: boolean }[] = [];
		for (const d of this.indexed) {
			const norm = K1 * (1 - B + (B * d.textLength) / this.averageLength);
			let score = 0;
			let covered = 0;
			for (const term of queryTerms) {
				const count = d.textCounts.get(term) ?? 0;
				const weight =
					(d.nameTerms.has(term) ? NAME_WEIGHT : 0) +
					(d.namespaceTerms.has(term) ? NAMESPACE_WEIGHT : 0) +
					(count * (K1 + 1)) / (count + norm);
				if (weight > 0) covered++;
				score += (idf.get(term) ?? 0) * weight;
			}
			if (score === 0) continue;
			if (d.localNameTerms.length > 0 && d.localNameTerms.every((term) => queryTerms.has(term))) score += fullNameBonus;
			matches.push({ name: d.name, score, covered, exact: isExactNameQuery(exactQuery, d.name) });
		}
		return matches
			.sort((a, b) => Number(b.exact) - Number(a.exact) || b.covered - a.covered || b.score - a.score)
			.slice(0, limit)
			.map((m) => m.name);
	}
}
