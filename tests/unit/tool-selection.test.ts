// A view's tool calls obey Pi's command line as the model's calls do: on Pi 1.5 a tool for the app
// only (no Pi tool, so no check of Pi's sees it) meets `--tools` and `--exclude-tools` as Pi
// applies them to MCP tools; on pi 0.73 (whose checks see no call of a view) a view's call runs
// only when the allowlist lets the model reach the tool (`mcp`, or the tool's direct tool).
import { describe, expect, it } from "vitest";
import { piAppHost } from "../../pi-session/app-host.ts";
import { pi15ToolLimit, pi073ToolLimit } from "../../pi-tools/tool-selection.ts";
import type { ToolMetadata } from "../../types.ts";

const tool = (name: string, visibility?: ("app" | "model")[]): ToolMetadata => ({
	server: "board",
	name,
	description: "",
	inputSchema: { type: "object" },
	...(visibility ? { ui: { visibility } } : {}),
});
const refresh = tool("refresh_board", ["app"]);
const addNote = tool("add_note");
const pi = (...args: string[]) => ["node", "pi", ...args];

describe("Pi 1.5's command line, for a view's call of a tool for the app only", () => {
	const verdict = (argv: string[]) => pi15ToolLimit(argv)(refresh, "app-only");

	it("refuses it where an allowlist filters MCP tools and does not name it: as Pi leaves out the model's", () => {
		expect(verdict(pi("--tools", "codemode,mcp__board__show_board"))).toBe(
			"mcp__board__refresh_board is not among the tools this session's --tools allows.",
		);
		expect(verdict(pi("-t", "read,mcp__other__*"))).toBeDefined();
		expect(verdict(pi("--no-tools"))).toBe(
			"mcp__board__refresh_board is off in this session: Pi started with --no-tools.",
		);
		expect(verdict(pi("--no-tools", "--tools", "+mcp__board__show_board"))).toBeDefined();
		// The last --tools is the one Pi takes.
		expect(verdict(pi("--tools", "mcp__board__*", "--tools", "mcp__board__show_board"))).toBeDefined();
	});

	it("lets it run where Pi would keep an MCP tool of that name", () => {
		for (const argv of [
			pi(),
			pi("--tools", "read,codemode"), // an allowlist naming no mcp__ entry keeps every MCP tool
			pi("--tools", "codemode,mcp__board__*"),
			pi("-t", "mcp__board__refresh_board"),
			pi("--tools", "+codemode"), // +/- entries change the defaults: no allowlist
			pi("--no-tools", "--tools", "+codemode"),
			pi("--no-builtin-tools"),
		])
			expect(verdict(argv), argv.join(" ")).toBeUndefined();
	});

	it("leaves a tool the model may call to Pi's own check (executeTool)", () => {
		expect(pi15ToolLimit(pi("--no-tools"))(addNote, "as-model")).toBeUndefined();
	});
});

describe("pi 0.73's command line, for a view's calls", () => {
	const direct = (t: ToolMetadata) => (t.name === "add_note" ? "board_add_note" : undefined);
	const limit = (argv: string[]) => pi073ToolLimit(argv, "mcp", direct);

	it("lets them run without an allowlist, or one naming mcp (the model reaches every MCP tool through it)", () => {
		for (const argv of [pi(), pi("--tools", "read,mcp"), pi("--no-tools", "-t", "mcp")]) {
			expect(limit(argv)(refresh, "app-only")).toBeUndefined();
			expect(limit(argv)(addNote, "as-model")).toBeUndefined();
		}
	});

	it("refuses what the allowlist keeps from the model: all but a tool whose own direct tool it names", () => {
		const named = limit(pi("--tools", "read,board_add_note"));
		expect(named(addNote, "as-model")).toBeUndefined();
		expect(named(refresh, "app-only")).toBe(
			'"refresh_board" of "board" is out of this session\'s reach: --tools names neither mcp nor a tool of its own.',
		);
		expect(limit(pi("--tools", "read"))(addNote, "as-model")).toBeDefined();
		expect(limit(pi("--no-tools"))(refresh, "app-only")).toBe(
			'"refresh_board" of "board" is off in this session: Pi started with --no-tools.',
		);
		// pi 0.73 takes exact names only: a pattern names nothing.
		expect(limit(pi("--tools", "mcp*"))(refresh, "app-only")).toBeDefined();
	});
});

describe("a view's call through the session's host", () => {
	/** The host of a session started with `argv` (Pi 1.5 when `pi15`); the calls that reached approveTools. */
	const session = (argv: string[], pi15: boolean) => {
		const approvals: string[] = [];
		const lifecycle = {
			approveCall: async (t: ToolMetadata) => {
				approvals.push(t.name);
				return { message: "denied by the test" };
			},
			catalog: { forServer: () => [] },
		};
		const routes = pi15 ? ({} as never) : undefined;
		const host = piAppHost({} as never, { hasUI: true } as never, { lifecycle } as never, routes, { argv });
		return { host, approvals };
	};
	const signal = new AbortController().signal;

	it("is refused before anything is asked when Pi's --tools keeps the tool from the model, on either line", async () => {
		for (const [argv, pi15] of [
			[pi("--tools", "codemode,mcp__board__show_board"), true],
			[pi("--tools", "board_show_board"), false],
		] as const) {
			const { host, approvals } = session([...argv], pi15);
			const result = await host.callTool({ kind: "app-only", tool: refresh }, {}, signal);
			expect(result.isError).toBe(true);
			expect(JSON.stringify(result.content)).toMatch(/--tools/);
			expect(approvals).toEqual([]);
		}
		// Kept by the allowlist: the call goes on to its approval.
		const { host, approvals } = session(pi("--tools", "codemode,mcp__board__*"), true);
		await host.callTool({ kind: "app-only", tool: refresh }, {}, signal);
		expect(approvals).toEqual(["refresh_board"]);
	});
});
