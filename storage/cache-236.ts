// A copy of the metadata cache in pi-mcp-adapter 2.36's format, at 2.36's path
// <agentDir>/mcp-cache.json = { version: 1, servers: { "<name>": { configHash, tools, resources,
// prompts?, instructions?, cachedAt } } }, keyed by 2.36's hash of the entry as written
// (config/compat-236.ts). pi-subagents reads it before it starts a child, to name the child's
// direct MCP tools; 2.36 itself reads it too, so a user switching back keeps a warm cache.
// Other writers' entries are kept; a file in another format (an older version of ours) is replaced.
import { join } from "node:path";
import { updateJsonFile } from "./locked-json.ts";

export const CACHE_236_FILE = "mcp-cache.json";

/** One server as 2.36 caches it (its `ServerCacheEntry`, less what only 2.36's UI uses). */
export interface Entry236 {
	readonly configHash: string;
	readonly tools: readonly {
		name: string;
		description?: string;
		inputSchema?: unknown;
		uiResourceUri?: string;
		uiVisibility?: readonly string[];
	}[];
	readonly resources: readonly { uri: string; name: string; description?: string }[];
	readonly prompts?: readonly unknown[];
	readonly instructions?: string;
	readonly cachedAt: number;
}

type File236 = { version: 1; servers: Record<string, unknown> };

function asFile236(raw: unknown): File236 {
	const file = raw as Partial<File236> | null;
	const valid = file && typeof file === "object" && file.version === 1 && typeof file.servers === "object";
	return valid && file.servers ? { version: 1, servers: file.servers } : { version: 1, servers: {} };
}

/** Merges entries (by server name) into <agentDir>/mcp-cache.json, under the lock our writers share. */
export async function writeCache236(agentDir: string, entries: Readonly<Record<string, Entry236>>): Promise<void> {
	if (Object.keys(entries).length === 0) return;
	await updateJsonFile(
		join(agentDir, CACHE_236_FILE),
		asFile236,
		(file) => {
			Object.assign(file.servers, entries);
			return file;
		},
		{ keepDamaged: false, compact: true },
	);
}
