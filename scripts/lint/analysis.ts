// What `npm run lint` and `npm run deps` read from the package: its modules parsed once, their
// imports (a module's own import() calls are its lazy loads), its units, and the blocks ARCHITECTURE.md holds.
import { type Block, dependenciesBlock, layersBlock } from "./architecture-doc.ts";
import { type Import, importsOf } from "./imports.ts";
import { LAYERS, UPWARD } from "./layer-rule.ts";
import { dependenciesOf, unitOf } from "./layers.ts";
import type { Source } from "./source-files.ts";

export interface Analysis {
	readonly imports: readonly Import[];
	readonly units: readonly string[];
	/** What ARCHITECTURE.md's generated tables say. */
	readonly blocks: readonly Block[];
}

export function analyse(sources: readonly Source[]): Analysis {
	const units = [...new Set(sources.map((s) => s.file).map(unitOf))];
	const imports = sources.flatMap((s) => importsOf(s));
	const blocks = [layersBlock(LAYERS, UPWARD), dependenciesBlock(dependenciesOf(imports, units))];
	return { imports, units, blocks };
}
