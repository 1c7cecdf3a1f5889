// The package's own source files, as the shape and layer tests read them.
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");
/**
 * Not the package: tests, benchmarks, scripts and data may import and do anything; dist/ is the
 * build of the package's modules and a clone's entry for Pi (one re-export of index.ts).
 */
const OUTSIDE = new Set(["node_modules", "tests", "bench", "scripts", "data", "scratch", "dist", "vitest.config.mts"]);

/** Every file of the package whose name `kind` matches, relative to the root, with forward slashes. */
export function packageFiles(kind: RegExp, dir = ROOT): string[] {
	const files: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		if (entry.name.startsWith(".") || (dir === ROOT && OUTSIDE.has(entry.name))) continue;
		const path = join(dir, entry.name);
		if (entry.isDirectory()) files.push(...packageFiles(kind, path));
		else if (kind.test(entry.name)) files.push(relative(ROOT, path).split("\\").join("/"));
	}
	return files;
}
