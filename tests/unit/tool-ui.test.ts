// MCP Apps' `_meta.ui` on a tool: which `ui://` resource renders it and who may reach it. A tool a
// server marks for its app only never reaches the model: not in the catalog (search, list,
// describe, calls), not among direct tools, not in the cache's view of the server.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callableByApp, toolUiOf, visibleToModel } from "../../catalog/tool-ui.ts";
import { ServerLifecycle } from "../../lifecycle.ts";
import { MetadataCache } from "../../metadata-cache.ts";
import { McpServerManager } from "../../server-manager.ts";
import { directSelection, planDirectTools } from "../../tool-registrar.ts";
import type { ToolMetadata } from "../../types.ts";
import { configOf, entryOf, tempDir } from "../support/helpers.ts";

describe("a tool's _meta.ui", () => {
	it("names its view by ui.resourceUri, or the spec's former flat key; anything but a ui:// URI is no view", () => {
		expect(toolUiOf({ ui: { resourceUri: "ui://board/view.html" } })).toEqual({ resourceUri: "ui://board/view.html" });
		expect(toolUiOf({ "ui/resourceUri": "ui://old/view" })).toEqual({ resourceUri: "ui://old/view" });
		expect(toolUiOf({ ui: { resourceUri: "ui://new" }, "ui/resourceUri": "ui://old" })?.resourceUri).toBe("ui://new");
		expect(toolUiOf({ ui: { resourceUri: "https://evil.example/app.html" } })).toBeUndefined();
		expect(toolUiOf(undefined)).toBeUndefined();
		expect(toolUiOf({ other: 1 })).toBeUndefined();
	});

	it("keeps a tool from the model only when its visibility leaves out model; from apps only when it leaves out app", () => {
		const tool = (meta: unknown) => ({ ui: toolUiOf(meta) });
		const audience = (meta: unknown) => [visibleToModel(tool(meta)), callableByApp(tool(meta))];
		expect(audience(undefined)).toEqual([true, true]);
		expect(audience({ ui: { resourceUri: "ui://v" } })).toEqual([true, true]);
		expect(audience({ ui: { visibility: ["model", "app"] } })).toEqual([true, true]);
		expect(audience({ ui: { visibility: ["app"] } })).toEqual([false, true]);
		expect(audience({ ui: { visibility: ["model"] } })).toEqual([true, false]);
		expect(audience({ ui: { visibility: [] } })).toEqual([false, false]);
		// A value this client does not know is left out; a malformed list reaches no one (as 2.36).
		expect(audience({ ui: { visibility: ["app", "user"] } })).toEqual([false, true]);
		expect(audience({ ui: { visibility: "app" } })).toEqual([false, false]);
		expect(audience({ ui: { visibility: ["model", 1] } })).toEqual([false, false]);
	});
});

describe("tools marked for the app only", () => {
	let dir: ReturnType<typeof tempDir>;
	beforeEach(() => {
		dir = tempDir();
	});
	afterEach(() => dir.remove());

	const tool = (name: string, meta?: unknown): ToolMetadata => ({
		server: "board",
		name,
		description: `${name} of the board`,
		inputSchema: { type: "object" },
		...(meta ? { ui: toolUiOf(meta) } : {}),
	});
	const listing = [
		tool("show_board", { ui: { resourceUri: "ui://board/view.html" } }),
		tool("refresh_board", { ui: { visibility: ["app"] } }),
		tool("model_only", { ui: { visibility: ["model"] } }),
		tool("add_note"),
	];

	it("are cached with their declaration but never enter the catalog or the direct tools", async () => {
		const config = configOf({ board: { command: "board-server", directTools: true } });
		await new MetadataCache(dir.path).store(entryOf(config, "board"), { tools: listing, resources: [] });
		// 2.36's copy says it as 2.36 does, so 2.36 and pi-subagents keep it from the model too.
		const copy = JSON.parse(readFileSync(join(dir.path, "mcp-cache.json"), "utf8")).servers.board.tools;
		expect(copy.find((t: { name: string }) => t.name === "refresh_board").uiVisibility).toEqual(["app"]);
		expect(copy.find((t: { name: string }) => t.name === "show_board").uiResourceUri).toBe("ui://board/view.html");
		const cache = new MetadataCache(dir.path);
		expect(cache.lookup(entryOf(config, "board"))?.tools.find((t) => t.name === "refresh_board")?.ui).toEqual({
			visibility: ["app"],
		});
		const lifecycle = new ServerLifecycle({
			config,
			cache,
			manager: new McpServerManager({ requestTimeoutMs: config.settings.requestTimeoutMs }),
		});
		expect(lifecycle.catalog.all().map((t) => t.name)).toEqual(["show_board", "model_only", "add_note"]);
		expect(lifecycle.catalog.resolve("board_refresh_board").kind).toBe("missing");
		expect(lifecycle.catalog.forServer("board").find((t) => t.name === "show_board")?.ui?.resourceUri).toBe(
			"ui://board/view.html",
		);
		const direct = planDirectTools(lifecycle.catalog, directSelection(config, {}), ["board"]).tools;
		expect(direct.map((t) => t.name)).toEqual(["board_show_board", "board_model_only", "board_add_note"]);
		await lifecycle.shutdown();
	});
});
