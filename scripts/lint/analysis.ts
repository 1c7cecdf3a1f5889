// What `npm run lint` and `npm run deps` read from the package: its modules parsed once, their
// imports (lazy.ts' loaders read as what they load), its units, and the blocks ARCHITECTURE.md holds.
import { type Block, dependenciesBlock, layersBlock } from "./architecture-doc.ts";
import { type Import, importsOf } from "./imports.ts";
import { LAYERS, UPWARD } from "./layer-rule.ts";
import { dependenciesOf, unitOf } from "./layers.ts";
import * as lazyHub from "./lazy-hub.ts";
import type { Problem } from "./problem.ts";
import type { Source } from "./source-files.ts";

export interface Analysis {
	readonly imports: readonly Import[];
	readonly units: readonly string[];
	/** What ARCHITECTURE.md's generated tables say. */
	readonly blocks: readonly Block[];
	/** Problems of the lazy-load hub (none once lazy.ts is gone). */
	readonly hubProblems: readonly Problem[];
}

export function analyse(sources: readonly Source[]): Analysis {
	const units = [...new Set(sources.map((s) => s.file).map(unitOf))];
	const imports = lazyHub.throughHub(
		sources,
		sources.flatMap((s) => importsOf(s)),
	); // lazy.ts
	const hubProblems = lazyHub.hubProblems(sources); // lazy.ts
	const tabled = imports.filter(lazyHub.inDependencyTable); // lazy.ts
	const blocks = [layersBlock(LAYERS, UPWARD), dependenciesBlock(dependenciesOf(tabled, units))];
	return { imports, units, blocks, hubProblems };
}
