// The layers point one way: every module's relative imports checked against the layer rule
// (scripts/lint/layer-rule.ts), and what each unit imports, for ARCHITECTURE.md's dependency table.
import type { Import } from "./imports.ts";
import type { LayerRow, UpwardImport } from "./layer-rule.ts";
import { type Problem, problem } from "./problem.ts";

const RULE_FILE = "scripts/lint/layer-rule.ts";

/** A file's unit: its top folder (`proxy/`), or the root module itself (`lifecycle.ts`). */
export function unitOf(file: string): string {
	const slash = file.indexOf("/");
	return slash === -1 ? file : `${file.slice(0, slash)}/`;
}

const ROW = {
	rule: "every folder and root module has one row in the layer rule",
	fix: `add it to LAYERS in ${RULE_FILE} (above what it imports, below what imports it), then run \`npm run deps\``,
};
const POINTS_DOWN = {
	rule: "a module imports its own unit and units of its layer or below, never above",
	fix: `move what it needs down to a lower layer, or hand it in from above (an argument, a callback); only if neither can be, name the import in UPWARD in ${RULE_FILE} with its reason`,
};
const NO_PAIR = {
	rule: "no two units import each other",
	fix: "move what both need into the lower of the two (or a unit below both), so that only one imports the other",
};
const UPWARD_NAMED = {
	rule: `UPWARD in ${RULE_FILE} names at most one upward import, and only one the code makes`,
	fix: `remove from UPWARD what the code no longer imports; with two, move one of them down`,
};

/** Each unit's layer; a unit named on two rows is a problem. */
export function ranks(rows: readonly LayerRow[]): { rank: Map<string, number>; problems: Problem[] } {
	const rank = new Map<string, number>();
	const problems: Problem[] = [];
	for (const row of rows)
		for (const unit of row.units) {
			if (rank.has(unit))
				problems.push(problem(ROW, RULE_FILE, `${unit} is on layers ${rank.get(unit)} and ${row.layer}`));
			rank.set(unit, row.layer);
		}
	return { rank, problems };
}

/** What breaks the layers: units with no row, upward imports not named, pairs of units importing each other. */
export function layerProblems(
	imports: readonly Import[],
	rows: readonly LayerRow[],
	upward: readonly UpwardImport[],
	units: readonly string[],
): Problem[] {
	const { rank, problems } = ranks(rows);
	for (const unit of units) if (!rank.has(unit)) problems.push(problem(ROW, unit, "no row in the layer rule"));
	const edges = new Map<string, Import>();
	const used = new Set<UpwardImport>();
	for (const found of imports) {
		const [a, b] = [unitOf(found.from), unitOf(found.to)];
		if (a === b) continue;
		if (!edges.has(`${a} ${b}`)) edges.set(`${a} ${b}`, found);
		const [ra, rb] = [rank.get(a), rank.get(b)];
		if (ra === undefined || rb === undefined || rb <= ra) continue;
		const named = upward.find((u) => u.from === found.from && u.to === found.to);
		if (named) used.add(named);
		else
			problems.push(
				problem(POINTS_DOWN, `${found.from}:${found.line}`, `imports ${found.to} (layer ${rb}) from layer ${ra}`),
			);
	}
	for (const [edge, found] of edges) {
		const [a, b] = edge.split(" ");
		const back = edges.get(`${b} ${a}`);
		if (a < b && back)
			problems.push(
				problem(
					NO_PAIR,
					`${found.from}:${found.line}`,
					`${a} imports ${b} (here) and ${b} imports ${a} (${back.from}:${back.line})`,
				),
			);
	}
	if (upward.length > 1) problems.push(problem(UPWARD_NAMED, RULE_FILE, `${upward.length} upward imports named`));
	for (const named of upward)
		if (!used.has(named))
			problems.push(problem(UPWARD_NAMED, RULE_FILE, `${named.from} -> ${named.to} is named but not made`));
	return problems;
}

/** What one unit imports of other units, and what it only loads at first use. */
export interface Dependencies {
	readonly imports: readonly string[];
	readonly lazy: readonly string[];
}

/** Each unit's imports of other units (sorted), and those it only loads lazily: every unit of `units` has an entry. */
export function dependenciesOf(imports: readonly Import[], units: readonly string[]): Map<string, Dependencies> {
	const edges = new Map<string, { imports: Set<string>; lazy: Set<string> }>();
	for (const unit of units) edges.set(unit, { imports: new Set(), lazy: new Set() });
	for (const { from, to, lazy } of imports) {
		const [a, b] = [unitOf(from), unitOf(to)];
		const unit = edges.get(a);
		if (a === b || !unit) continue;
		(lazy ? unit.lazy : unit.imports).add(b);
	}
	const table = new Map<string, Dependencies>();
	for (const unit of [...edges.keys()].sort()) {
		const { imports, lazy } = edges.get(unit) ?? { imports: new Set<string>(), lazy: new Set<string>() };
		table.set(unit, { imports: [...imports].sort(), lazy: [...lazy].filter((u) => !imports.has(u)).sort() });
	}
	return table;
}
