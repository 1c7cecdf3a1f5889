// The proxy tool's modes from a shell: status (and `status --check`), list <server>, search,
// describe, call, and the demo that tours them. Each answers as `mcp` does inside Pi, in the
// shell's words; a call shows its progress on stderr while it runs.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mapLimit } from "../bounds/waits.ts";
import type { ServerLifecycle } from "../lifecycle.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { runProxy } from "../proxy/proxy-tool.ts";
import { brokerReport, turnedOffLine } from "../proxy/server-status.ts";
import type { ProxyInput } from "../proxy/surface.ts";
import { contentText } from "../proxy/tool-results.ts";
import { type Parsed, USAGE } from "./args.ts";
import { CallProgress } from "./call-progress.ts";
import { print, printError } from "./output.ts";

/** The proxy's input for a command, or what is wrong with the command line. */
export function toInput(parsed: Parsed): ProxyInput | string {
	const [first, ...more] = parsed.rest;
	switch (parsed.command) {
		case "status":
			return {};
		case "list":
			return first
				? { server: first, ...(parsed.instructions ? { instructions: true } : {}) }
				: "list needs a server name";
		case "search":
			return parsed.rest.length > 0 ? { search: parsed.rest.join(" "), regex: parsed.regex } : "search needs words";
		case "describe":
			return first ? { describe: first } : "describe needs a tool name";
		case "call":
			return first ? { tool: first, args: more.join(" ") || undefined } : "call needs a tool name";
		default:
			return parsed.command ? `unknown command "${parsed.command}"` : "no command given";
	}
}

/**
 * One mode's answer printed (an error on stderr); false when the answer is a failure, a search
 * found nothing that matches, or (`status`) something needs the user: the exit code's 1.
 */
export async function run(
	runtime: McpRuntime,
	input: ProxyInput,
	signal: AbortSignal,
	title?: string,
): Promise<boolean> {
	const lifecycle = runtime.lifecycle;
	if (title) print(`\n$ ${title}\n`);
	// A shell command has nothing else to do: it waits for starting servers as long as connecting may take.
	const wait = lifecycle.config.settings.connectTimeoutMs + 1000;
	const notes = (server: string) => runtime.client.takeNotes(server);
	const shown = input.tool ?? (input.search !== undefined ? "search" : input.server);
	const progress = shown ? new CallProgress(shown) : undefined;
	const result = await runProxy(lifecycle, input, {
		statusWaitMs: wait,
		notes,
		signal,
		onProgress: (p) => progress?.progress(p),
		onWait: (text) => progress?.waiting(text),
	}).finally(() => progress?.end());
	const out = contentText(result.content);
	(result.isError ? printError : print)(`${out}\n`);
	// `status` fails when something needs the user: a broken config or a server that cannot run.
	const unwell = input.tool === undefined && Object.keys(input).length === 0 && statusUnwell(lifecycle);
	// A search that matched no tool (not even a closest one) is a failure, as grep's no match is (README: exit 1).
	const unmatched = input.search !== undefined && result.details.count === 0 && result.details.closest === undefined;
	return !result.isError && !unwell && !unmatched;
}

/** `status`, `list`, `search`, `describe`, `call`: the exit code. */
export async function proxyCommand(runtime: McpRuntime, parsed: Parsed, signal: AbortSignal): Promise<number> {
	const input = toInput(parsed);
	if (typeof input === "string") {
		printError(`${input}\n\n${USAGE}\n`);
		return 2;
	}
	if (parsed.command === "status" && parsed.check) await startEach(runtime.lifecycle);
	const succeeded = await run(runtime, input, signal);
	if (parsed.command === "status") {
		for (const [name, file] of runtime.config.disabled ?? []) print(`${turnedOffLine(name, file)}\n`);
		const shared = await brokerReport(runtime.agentDir);
		if (shared) print(`${shared}\n`);
	}
	return succeeded ? 0 : 1;
}

/**
 * `status --check`: every server that may run is started now, its tools cached or not, so the
 * status says how each start went (connected with its tools, or the failure and the server's own
 * words) rather than what the cache remembers. Each start is bounded by its own connect deadline.
 */
export async function startEach(lifecycle: ServerLifecycle): Promise<void> {
	const runnable = lifecycle.serverNames().filter((name) => !lifecycle.blocked(name));
	// A failed start is recorded for its server (state "failed", the reason): the status reports it.
	await mapLimit(runnable, CHECK_PARALLELISM, (name) => lifecycle.ensureConnected(name).catch(() => undefined));
}

/** Servers `status --check` starts at once (as many as the startup cache fill does). */
const CHECK_PARALLELISM = 10;

function statusUnwell(lifecycle: ServerLifecycle): boolean {
	if (lifecycle.config.problems.some((p) => p.severity === "error")) return true;
	return lifecycle.serverNames().some((n) => ["failed", "needs-config", "needs-auth"].includes(lifecycle.state(n)));
}

/**
 * The demo's config when none is named: server-everything from this package's dev dependencies
 * (a clone after `npm ci`), else the same version through npx (an installed copy has no dev
 * dependencies), whose first run installs it: its connect may take minutes, not the usual 30 s.
 */
export function demoConfig(command: string | undefined): string | undefined {
	if (command !== "demo") return undefined;
	const local = join(import.meta.dirname, "..", "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
	const viaNpx = !existsSync(local);
	const launch = viaNpx
		? { command: "npx", args: ["-y", `@modelcontextprotocol/server-everything@${EVERYTHING_VERSION}`, "stdio"] }
		: { command: process.execPath, args: [local, "stdio"] };
	const dir = mkdtempSync(join(tmpdir(), "pi-mcp-demo-"));
	const path = join(dir, "mcp.json");
	const settings = viaNpx ? { connectTimeoutMs: DEMO_INSTALL_MS } : {};
	writeFileSync(path, JSON.stringify({ settings, mcpServers: { everything: launch } }));
	process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
	if (viaNpx) printError(`Starting ${launch.args[1]} with npx (its first run installs it: a minute or so)...\n`);
	return path;
}

/** The server-everything the demo runs where this package does not bundle it. */
const EVERYTHING_VERSION = "2026.8.31";
/** How long the demo lets npx install server-everything on its first run. */
const DEMO_INSTALL_MS = 5 * 60_000;

/** The README's first command: a tour of the proxy against the bundled server-everything. */
export async function demo(runtime: McpRuntime, signal: AbortSignal): Promise<boolean> {
	const steps: [string, ProxyInput][] = [
		["status", {}],
		["search add numbers", { search: "add numbers" }],
		["describe everything_get-sum", { describe: "everything_get-sum" }],
		['call everything_get-sum \'{"a": 2, "b": 3}\'', { tool: "everything_get-sum", args: '{"a": 2, "b": 3}' }],
		[
			'call everything_echo \'{"message": "hello from Pi"}\'',
			{ tool: "everything_echo", args: { message: "hello from Pi" } },
		],
		["status", {}],
	];
	// Connected first, so every step finds it running (the search does not wait for a server starting).
	await runtime.lifecycle.ensureMetadata(undefined, runtime.config.settings.connectTimeoutMs + 1000);
	let allOk = true;
	for (const [title, input] of steps) allOk = (await run(runtime, input, signal, title)) && allOk;
	return allOk;
}
