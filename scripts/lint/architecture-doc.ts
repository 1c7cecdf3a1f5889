// ARCHITECTURE.md's two generated tables: the layer rule (from scripts/lint/layer-rule.ts) and
// what each unit imports (from the code), each between its markers. `npm run deps` writes them;
// `npm run lint` fails when the file's differ from what it would write.
import type { LayerRow, UpwardImport } from "./layer-rule.ts";
import type { Dependencies } from "./layers.ts";
import { type Problem, problem } from "./problem.ts";

export const DOC = "ARCHITECTURE.md";

/** A generated block: `<!-- name: ... -->` opens it, `<!-- end name -->` closes it. */
export interface Block {
	readonly name: string;
	/** What the opening marker says, after the name. */
	readonly source: string;
	readonly body: string;
}

const cells = (units: readonly string[]) => units.map((u) => `\`${u}\``).join(", ");

/** Rows padded to the widest cell of their column, under a header and its rule. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
	const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
	const line = (r: readonly string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
	return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

export function layersBlock(rows: readonly LayerRow[], upward: readonly UpwardImport[]): Block {
	const named = upward.map((u) => `- upward import: \`${u.from}\` -> \`${u.to}\`: ${u.why}`);
	const body = table(
		["layer", "folders and root modules", "why here"],
		rows.map((r) => [String(r.layer), cells(r.units), r.why]),
	);
	return {
		name: "layers",
		source: "written by `npm run deps` from scripts/lint/layer-rule.ts (edit that file, not this table)",
		body: [body, "", named.length ? named.join("\n") : "Upward imports named: none."].join("\n"),
	};
}

export function dependenciesBlock(table: ReadonlyMap<string, Dependencies>): Block {
	const rows = [...table].map(([unit, d]) => `| \`${unit}\` | ${cells(d.imports)} | ${cells(d.lazy)} |`);
	return {
		name: "dependencies",
		source: "written by `npm run deps` from the code's imports (do not edit by hand)",
		body: ["| unit | imports | loads only lazily |", "| ---- | ------- | ----------------- |", ...rows].join("\n"),
	};
}

/** Where a block sits in the document: the lines of its markers, or undefined without both. */
function markers(lines: readonly string[], name: string): { open: number; close: number } | undefined {
	const open = lines.findIndex((l) => l.startsWith(`<!-- ${name}: `));
	const close = lines.findIndex((l, i) => i > open && l.trim() === `<!-- end ${name} -->`);
	return open === -1 || close === -1 ? undefined : { open, close };
}

/** The document with each block's text between its markers replaced; a block with no markers is an error. */
export function writeBlocks(markdown: string, blocks: readonly Block[]): string {
	let lines = markdown.split("\n");
	for (const block of blocks) {
		const at = markers(lines, block.name);
		if (!at)
			throw new Error(
				`${DOC} has no "<!-- ${block.name}: ... -->" and "<!-- end ${block.name} -->" lines: put them where the ${block.name} table goes, then run \`npm run deps\` again`,
			);
		lines = [
			...lines.slice(0, at.open),
			`<!-- ${block.name}: ${block.source} -->`,
			block.body,
			...lines.slice(at.close),
		];
	}
	return lines.join("\n");
}

const GENERATED = {
	rule: `${DOC}'s layer and dependency tables are what \`npm run deps\` writes from the layer rule and the code`,
	fix: "run `npm run deps` (edit the layer rule in scripts/lint/layer-rule.ts, never the table) and commit the result",
};

/** Each block whose text in the document differs from what `npm run deps` writes: the rows that differ. */
export function staleBlocks(markdown: string, blocks: readonly Block[]): Problem[] {
	const found: Problem[] = [];
	const lines = markdown.split("\n");
	for (const block of blocks) {
		const at = markers(lines, block.name);
		if (!at) {
			found.push(
				problem(
					GENERATED,
					DOC,
					`no ${block.name} markers ("<!-- ${block.name}: ... -->" ... "<!-- end ${block.name} -->")`,
				),
			);
			continue;
		}
		const have = lines.slice(at.open + 1, at.close);
		if (have.join("\n") === block.body) continue;
		const want = block.body.split("\n");
		const rows = [
			...have.filter((l) => !want.includes(l)).map((l) => `\n    have: ${l}`),
			...want.filter((l) => !have.includes(l)).map((l) => `\n    want: ${l}`),
		];
		const what = rows.length
			? `the ${block.name} table differs:${rows.join("")}`
			: `the ${block.name} table's rows are out of order`;
		found.push(problem(GENERATED, `${DOC}:${at.open + 2}`, what));
	}
	return found;
}
