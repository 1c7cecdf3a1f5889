// The package as `npm pack` ships it (`prepack` runs this, so every tarball is built from the
// sources it is packed with): JavaScript that Node loads as it is, nothing compiled at a user's
// first start. Pi's loader (jiti) imports an ES module file itself, natively; TypeScript it
// compiles with Babel into the temp folder, 4-13 s at the first start after that folder was
// cleared (`npm run bench`: first start against the next). Three entry points share their code
// in chunks, all in one flat folder, dist/, one level down as every source folder is (modules
// find data/, bin/ and package.json at `..`):
//   dist/index.js   the extension (package.json "pi": ["./dist"]; in a clone, dist/index.ts,
//                   which Pi prefers and `npm pack` leaves out, loads the sources instead)
//   dist/cli.js     the shell command (bin/pi-mcp-proxy.mjs)
//   dist/broker.js  the shared-server broker (started by the shell command's `__broker`)
// TypeBox is the package's stand-in (bin/typebox-lite.ts, the same JSON Schema): Node, not Pi's
// loader, resolves the built code's imports, and Pi lends TypeBox only through its loader.
// Every file built is then imported by a plain Node, so a build Node cannot link fails here.
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = join(import.meta.dirname, "..");
export const DIST = join(ROOT, "dist");
/** What a clone keeps in dist/ (tracked): its entry for Pi, never packed. */
const KEPT = new Set(["index.ts"]);

/** Builds dist/ from the sources; returns the files written. */
export async function buildPackage(): Promise<string[]> {
	const result = await build({
		absWorkingDir: ROOT,
		entryPoints: { index: "index.ts", cli: "cli.ts", broker: "broker/broker.ts" },
		outdir: DIST,
		bundle: true,
		splitting: true,
		format: "esm",
		platform: "node",
		target: "node20.19",
		// Dependencies stay in node_modules, where an install puts them.
		packages: "external",
		alias: { "@sinclair/typebox": "./bin/typebox-lite.ts" },
		metafile: true,
		logLevel: "warning",
	});
	const written = new Set(Object.keys(result.metafile.outputs).map((file) => basename(file)));
	// Chunks of an earlier build whose code changed since: their names (content hashes) are not written again.
	for (const name of readdirSync(DIST)) if (!written.has(name) && !KEPT.has(name)) rmSync(join(DIST, name));
	return [...written].map((name) => join(DIST, name));
}

/** Imports every file in a fresh Node, as Pi's loader and the shell command do: throws what Node could not load. */
export function checkLoads(files: readonly string[]): void {
	const imports = files.map((file) => `await import(${JSON.stringify(pathToFileURL(file).href)});`).join("\n");
	execFileSync(process.execPath, ["--input-type=module", "-e", imports], { stdio: ["ignore", "ignore", "pipe"] });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
	const files = await buildPackage();
	checkLoads(files);
	// On stderr: `npm pack --json` prints its answer on stdout, after this.
	console.error(`dist/: ${files.length} files built`);
}
