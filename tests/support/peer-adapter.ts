// The other Pi MCP extension, pi-mcp-adapter 2.36.0 from npm, for side-by-side benchmarks on Pi 1.5.
// Installed once under node_modules/.cache from its tarball with a kept lock (every version pinned),
// without its dev and peer dependencies (Pi provides pi-ai, pi-tui and typebox to extensions).
import { join } from "node:path";
import { ROOT } from "./helpers.ts";
import { ensurePackage } from "./npm-package.ts";

export const PEER_VERSION = "2.36.0";
const LOCK = join(ROOT, "bench", `pi-mcp-adapter-${PEER_VERSION}.package-lock.json`);

/** The folder Pi loads the peer from (`pi -e <folder>`), installed on first use. */
export function ensurePeerAdapter(): string {
	return ensurePackage("pi-mcp-adapter", PEER_VERSION, LOCK);
}
