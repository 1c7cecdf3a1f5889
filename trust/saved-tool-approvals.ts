// The `approveTools` answers the user saved ("Always allow"): `<agentDir>/mcp-tool-approvals.json`,
// the user's own file beside the project approvals (a repository's config cannot pre-approve its
// tools), per server name and bound to its launch as configured when saved (a changed command or
// URL asks again), updated under the file lock every session takes. Read at each question (small).
import { join } from "node:path";
import { readJsonFile, updateJsonFile } from "../storage/locked-json.ts";
import type { ServerEntry } from "../types.ts";

export const TOOL_APPROVALS_FILE = "mcp-tool-approvals.json";

interface SavedServer {
	readonly launch: string;
	readonly tools: readonly string[];
}

interface SavedFile {
	readonly version: 1;
	readonly servers: Readonly<Record<string, SavedServer>>;
}

function parse(raw: unknown): SavedFile {
	const servers: Record<string, SavedServer> = {};
	const given = (raw as { servers?: unknown } | undefined)?.servers;
	if (typeof given === "object" && given !== null) {
		for (const [name, value] of Object.entries(given)) {
			const { launch, tools } = (value ?? {}) as { launch?: unknown; tools?: unknown };
			if (typeof launch === "string" && Array.isArray(tools))
				servers[name] = { launch, tools: tools.filter((t): t is string => typeof t === "string") };
		}
	}
	return { version: 1, servers };
}

export class SavedToolApprovals {
	readonly path: string;

	constructor(agentDir: string) {
		this.path = join(agentDir, TOOL_APPROVALS_FILE);
	}

	/** Whether the user saved "always allow" for this tool of this server, as it is launched now. */
	allows(entry: ServerEntry, tool: string): boolean {
		const saved = parse(readJsonFile(this.path)).servers[entry.name];
		return saved?.launch === entry.launch.hash && saved.tools.includes(tool);
	}

	/** Saves "always allow" for this tool (a server whose launch changed starts over). */
	async allow(entry: ServerEntry, tool: string): Promise<void> {
		await updateJsonFile(this.path, parse, (current) => {
			const saved = current.servers[entry.name];
			const tools = saved?.launch === entry.launch.hash ? saved.tools.filter((t) => t !== tool) : [];
			const servers = { ...current.servers, [entry.name]: { launch: entry.launch.hash, tools: [...tools, tool] } };
			return { version: 1 as const, servers };
		});
	}
}
