// The restored MCP tools Pi 1.x could not activate at a session's start (pi/restored-tools.ts): the
// transcript's loadout replayed as Pi replays it, and what the first prompt waits for and activates,
// over a fake of Pi's tool API and of the runtime (the real Pi: tests/e2e/restored-tools-pi.test.ts).
import { describe, expect, it } from "vitest";
import type { McpRuntime } from "../../mcp-runtime.ts";
import type { Pi15ToolApi } from "../../pi/pi-tools.ts";
import { RestoredTools, recordedLoadout } from "../../pi/restored-tools.ts";

const system = (added: string[], removed: string[] = []) => ({
	type: "message",
	message: {
		role: "system",
		toolsAdded: added.map((name) => ({ name, description: "" })),
		toolsRemoved: removed.map((name) => ({ name })),
	},
});
const user = { type: "message", message: { role: "user", content: "hi" } };

/** Pi's tool registry and active set, as the extension API shows them. */
class FakePi implements Pi15ToolApi {
	readonly registered = new Set<string>(["read", "tool_search"]);
	active = ["read", "tool_search"];
	registerTool(definition: Record<string, unknown>): void {
		this.registered.add(definition.name as string);
	}
	getAllTools() {
		return [...this.registered].map((name) => ({ name }));
	}
	getActiveTools(): string[] {
		return [...this.active];
	}
	setActiveTools(names: string[]): void {
		this.active = names.filter((name) => this.registered.has(name));
	}
}

/** A runtime whose servers list their tools when waited for (registering them is `listed`'s job). */
function fakeRuntime(servers: string[], waited: string[][]): McpRuntime {
	return {
		lifecycle: {
			serverNames: () => servers,
			ensureMetadata: async (names: string[]) => {
				waited.push(names);
				return [];
			},
		},
	} as unknown as McpRuntime;
}

function restoredTools(pi: FakePi, lists: Record<string, string[]>, waited: string[][]) {
	return new RestoredTools({
		pi,
		runtime: async () => fakeRuntime(Object.keys(lists), waited),
		listed: () => {
			for (const names of Object.values(lists)) for (const name of names) pi.registerTool({ name });
		},
	});
}

const branch = (...entries: unknown[]) => ({ sessionManager: { getBranch: () => entries } });

describe("the loadout a transcript records", () => {
	it("replays every system message's removals, then additions, in order; other entries are not read", () => {
		const loadout = recordedLoadout([
			system(["read", "bash", "tool_search"]),
			user,
			system(["mcp__gh__search", "mcp__gh__create"]),
			system(["mcp__docs__find"], ["mcp__gh__create", "bash"]),
			{ type: "compaction", systemMessage: system(["ignored"]).message },
		]);
		expect(loadout.sort()).toEqual(["mcp__docs__find", "mcp__gh__search", "read", "tool_search"]);
	});

	it("reads a malformed transcript as no loadout", () => {
		expect(recordedLoadout([null, 3, { type: "message" }, { type: "message", message: { role: "system" } }])).toEqual(
			[],
		);
	});
});

describe("a session's first prompt", () => {
	const loadout = branch(system(["read", "tool_search"]), user, system(["mcp__gh__search"]));

	it("waits for the server of a restored tool not registered yet, then activates it; not again at the next prompt", async () => {
		const pi = new FakePi();
		const waited: string[][] = [];
		const restored = restoredTools(pi, { gh: ["mcp__gh__search", "mcp__gh__create"], docs: [] }, waited);
		restored.started();
		await restored.beforePrompt(loadout);
		expect(waited).toEqual([["gh"]]);
		expect(pi.active).toEqual(["read", "tool_search", "mcp__gh__search"]);
		pi.active = ["read"];
		await restored.beforePrompt(loadout);
		expect(pi.active).toEqual(["read"]);
	});

	it("waits once per session: a restored tool its server no longer lists is not waited for again", async () => {
		const pi = new FakePi();
		const waited: string[][] = [];
		const restored = restoredTools(pi, { gh: ["mcp__gh__create"] }, waited);
		restored.started();
		await restored.beforePrompt(loadout);
		await restored.beforePrompt(loadout);
		expect(waited).toEqual([["gh"]]);
		expect(pi.active).toEqual(["read", "tool_search"]);
		restored.started();
		await restored.beforePrompt(loadout);
		expect(waited).toEqual([["gh"], ["gh"]]);
	});

	it("waits for nothing when every restored tool is registered (the cache had them), or none is an MCP tool", async () => {
		const pi = new FakePi();
		pi.registerTool({ name: "mcp__gh__search" });
		pi.active.push("mcp__gh__search");
		const waited: string[][] = [];
		const restored = restoredTools(pi, { gh: ["mcp__gh__search"] }, waited);
		restored.started();
		await restored.beforePrompt(loadout);
		restored.started();
		await restored.beforePrompt(branch(system(["read", "tool_search"])));
		expect(waited).toEqual([]);
	});

	it("leaves a loadout someone changed alone: a restored MCP tool turned off since Pi restored it", async () => {
		const pi = new FakePi();
		pi.registerTool({ name: "mcp__docs__find" }); // registered, restored, then turned off
		const waited: string[][] = [];
		const restored = restoredTools(pi, { gh: ["mcp__gh__search"], docs: ["mcp__docs__find"] }, waited);
		restored.started();
		await restored.beforePrompt(branch(system(["read", "tool_search", "mcp__docs__find", "mcp__gh__search"])));
		expect(waited).toEqual([]);
		expect(pi.active).toEqual(["read", "tool_search"]);
	});

	it("does nothing before a session started, or with no transcript (a host without a session manager)", async () => {
		const pi = new FakePi();
		const waited: string[][] = [];
		const restored = restoredTools(pi, { gh: ["mcp__gh__search"] }, waited);
		await restored.beforePrompt(loadout);
		restored.started();
		await restored.beforePrompt({});
		expect(waited).toEqual([]);
		expect(pi.active).toEqual(["read", "tool_search"]);
	});
});
