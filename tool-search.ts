// Ranked tool search. Words are OR'd; a word matching the tool's name counts more than one
// matching its server, which counts more than one in its description. `regex` matches the
// pattern against names and descriptions instead.
import type { CatalogTool } from "./tool-catalog.ts";

export interface SearchOptions {
	readonly regex?: boolean;
	readonly server?: string;
	readonly limit?: number;
}

export interface SearchHit {
	readonly tool: CatalogTool;
	readonly score: number;
}

/** Lowercase word pieces of a name or text: `createIssue`, `create_issue`, `create-issue` → create, issue. */
export function tokenize(text: string): string[] {
	return text
		.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
		.replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter((t) => t.length > 0);
}

export function searchTools(tools: readonly CatalogTool[], query: string, options: SearchOptions = {}): SearchHit[] {
	const pool = options.server ? tools.filter((t) => t.server === options.server) : tools;
	const score = options.regex ? regexScorer(query) : wordScorer(query);
	const hits: SearchHit[] = [];
	for (const tool of pool) {
		const s = score(tool);
		if (s > 0) hits.push({ tool, score: s });
	}
	hits.sort((a, b) => b.score - a.score || a.tool.qualifiedName.localeCompare(b.tool.qualifiedName));
	return options.limit ? hits.slice(0, options.limit) : hits;
}

/** Throws a clear error for a pattern that does not compile. */
function regexScorer(pattern: string): (tool: CatalogTool) => number {
	let re: RegExp;
	try {
		re = new RegExp(pattern, "i");
	} catch (error) {
		throw new Error(`Invalid regex ${JSON.stringify(pattern)}: ${(error as Error).message}. Fix the pattern, or drop regex: true to search by words.`);
	}
	return (tool) => (re.test(tool.qualifiedName) || re.test(tool.name) ? 10 : 0) + (re.test(tool.description) ? 2 : 0);
}

function wordScorer(query: string): (tool: CatalogTool) => number {
	const words = [...new Set(query.toLowerCase().split(/\s+/).filter(Boolean))];
	return (tool) => {
		const nameTokens = new Set(tokenize(tool.name));
		const nameText = tool.name.toLowerCase();
		const serverText = tool.server.toLowerCase();
		const descTokens = new Set(tokenize(tool.description));
		const descText = tool.description.toLowerCase();
		let total = 0;
		for (const word of words) {
			const parts = tokenize(word);
			if (nameText === word || tool.qualifiedName.toLowerCase() === word) total += 20;
			else if (parts.length > 0 && parts.every((p) => nameTokens.has(p))) total += 10;
			else if (nameText.includes(word)) total += 6;
			if (serverText === word || serverText.includes(word)) total += 3;
			if (parts.length > 0 && parts.every((p) => descTokens.has(p))) total += 2;
			else if (descText.includes(word)) total += 1;
		}
		return total;
	};
}
