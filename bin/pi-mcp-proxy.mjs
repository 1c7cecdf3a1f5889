#!/usr/bin/env node
// The shell command: runs cli.ts (or the shared-server broker) through jiti, the TypeScript loader
// both Pi lines load the extension with, on Node 20 and 22 alike; resolved from this package, so it
// works from any directory. Outside Pi nothing lends the package TypeBox: its schemas are built by
// bin/typebox-lite.ts. Missing dependencies are said in one line first, with the command that fixes it.
import { missingDependencies, missingDependenciesLine, PACKAGE_ROOT } from "./dependencies.mjs";

const missing = missingDependencies();
if (missing.length > 0) {
	process.stderr.write(`${missingDependenciesLine(missing)}\n`);
	process.exit(1);
}
const { createJiti } = await import("jiti");
const jiti = createJiti(import.meta.url, {
	alias: { "@sinclair/typebox": `${PACKAGE_ROOT}/bin/typebox-lite.ts` },
});
// The shared-server broker, started detached by a session (broker/client.ts): loads only what it needs.
if (process.argv[2] === "__broker" && process.argv[3]) {
	const { runBroker } = await jiti.import(`${PACKAGE_ROOT}/broker/broker.ts`);
	process.exit(await runBroker(process.argv[3]));
}
const { main } = await jiti.import(`${PACKAGE_ROOT}/cli.ts`);
process.exit(await main(process.argv.slice(2)));
