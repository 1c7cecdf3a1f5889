// A session holding the real tool catalogs as if cached (no server runs): the search tests and
// the search benchmarks ask it what a user's `mcp({search})` would answer.
import { defineServer } from "../../config.ts";
import { ServerLifecycle } from "../../lifecycle.ts";
import { McpServerManager } from "../../server-manager.ts";
import { DEFAULT_SETTINGS, type McpConfig, type ServerEntry } from "../../types.ts";
import type { Catalog } from "./catalogs.ts";

/** A session holding all catalogs as if cached, to measure real search answers. */
export function sessionOf(catalogs: readonly Catalog[]): ServerLifecycle {
	const servers = new Map<string, ServerEntry>(
		catalogs.map((c) => [c.server, defineServer(c.server, { command: "false", exposeResources: false })]),
	);
	const config: McpConfig = { servers, unconfigured: new Map(), settings: DEFAULT_SETTINGS, problems: [] };
	const lifecycle = new ServerLifecycle({ config, manager: new McpServerManager() });
	for (const c of catalogs) {
		const instructions = c.instructions ? { instructions: c.instructions } : {};
		lifecycle.catalog.set(c.server, { tools: c.tools, resources: [], ...instructions }, false);
	}
	return lifecycle;
}
