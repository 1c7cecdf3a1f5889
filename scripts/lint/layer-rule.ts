// The layer rule, in one place: which unit (a folder, or a root module) sits on which layer. A
// module imports its own unit and units of its layer or below, never above, and no two units import
// each other. `npm run lint` checks the code against it; `npm run deps` writes it into
// ARCHITECTURE.md's Layers table (edit it here, never there).

export interface LayerRow {
	readonly layer: number;
	/** Folders end in "/" (`pi/`); root modules are named with their extension (`index.ts`). */
	readonly units: readonly string[];
	readonly why: string;
}

export interface UpwardImport {
	/** Module paths from the root: `from` imports `to`, a layer above it. */
	readonly from: string;
	readonly to: string;
	readonly why: string;
}

/** Top layer first, as the table reads. */
export const LAYERS: readonly LayerRow[] = [
	{ layer: 15, units: ["index.ts", "cli.ts"], why: "the entry points: Pi's extension, the shell command" },
	{
		layer: 14,
		units: ["pi-session/"],
		why: "a Pi session's lifetime and what it registers, over everything Pi-facing below; what Pi offers, tested",
	},
	{
		layer: 13,
		units: ["start-up/"],
		why: "a session's quick start (the snapshot, restored tools) and servers started before a call needs them",
	},
	{
		layer: 12,
		units: ["pi-tools/", "pi-commands/"],
		why: "the MCP tools as Pi tools and the calls through them; the slash commands and their menus",
	},
	{
		layer: 11,
		units: ["pi-ui/", "shell/"],
		why: "what Pi's TUI shows of calls and servers; the shell command's subcommands",
	},
	{
		layer: 10,
		units: ["mcp-runtime.ts", "runtime/", "apps/"],
		why: "one session, built from everything below; its MCP Apps' pages",
	},
	{ layer: 9, units: ["proxy/", "skills/"], why: "the `mcp` tool's modes; servers' skills as Pi skills" },
	{
		layer: 8,
		units: ["lifecycle.ts", "server-lifecycle/"],
		why: "when servers run, over the pool; the parts that decide it",
	},
	{ layer: 7, units: ["server-manager.ts", "pool/"], why: "the pool of connections, and its parts" },
	{
		layer: 6,
		units: ["broker/", "client/", "npx-resolver.ts"],
		why: "what runs servers or answers them, over transport",
	},
	{ layer: 5, units: ["transport/"], why: "opening one connection" },
	{
		layer: 4,
		units: ["oauth-handler.ts", "metadata-cache.ts"],
		why: "credentials as a connection opens; the cache file",
	},
	{
		layer: 3,
		units: ["config/", "config.ts", "oauth/", "search/", "tool-registrar.ts"],
		why: "the config, the sign-in, the search engine, direct tools' names",
	},
	{ layer: 2, units: ["catalog/", "resource-tools.ts"], why: "the tools known" },
	{ layer: 1, units: ["trust/"], why: "approvals, secrets, text safe for a screen" },
	{
		layer: 0,
		units: ["types.ts", "errors.ts", "client-info.ts", "bounds/", "storage/", "bin/"],
		why: "shapes, errors, who we are, ends of waits and processes, files",
	},
];

/** Imports allowed to point up, each with its reason: at most one, and none today. */
export const UPWARD: readonly UpwardImport[] = [];
