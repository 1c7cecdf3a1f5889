// Who this client is on the wire (MCP's clientInfo, the broker's version check): the package's
// own name and version, read once from package.json.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * This module sits beside package.json; a bundle of it one folder down (the conformance client,
 * scripts/.conformance-client.mjs, where the modules of subfolders find their files) looks one up.
 */
const here = join(import.meta.dirname, "package.json");
const manifestPath = existsSync(here) ? here : join(dirname(import.meta.dirname), "package.json");
const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
	name: string;
	version: string;
};

/** The adapter's version: a broker of another version is not used. */
export const ADAPTER_VERSION: string = manifest.version;

/** MCP's `clientInfo` in `initialize`. */
export const CLIENT_INFO = { name: manifest.name, version: manifest.version } as const;
