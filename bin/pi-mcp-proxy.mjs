#!/usr/bin/env node
// The shell command: runs the CLI (or the shared-server broker), resolved from this package, so it
// works from any directory. A package `npm pack` made runs its built JavaScript (dist/, Node loads
// it as it is; scripts/build.ts). A clone has the sources and runs them, through jiti, the loader
// both Pi lines load the extension with, on Node 20 and 22 alike (compiled once, then from jiti's
// cache). Outside Pi nothing lends the package TypeBox: its schemas are built by bin/typebox-lite.ts
// (the build bundles it). Missing dependencies are said in one line first, with the command that fixes it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { missingDependencies, missingDependenciesLine, PACKAGE_ROOT } from "./dependencies.mjs";

const missing = missingDependencies();
if (missing.length > 0) {
	process.stderr.write(`${missingDependenciesLine(missing)}\n`);
	process.exit(1);
}
/** A clone: the sources are here (a package has only dist/). */
const fromSources = existsSync(join(PACKAGE_ROOT, "cli.ts"));
/** Loads `source` (a clone) or the build of it (a package): `dist/<built>.js`. */
async function load(source, built) {
	if (!fromSources) return import(pathToFileURL(join(PACKAGE_ROOT, "dist", `${built}.js`)).href);
	const { createJiti } = await import("jiti");
	const jiti = createJiti(import.meta.url, {
		alias: { "@sinclair/typebox": join(PACKAGE_ROOT, "bin", "typebox-lite.ts") },
	});
	return jiti.import(join(PACKAGE_ROOT, source));
}
// The shared-server broker, started detached by a session (broker/client.ts): loads only what it needs.
if (process.argv[2] === "__broker" && process.argv[3]) {
	const { runBroker } = await load("broker/broker.ts", "broker");
	process.exit(await runBroker(process.argv[3]));
}
const { main } = await load("cli.ts", "cli");
process.exit(await main(process.argv.slice(2)));
