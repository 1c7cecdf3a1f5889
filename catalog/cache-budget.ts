// How much of the metadata cache one server's listing may take, and the cache as a whole. The cache
// is read at every start; one server listing 400 tools with schemas of thousands of values (within
// safeSchema's bounds, each) made it 23.8 MB, past the 16 MB a file may have, and every start then
// set it aside and started every server again. So a listing is fitted to its share before it is
// kept (long tools shortened first, then the last items left out), and a cache past its cap loses
// its oldest entries; each cut is named, for /mcp to say. Real listings are far below both: the
// largest of 35 public servers' is 258 KB (linear, 198 tools), its largest tool 13 KB (mongodb).
import { asciiJson } from "../storage/file-guard.ts";

/** What one server may take in the cache: 8 times the largest real listing. */
export const MAX_ENTRY_BYTES = 2 * 1024 * 1024;
/** What the whole cache may take: half the 16 MB any file may have, so it is always read. */
export const MAX_CACHE_BYTES = 8 * 1024 * 1024;
/** A tool is not shortened below this: its name, the start of its description, its arguments' names and types. */
const MIN_TOOL_BYTES = 2 * 1024;
const SHORT_DESCRIPTION = 1_000;
const SHORT_INSTRUCTIONS = 2_000;

type Schema = { readonly [key: string]: unknown };
interface ListedTool {
	readonly name: string;
	readonly description: string;
	readonly inputSchema: Schema;
}
/** The parts of a cached listing that can be cut (metadata-cache.ts's CachedServer). */
export interface Listing {
	readonly name: string;
	readonly cachedAt: number;
	readonly tools: readonly ListedTool[];
	readonly resources: readonly unknown[];
	readonly templates: readonly unknown[];
	readonly prompts: readonly unknown[];
	readonly instructions?: string;
}

/** How many bytes a value takes in the cache file (written compact, ASCII only). */
export function cacheBytes(value: unknown): number {
	return asciiJson(value).length;
}

/** The listing cut to `maxBytes`, and what was cut, in words (undefined when it fits as it is). */
export function fitListing<T extends Listing>(entry: T, maxBytes = MAX_ENTRY_BYTES): { entry: T; cut?: string } {
	const size = cacheBytes(entry);
	if (size <= maxBytes) return { entry };
	// Each tool's share of three quarters of the budget (the rest for resources, prompts and the like).
	const share = Math.max(MIN_TOOL_BYTES, Math.floor((maxBytes * 0.75) / Math.max(1, entry.tools.length)));
	let shortened = 0;
	const tools = entry.tools.map((tool) => {
		if (cacheBytes(tool) <= share) return tool;
		shortened++;
		return shortenTool(tool, share);
	});
	const instructions = clip(entry.instructions, SHORT_INSTRUCTIONS);
	const lists = {
		resources: [...entry.resources],
		templates: [...entry.templates],
		prompts: [...entry.prompts],
		tools,
	};
	// Still over: the last items go, resources first, tools last.
	let total = cacheBytes({ ...entry, ...lists, instructions });
	let left = 0;
	for (const list of ["resources", "templates", "prompts", "tools"] as const) {
		const items: unknown[] = lists[list];
		while (total > maxBytes && items.length > 0) {
			total -= cacheBytes(items.pop()) + 1;
			left++;
		}
	}
	const fitted = { ...entry, ...lists, instructions };
	const what = [shortened > 0 ? `${shortened} tools shortened` : "", left > 0 ? `${left} items left out` : ""];
	return {
		entry: fitted,
		cut: `${entry.name}'s listing (${mb(size)} MB) is over the ${mb(maxBytes)} MB a server may take in the tool-list cache: ${what.filter(Boolean).join(", ") || "instructions shortened"}; the whole listing is used while it runs`,
	};
}

/**
 * Fits a whole cache (`servers` by key, changed in place) to `maxBytes`: an entry over its own
 * share is fitted first (a cache written before entries had one), then the oldest entries go.
 * Returns what was cut, in words.
 */
export function trimCache<T extends Listing>(servers: Record<string, T>, maxBytes = MAX_CACHE_BYTES): string[] {
	const said: string[] = [];
	const sizes = new Map<string, number>();
	for (const [key, entry] of Object.entries(servers)) {
		const fitted = fitListing(entry);
		if (fitted.cut) said.push(fitted.cut);
		servers[key] = fitted.entry;
		sizes.set(key, cacheBytes(fitted.entry));
	}
	let total = [...sizes.values()].reduce((sum, size) => sum + size, 0);
	if (total <= maxBytes) return said;
	const dropped: string[] = [];
	for (const key of Object.keys(servers).sort((a, b) => servers[a].cachedAt - servers[b].cachedAt)) {
		if (total <= maxBytes) break;
		total -= sizes.get(key) ?? 0;
		dropped.push(servers[key].name);
		delete servers[key];
	}
	said.push(
		`The tool-list cache is over its ${mb(maxBytes)} MB: the oldest entries were left out (${dropped.join(", ")}); those servers start once to list their tools again`,
	);
	return said;
}

/**
 * A tool within `share` bytes: its description shortened, then its output schema left out (a
 * script reads its result as any value), then its schema down to its arguments' names and types,
 * then to any object.
 */
function shortenTool<T extends ListedTool>(tool: T, share: number): T {
	const short = { ...tool, description: clip(tool.description, SHORT_DESCRIPTION) ?? "" };
	if (cacheBytes(short) <= share) return short;
	const bare = { ...short, outputSchema: undefined };
	if (cacheBytes(bare) <= share) return bare;
	const outlined = { ...bare, inputSchema: outline(tool.inputSchema) };
	if (cacheBytes(outlined) <= share) return outlined;
	return { ...bare, description: clip(tool.description, 200) ?? "", inputSchema: { type: "object" } };
}

/** An object schema with only its arguments' names, types and which are required. */
function outline(schema: Schema): Schema {
	const properties = typeof schema.properties === "object" && schema.properties !== null ? schema.properties : {};
	const typeOf = (sub: unknown) => {
		const type = (sub as Schema | null)?.type;
		return typeof type === "string" || (Array.isArray(type) && type.every((t) => typeof t === "string"))
			? { type }
			: {};
	};
	return {
		type: "object",
		properties: Object.fromEntries(Object.entries(properties).map(([name, sub]) => [name, typeOf(sub)])),
		...(Array.isArray(schema.required) ? { required: schema.required.filter((r) => typeof r === "string") } : {}),
	};
}

function clip(text: string | undefined, chars: number): string | undefined {
	return text === undefined || text.length <= chars ? text : `${text.slice(0, chars - 3)}...`;
}

function mb(bytes: number): string {
	return (bytes / 1024 / 1024).toFixed(1);
}
