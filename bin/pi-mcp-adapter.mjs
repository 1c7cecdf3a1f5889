#!/usr/bin/env node
// Runs cli.ts through tsx, resolved from this package, so the bin works from any directory.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../cli.ts");
process.exit(await main(process.argv.slice(2)));
