// `npm run lint`'s own rules (after biome and madge): the code's shape, the layers, and
// ARCHITECTURE.md's generated tables matching the code. Prints each problem with its rule and fix.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyse } from "./analysis.ts";
import { DOC, staleBlocks } from "./architecture-doc.ts";
import { shapeProblems } from "./code-shape.ts";
import { LAYERS, UPWARD } from "./layer-rule.ts";
import { layerProblems } from "./layers.ts";
import { formatProblems, type Problem } from "./problem.ts";
import { ROOT, readSources } from "./source-files.ts";

const sources = readSources();
const { imports, units, blocks } = analyse(sources);
const problems: Problem[] = [
	...shapeProblems(sources),
	...layerProblems(imports, LAYERS, UPWARD, units),
	...staleBlocks(readFileSync(join(ROOT, DOC), "utf8"), blocks),
];
// A lint that reads nothing passes: say so rather than pass.
if (sources.length < 100 || imports.length < 100)
	throw new Error(
		`read ${sources.length} modules and ${imports.length} imports: is scripts/lint/source-files.ts reading the package?`,
	);
if (problems.length) {
	console.error(formatProblems(problems));
	console.error(`\n${problems.length} problem(s) (scripts/lint)`);
	process.exitCode = 1;
} else
	console.log(
		`scripts/lint: ${sources.length} modules, ${imports.length} imports: shape, layers and ${DOC}'s tables ok`,
	);
