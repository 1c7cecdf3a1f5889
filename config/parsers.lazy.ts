// The config's parsers beyond JSON.parse, loaded synchronously at their first use (the config is
// read synchronously): most files are plain JSON and no codex import runs.
import { createRequire } from "node:module";

/** A package loaded synchronously at its first use. */
function required<T>(name: string): () => T {
	let loaded: T | undefined;
	return () => {
		loaded ??= createRequire(import.meta.url)(name) as T;
		return loaded;
	};
}

/** jsonc-parser: only for a file with comments, trailing commas or a mistake (plain JSON is JSON.parse'd). */
export const jsoncParser = required<typeof import("jsonc-parser")>("jsonc-parser");
/** smol-toml: only for a codex import. */
export const tomlParser = required<typeof import("smol-toml")>("smol-toml");
