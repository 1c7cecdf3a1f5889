#!/usr/bin/env node
// Runs cli.ts through tsx, resolved from this package, so the bin works from any directory.
// Inside Pi, `@sinclair/typebox` is Pi's own copy (Pi wants it as a peerDependency, which npm
// never installs for the package itself); outside Pi this command gets the copy the package
// installs under the alias `typebox-for-cli`, through a resolve hook.
import { register } from "node:module";
import { register as registerTsx } from "tsx/esm/api";

registerTsx();
// The shared-server broker, started detached by a session (broker-client.ts): loads only what it needs.
if (process.argv[2] === "__broker" && process.argv[3]) {
	const { runBroker } = await import("../broker/broker.ts");
	process.exit(await runBroker(process.argv[3]));
}
const hook = `
export async function resolve(specifier, context, next) {
	if (specifier === "@sinclair/typebox" || specifier.startsWith("@sinclair/typebox/")) {
		return next("typebox-for-cli" + specifier.slice("@sinclair/typebox".length), context);
	}
	return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, import.meta.url);
const { main } = await import("../cli.ts");
process.exit(await main(process.argv.slice(2)));
