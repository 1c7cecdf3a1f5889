// The real pi-subagents from npm (the version its users run), installed once under node_modules/.cache
// with the lock in tests/fixtures. Tests run its own code, never a copy of it.
import { join } from "node:path";
import { ROOT } from "./helpers.ts";
import { ensurePackage } from "./npm-package.ts";

export const PI_SUBAGENTS_VERSION = "0.67.0";

/** The installed package's folder (installed on first use). */
export function ensurePiSubagents(): string {
	const lock = join(ROOT, "tests", "fixtures", `pi-subagents-${PI_SUBAGENTS_VERSION}.package-lock.json`);
	return ensurePackage("pi-subagents", PI_SUBAGENTS_VERSION, lock);
}
