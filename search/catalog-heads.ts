// What a catalog's own tool names say, kept per server as the index changes: the words that start
// many of them (the catalog's actions: get, list, create...: beside an object they weigh less) and
// the first words of the tools its servers mark as changing things (a request that starts with
// one asks to change something: search/tool-index.ts ranks a tool marked read-only lower).

/** One server's part: the first word of each of its tool names, and of each marked tool whether it changes things. */
export interface ServerHeads {
	readonly heads: readonly string[];
	/** Per tool its server marks (`readOnlyHint`): the first word of its own name, and whether it changes things. */
	readonly marked: readonly (readonly [head: string, changes: boolean])[];
}

/** First words of at least 3 marked tools, this share of which change things, ask to change. */
const CHANGING_SHARE = 0.8;

export class CatalogHeads {
	/** How many tool names each first word starts, over every server (a name's first word after its server's shared prefix). */
	private readonly headCounts = new Map<string, number>();
	/** Per first word of a tool's own name, how many marked tools read and how many change things. */
	private readonly markedCounts = new Map<string, [reads: number, changes: number]>();
	/** Stemmed words that start many tool names: the catalog's actions (get, list, create...). */
	actions: ReadonlySet<string> = new Set();
	/** First words whose marked tools nearly all change things (create, delete, update...): a request to change. */
	changing: ReadonlySet<string> = new Set();

	/** A server's part counted in place of its old one (none: it is new, or it left). */
	replace(old: ServerHeads | undefined, now: ServerHeads | undefined): void {
		for (const [head, changes] of old?.marked ?? []) this.countMarked(head, changes, -1);
		for (const [head, changes] of now?.marked ?? []) this.countMarked(head, changes, 1);
		for (const head of old?.heads ?? []) {
			const n = (this.headCounts.get(head) ?? 0) - 1;
			if (n > 0) this.headCounts.set(head, n);
			else this.headCounts.delete(head);
		}
		for (const head of now?.heads ?? []) this.headCounts.set(head, (this.headCounts.get(head) ?? 0) + 1);
	}

	/** Reads the actions and the requests to change again, over `live` tools. */
	settle(live: number): void {
		// The words that start at least 1% of all tool names (and 3).
		const least = Math.max(3, live / 100);
		this.actions = new Set([...this.headCounts].filter(([, n]) => n >= least).map(([word]) => word));
		this.changing = new Set(
			[...this.markedCounts]
				.filter(([, [reads, changes]]) => reads + changes >= 3 && changes >= CHANGING_SHARE * (reads + changes))
				.map(([head]) => head),
		);
	}

	private countMarked(head: string, changes: boolean, by: 1 | -1): void {
		const counts = this.markedCounts.get(head) ?? [0, 0];
		counts[changes ? 1 : 0] += by;
		if (counts[0] + counts[1] > 0) this.markedCounts.set(head, counts);
		else this.markedCounts.delete(head);
	}
}

/** The first word of each of a server's tool names, after the prefix most of them share. */
export function serverHeads(names: readonly (readonly string[])[]): string[] {
	const counts = new Map<string, number>();
	for (const words of names) if (words.length > 1) counts.set(words[0], (counts.get(words[0]) ?? 0) + 1);
	const [top, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
	const prefix = n >= 2 && n > names.length / 2 ? top : undefined;
	return names
		.map((words) => (words.length > 1 && words[0] === prefix ? words[1] : words[0]))
		.filter((head) => head !== undefined && head !== "");
}
