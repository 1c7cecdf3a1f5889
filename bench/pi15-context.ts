// What MCP adds to the model's context on each Pi 1.x line (1.5.2, 1.6.0): the first request's tool
// definitions and system prompt, with 1, 3 and 20 servers, for the line's built-in MCP and for this extension, each minus
// the same Pi with no MCP at all (codemode and tool_search loaded but not activated); and the same
// per exposure (codemode, deferred, direct, hidden, per tool) with server-everything. o200k tokens.
import { EVERYTHING } from "../tests/support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../tests/support/mock-openai.ts";
import { BENCH_RUN_MS, createPiHome, runPi } from "../tests/support/pi-cli-harness.ts";
import { PI1_HOSTS, type PiHost } from "../tests/support/pi-hosts.ts";
import { firstContext } from "../tests/support/pi15-context.ts";
import { countTokens } from "../tests/support/token-count.ts";

/** Tokens of what the model is sent before any message: every tool definition and the system prompt. */
function contextTokens(request: ChatRequest): number {
	const system = request.messages.filter((m) => m.role === "system" || m.role === "developer");
	return countTokens(JSON.stringify(request.tools ?? [])) + countTokens(JSON.stringify(system.map((m) => m.content)));
}

async function firstRequest(host: PiHost, servers: number, mode: "none" | "built-in" | "ours"): Promise<number> {
	const mcpServers = Object.fromEntries(
		Array.from({ length: servers }, (_, i) => [
			`server${i + 1}`,
			{ command: process.execPath, args: [EVERYTHING, "stdio"] },
		]),
	);
	const home = await createPiHome({ mcpConfig: mode === "none" ? { mcpServers: {} } : { mcpServers } });
	try {
		const builtins = mode === "ours" ? ["codemode", "tool-search"] : ["mcp", "codemode", "tool-search"];
		// A warm run first: ours names servers from the cache it fills; the built-in connects anyway.
		await runPi(home, "hi", {
			host,
			steps: [() => ({ text: "ok" })],
			noExtension: mode !== "ours",
			builtins,
			timeoutMs: BENCH_RUN_MS,
		});
		await runPi(home, "hi", {
			host,
			steps: [(req) => ({ text: `ok ${lastToolMessage(req)}` })],
			noExtension: mode !== "ours",
			builtins,
			timeoutMs: BENCH_RUN_MS,
		});
		return contextTokens(home.model.requests[0]);
	} finally {
		await home.dispose();
	}
}

export async function measurePi15Context(host: PiHost): Promise<{ servers: number; builtIn: number; ours: number }[]> {
	const none = await firstRequest(host, 0, "none");
	const rows = [];
	for (const servers of [1, 3, 20]) {
		const builtIn = (await firstRequest(host, servers, "built-in")) - none;
		const ours = (await firstRequest(host, servers, "ours")) - none;
		rows.push({ servers, builtIn, ours });
	}
	return rows;
}

/** The exposures Pi 1.5 documents, on server-everything (with a description, so both write the same section). */
const EXPOSURES: Record<string, Record<string, unknown>> = {
	codemode: {},
	deferred: { exposure: "deferred" },
	direct: { exposure: "direct" },
	hidden: { exposure: "hidden" },
	"per tool": { exposure: "deferred", toolExposure: { "get-sum": "direct", echo: "codemode", "*resource*": "hidden" } },
};

/**
 * Per exposure, the extra context over Pi with no MCP: the built-in's, ours, and ours without the
 * tools server-everything lists only to a client that answers elicitation and sampling (ours does).
 */
export async function measurePi15Exposures(host: PiHost) {
	const none = (await firstContext(host, {}, "none", BENCH_RUN_MS)).tokens;
	const rows = [];
	for (const [exposure, config] of Object.entries(EXPOSURES)) {
		const servers = {
			everything: { command: process.execPath, args: [EVERYTHING, "stdio"], description: "Sample tools", ...config },
		};
		const builtIn = await firstContext(host, servers, "built-in", BENCH_RUN_MS);
		const ours = await firstContext(host, servers, "ours", BENCH_RUN_MS);
		const extra = ours.tools.filter((name) => !builtIn.tools.includes(name));
		const extraTokens = extra.reduce((sum, name) => sum + countTokens(ours.definitions[name]), 0);
		rows.push({
			exposure,
			builtIn: builtIn.tokens - none,
			ours: ours.tokens - none,
			oursSameTools: ours.tokens - none - extraTokens,
			extra,
			sameSection: ours.section === builtIn.section,
		});
	}
	return rows;
}

export async function main(): Promise<void> {
	for (const host of PI1_HOSTS) await report(host);
}

async function report(host: PiHost): Promise<void> {
	console.log(`${host.name} extra context (tool definitions + system prompt, o200k tokens), vs Pi with no MCP:`);
	for (const { servers, builtIn, ours } of await measurePi15Context(host)) {
		console.log(
			`  ${String(servers).padStart(2)} server(s): built-in ${builtIn}, ours ${ours} (${(ours / builtIn).toFixed(2)}x)`,
		);
	}
	console.log("Per exposure (server-everything), extra context over Pi with no MCP:");
	for (const row of await measurePi15Exposures(host)) {
		const extra =
			row.extra.length > 0 ? ` (${row.oursSameTools} without ${row.extra.length} tools listed only to ours)` : "";
		const section = row.sameSection ? "same mcp_servers section" : "mcp_servers section differs";
		console.log(`  ${row.exposure}: built-in ${row.builtIn}, ours ${row.ours}${extra}; ${section}`);
	}
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
