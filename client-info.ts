// Who this client is on the wire (MCP's clientInfo, the broker's version check): the package's
// own name and version, read once from package.json.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "package.json"), "utf8")) as {
	name: string;
	version: string;
};

/** The adapter's version: a broker of another version is not used. */
export const ADAPTER_VERSION: string = manifest.version;

/** MCP's `clientInfo` in `initialize`. */
export const CLIENT_INFO = { name: manifest.name, version: manifest.version } as const;
