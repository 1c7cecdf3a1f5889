// `npm pack` builds what it packs (package.json's prepack runs scripts/build.ts): a source changed
// since the last build, or a dist/ an older build left, never reaches a tarball. Packed from a copy
// of the working tree (what a clone holds) with this project's node_modules, as a maintainer packs.
// What Pi's start loads from the build imports no dependency, as the sources' start does not.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, tempDir } from "../support/helpers.ts";
import { copyWorkingTree } from "../support/local-registry.ts";

/** The packages (not Node's own modules) that loading `entry` imports, through every static import of the files it loads. */
function dependenciesLoadedWith(entry: string, seen = new Set<string>()): string[] {
	if (seen.has(entry)) return [];
	seen.add(entry);
	const specifiers = [
		...readFileSync(entry, "utf8").matchAll(/^(?:import|export)\s[^;]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gms),
	].map((match) => match[1] ?? match[2]);
	return specifiers.flatMap((specifier) =>
		specifier.startsWith(".")
			? dependenciesLoadedWith(join(dirname(entry), specifier), seen)
			: specifier.startsWith("node:")
				? []
				: [specifier],
	);
}

describe("npm pack", () => {
	it("packs a build of the sources as they are, not what an older build left in dist/", () => {
		const dir = tempDir("pi-mcp-pack-");
		try {
			const tree = join(dir.path, "tree");
			copyWorkingTree(tree);
			symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"), "dir");
			writeFileSync(join(tree, "dist", "index.js"), 'export default () => { throw new Error("an older build"); };\n');
			writeFileSync(join(tree, "dist", "chunk-OLDER.js"), "export {};\n");
			// A change to the sources since that build.
			const changed = `changed since the last build ${process.pid}`;
			appendFileSync(join(tree, "index.ts"), `\nexport const PACK_PROBE = ${JSON.stringify(changed)};\n`);

			const tarball = execFileSync("npm", ["pack", "--pack-destination", dir.path, "--silent"], {
				cwd: tree,
				encoding: "utf8",
				stdio: ["ignore", "pipe", "pipe"],
			})
				.trim()
				.split("\n")
				.pop() as string;
			const out = join(dir.path, "out");
			mkdirSync(out);
			execFileSync("tar", ["xzf", join(dir.path, tarball), "-C", out]);
			const dist = join(out, "package", "dist");
			const entry = readFileSync(join(dist, "index.js"), "utf8");
			expect(entry).toContain(changed);
			expect(entry).not.toContain("an older build");
			expect(readdirSync(dist)).not.toContain("chunk-OLDER.js");
			// Pi's entry in a clone (it would load the sources) is not packed.
			expect(readdirSync(dist).filter((name) => !name.endsWith(".js"))).toEqual([]);
			// What Pi's start loads imports no dependency: a copy missing them still loads, and says so
			// with the fix (pi/dependency-check.ts), instead of failing on an import.
			expect(dependenciesLoadedWith(join(dist, "index.js"))).toEqual([]);
		} finally {
			dir.remove();
		}
	}, 120_000);
});
