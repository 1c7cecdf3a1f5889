// What loads lazily, all of it in one place (as Pi 1.5's `runtime.lazy.js`): every Pi start pays
// for what the extension imports, so whatever a start does not need is loaded here at its first
// use, once (a repeated import() through Pi's loader resolves its path again, ~0.3 ms). Nowhere
// else does the package call import() or require(); tests/unit/code-shape.test.ts keeps it so.
// Each loader counts as an import of the module that calls it (tests/unit/layers.test.ts): a module
// may load only what it could import.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { once } from "./bounds/waits.ts";

// The session (pi/session.ts): a start from the start-up snapshot builds no runtime until first used.
export const loadRuntime = once(() => import("./mcp-runtime.ts"));
/** The `mcp` tool's modes and the call path (Pi's tools, direct tools, resource reads): at the first request. */
export const loadCallPath = once(() => import("./proxy/proxy-tool.ts"));
/** Pi 1.5: a call through `mcp` (or a direct tool) run as the Pi tool it is: at the first call. */
export const loadCallsThroughPi = once(() => import("./pi/calls-through-pi.ts"));
/** Converting a result to Pi's content (a prompt command's messages): at the first prompt command. */
export const loadToolResults = once(() => import("./proxy/tool-results.ts"));
/** What a session start from the config tells the user, and its question about project servers (pi/start-notes.ts). */
export const loadStartNotes = once(() => import("./pi/start-notes.ts"));

// Commands: their work loads at their first use.
export const loadCommandActions = once(() => import("./pi/command-actions.ts"));
export const loadManager = once(() => import("./pi/mcp-manager.ts"));
export const loadConfigEdit = once(() => import("./config/edit.ts"));
export const loadApproveFlow = once(() => import("./trust/approve-flow.ts"));
export const loadApprovalQuestion = once(() => import("./client/approval-question.ts"));

// What servers may ask of the client: at the first question, sampling request or browser page.
export const loadDialogs = once(() => import("./client/user-dialogs.ts"));
export const loadElicitation = once(() => import("./client/elicitation.ts"));
export const loadSampling = once(() => import("./client/sampling.ts"));
export const loadBrowser = once(() => import("./oauth/open-browser.ts"));
/** `approveTools`: at the first call it names. */
export const loadToolApproval = once(() => import("./client/tool-approval.ts"));
export const loadSavedToolApprovals = once(() => import("./trust/saved-tool-approvals.ts"));

// Connections: a session with a warm cache may never connect.
/** Opening connections (our transports, cross-spawn, then the SDK): at the first connect. */
export const loadConnections = once(() => import("./transport/open-connection.ts"));
/** SDK v2's client side and the lenient list schemas (transport/mcp-sdk.ts): at the first connect. */
export const loadSdk: () => Promise<McpSdk> = once(() => import("./transport/mcp-sdk.ts"));
export type McpSdk = typeof import("./transport/mcp-sdk.ts");
/** The 2025 task API's calls: at the first task-only tool. */
export const loadTasks = once(() => import("./transport/tool-tasks.ts"));
/** The 2026 tasks extension's calls: at the first call to a server that offers it. */
export const loadExtensionTasks = once(() => import("./transport/tool-tasks-2026.ts"));
/** A connection's resource subscriptions (transport/resource-watch.ts): at a started session's first connect. */
export const loadResourceWatch = once(() => import("./transport/resource-watch.ts"));
/** The SDK's skills client: at the first listing of a server that offers skills. */
export const loadSkillsSdk = once(() => import("@modelcontextprotocol/client/ext/skills"));
/** The per-user broker's client: with the first connect of a server it shares, and for /mcp's broker line. */
export const loadBroker = once(() => import("./broker/client.ts"));
/** `npx pkg` resolution: at the first stdio start. */
export const loadNpxResolver = once(() => import("./npx-resolver.ts"));
/** What a sign-in says and stores: at the first question about project servers. */
export const loadOauthHandler = once(() => import("./oauth-handler.ts"));
/** The browser sign-in and sign-out: at /mcp-auth. */
export const loadSignIn = once(() => import("./oauth/sign-in.ts"));
/** The SDK's OAuth and DPoP functions (the package itself, not transport/mcp-sdk.ts): at a sign-in or a refresh. */
export const loadClientSdk = once(() => import("@modelcontextprotocol/client"));
/** The SDK's metadata schemas: at the first discovery of an authorization server. */
export const loadCoreSdk = once(() => import("@modelcontextprotocol/core"));

// Servers' skills as Pi skills: at the first discovery that finds one (pi/skill-events.ts).
export const loadMcpSkills = once(() => import("./skills/mcp-skills.ts"));
export const loadSkillFolder = once(() => import("./skills/skill-folder.ts"));

// MCP Apps: at the first result with a view.
export const loadAppSessions = once(() => import("./apps/app-sessions.ts"));
export const loadAppHost = once(() => import("./pi/app-host.ts"));
/** The Apps SDK's host side (AppBridge): at the first view opened. */
export const loadAppBridge = once(async () => (await import("@modelcontextprotocol/ext-apps/app-bridge")).AppBridge);

// Search, files and the shell command.
/** The search engine (BM25, stemmer, WordNet): at the first search or index update, never with Pi. */
export const loadSearch = once(() => import("./search/engine.ts"));
/** The cross-process lock: at the first locked write (cache, approvals, sign-ins) or broker start. */
export const loadLockfile = once(() => import("proper-lockfile"));
/**
 * pi-ai, for pi 0.73's sampling (Pi 1.x completes through `ctx.modelRegistry`): at the first
 * sampling request. Pi lends it to the TypeScript its loader compiles (a clone); the built package
 * (dist/) is imported by Node, which finds it beside Pi, up the folders of Pi's own script.
 */
export const loadPiAi = once(async (): Promise<typeof import("@mariozechner/pi-ai")> => {
	try {
		return await import("@mariozechner/pi-ai");
	} catch (error) {
		const beside = process.argv[1] ? besideScript("@mariozechner/pi-ai", process.argv[1]) : undefined;
		if (!beside)
			throw new Error("Pi's pi-ai, which answers a server's sampling request, was not found", { cause: error });
		return import(pathToFileURL(beside).href);
	}
});

/** The ES module entry of package `name` in the node_modules folders above `script` (as Node would look from there), if any. */
export function besideScript(name: string, script: string): string | undefined {
	let dir: string;
	try {
		dir = dirname(realpathSync(script));
	} catch {
		return undefined; // no such file: a host that is not a script
	}
	for (; ; dir = dirname(dir)) {
		const manifest = join(dir, "node_modules", name, "package.json");
		if (existsSync(manifest)) {
			const { exports, main } = JSON.parse(readFileSync(manifest, "utf8")) as {
				exports?: { "."?: { import?: string; default?: string } };
				main?: string;
			};
			const entry = exports?.["."]?.import ?? exports?.["."]?.default ?? main;
			return entry ? join(dirname(manifest), entry) : undefined;
		}
		if (dirname(dir) === dir) return undefined;
	}
}
/** The shell command's prompts. */
export const loadReadline = once(() => import("node:readline"));

/** A package loaded synchronously at its first use: the config is read synchronously. */
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
