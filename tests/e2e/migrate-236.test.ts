// A user switching from pi-mcp-adapter 2.36: its config, with the keys of 2.36's README examples
// (server options, tool approval, direct tools, includeTools, excludeTools), placed where 2.36 and
// third-party tools put it, ~/.config/mcp/mcp.json, with nothing in Pi's own file. The real Pi
// (both lines): every server usable, excludeTools and includeTools honoured, direct tools as
// listed, approveTools refused without a UI and asked in rpc, and 2.36's status event emitted.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING, ROOT, type RunningServer, startEverythingHttp } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const LISTENER = join(ROOT, "tests", "fixtures", "status-listener.ts");
const everything = { command: process.execPath, args: [EVERYTHING, "stdio"] };

/** 2.36's README configs in one file: `npx …` is the local server-everything, URLs are 127.0.0.1. */
function config236(port: number) {
	return {
		settings: { approveTools: ["github_delete_*", "notion_update_*"] },
		mcpServers: {
			"my-server": {
				...everything,
				lifecycle: "lazy",
				idleTimeout: 10,
				requestTimeoutMs: 30000,
				directTools: ["echo"],
			},
			github: { ...everything, approveTools: ["get-sum", "merge_pull_request"] },
			docs: { ...everything, approveTools: false },
			dokploy: { ...everything, directTools: true, includeTools: ["get-*", "dokploy_list_apps"] },
			figma: {
				url: `http://127.0.0.1:${port}/mcp`,
				directTools: true,
				excludeTools: ["get-tiny-image", "figma_get_code_connect_map"],
			},
		},
	};
}

const call =
	(tool: string, args: Record<string, unknown> = {}) =>
	() => ({
		toolCall: { name: "mcp", arguments: { tool, args } },
	});

describe("switching from 2.36: its config at ~/.config/mcp/mcp.json", () => {
	let http: RunningServer;
	beforeAll(async () => {
		http = await startEverythingHttp("streamableHttp");
	});
	afterAll(async () => http?.stop());

	async function homeWith236(): Promise<PiHome> {
		const home = await createPiHome({});
		mkdirSync(join(home.root, ".config", "mcp"), { recursive: true });
		writeFileSync(join(home.root, ".config", "mcp", "mcp.json"), JSON.stringify(config236(http.port), null, 2));
		return home;
	}

	for (const host of PI_HOSTS) {
		it(`${host.name}: every server answers, filters and direct tools hold, approveTools refuses in -p, status is emitted`, async () => {
			const home = await homeWith236();
			const statusLog = join(home.root, "status.jsonl");
			try {
				const steps = [
					call("my-server_echo", { message: "one" }),
					call("figma_echo", { message: "two" }),
					call("docs_get-sum", { a: 1, b: 2 }),
					call("dokploy_get-sum", { a: 2, b: 3 }),
					call("dokploy_echo", { message: "not included" }),
					call("figma_get-tiny-image"),
					call("github_get-sum", { a: 3, b: 4 }),
					() => ({ text: "done" }),
				];
				const run = await runPi(home, "use them", {
					host,
					steps,
					extraArgs: ["-e", LISTENER],
					env: { STATUS_LOG: statusLog },
				});
				expect(run.code, run.stderr).toBe(0);
				const result = (n: number) => lastToolMessage(home.model.requests[n]);
				expect(result(1)).toContain("Echo: one");
				expect(result(2)).toContain("Echo: two");
				expect(result(3)).toContain("The sum of 1 and 2 is 3");
				expect(result(4)).toContain("The sum of 2 and 3 is 5");
				expect(result(5)).not.toContain("not included"); // includeTools leaves echo out
				// excludeTools: no such tool for the model, not even among the suggestions.
				expect(result(6)).toContain('Unknown tool "figma_get-tiny-image"');
				expect(result(6)).not.toMatch(/figma_get-tiny-image[,?]/);
				expect(result(7)).toContain('MCP tool "get-sum" on server "github" is approval-gated');
				expect(result(7)).not.toContain("is 7");
				expect(run.stderr).not.toMatch(/unknown field|needs configuration/);

				// 2.36's status event: every server, then the empty snapshot as the session ends.
				const snapshots = readFileSync(statusLog, "utf8")
					.trim()
					.split("\n")
					.map((l) => JSON.parse(l));
				expect(snapshots.at(-1)).toEqual({
					version: 1,
					servers: [],
					totalTools: 0,
					totalResources: 0,
					connectedCount: 0,
					disabledCount: 0,
				});
				const last = snapshots.filter((s: { servers: unknown[] }) => s.servers.length > 0).at(-1);
				expect(last.servers.map((s: { name: string }) => s.name).sort()).toEqual(
					["dokploy", "docs", "figma", "github", "my-server"].sort(),
				);
				for (const server of last.servers) {
					expect(["connected", "cached"]).toContain(server.status);
					expect(Object.keys(server).sort()).toEqual(
						["directToolCount", "disabled", "listenState", "name", "resourceCount", "status", "toolCount"].sort(),
					);
				}

				// The next session: direct tools from the cache, as 2.36 named them, less what the filters left out.
				const again = await runPi(home, "again", { host, steps: [() => ({ text: "ok" })] });
				expect(again.code, again.stderr).toBe(0);
				const declared = (home.model.requests.at(-1)?.tools ?? []).map((t) => t.function.name);
				expect(declared).toEqual(expect.arrayContaining(["my-server_echo", "figma_echo", "dokploy_get-sum"]));
				expect(declared).not.toContain("my-server_get-sum");
				expect(declared).not.toContain("figma_get-tiny-image");
				expect(declared).not.toContain("dokploy_echo");
			} finally {
				await home.dispose();
			}
		}, 120_000);
	}

	it("approveTools asks in rpc with 2.36's answers, Deny first; Allow once runs the call", async () => {
		const home = await homeWith236();
		const pi = await startPiRpc({
			home,
			steps: [call("github_get-sum", { a: 3, b: 4 }), () => ({ text: "done" })],
		});
		try {
			pi.send({ id: "p1", type: "prompt", message: "sum" });
			const dialog = await pi.waitFor(
				(e) => e.type === "extension_ui_request" && e.method === "select" && String(e.title).includes("wants to run"),
				0,
				60_000,
			);
			expect(dialog.title).toContain("MCP: github wants to run get-sum");
			expect(dialog.options).toEqual([
				"Deny",
				"Allow once",
				"Allow for session",
				"Allow server for this session",
				"Always allow this tool (saved)",
			]);
			pi.send({ type: "extension_ui_response", id: dialog.id, value: "Allow once" });
			await pi.waitFor((e) => e.type === "agent_end", 0, 60_000);
			expect(lastToolMessage(home.model.requests[1])).toContain("The sum of 3 and 4 is 7");
		} finally {
			await pi.close();
			await home.dispose();
		}
	}, 120_000);
});
