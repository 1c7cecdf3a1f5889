// 2.36's includeTools / excludeTools / approveTools: its patterns matched as 2.36 matches them, the
// catalog keeping only the tools they leave, and the approval question with its four answers.
import { describe, expect, it } from "vitest";
import { ToolCatalog } from "../../catalog/tool-catalog.ts";
import { needsApproval, ToolPatterns } from "../../catalog/tool-patterns.ts";
import { ToolApprovals } from "../../client/tool-approval.ts";
import type { Dialogs } from "../../client/user-dialogs.ts";
import { defineServer } from "../../config.ts";
import { SavedToolApprovals } from "../../trust/saved-tool-approvals.ts";
import { DEFAULT_SETTINGS, type ToolMetadata } from "../../types.ts";
import { tempDir } from "../support/helpers.ts";

const tool = (server: string, name: string, extra: Partial<ToolMetadata> = {}): ToolMetadata => ({
	server,
	name,
	description: "",
	inputSchema: { type: "object" },
	...extra,
});

describe("2.36's tool patterns", () => {
	const tools = ["delete_repo", "get_file", "merge_pull_request", "create-issue", "github_search", "a.b"].map((n) =>
		tool("github", n),
	);
	const patterns = new ToolPatterns("github", "server", tools);
	const names = (list: string[]) => tools.filter((t) => patterns.matches(t, list)).map((t) => t.name);

	it("matches the bare name, the prefixed names and globs with * and ?, case-sensitively", () => {
		expect(names(["delete_*"])).toEqual(["delete_repo"]);
		expect(names(["github_delete_*"])).toEqual(["delete_repo"]);
		expect(names(["mcp__github_delete_repo"])).toEqual(["delete_repo"]);
		expect(names(["mcp__github__delete_repo"])).toEqual([]);
		expect(names(["get_fil?"])).toEqual(["get_file"]);
		expect(names(["GET_*"])).toEqual([]);
		expect(names(["merge_pull_request"])).toEqual(["merge_pull_request"]);
		// A prefix the tool's name already carries is not repeated; dots read as underscores.
		expect(names(["github_search"])).toEqual(["github_search"]);
		expect(names(["github_a_b"])).toEqual(["a.b"]);
		expect(names(["*"])).toHaveLength(tools.length);
	});

	it("takes 2.36's older spelling (- as _) only when no other tool answers to the pattern", () => {
		expect(names(["create_issue"])).toEqual(["create-issue"]);
		expect(names(["github_create_issue"])).toEqual(["create-issue"]);
	});

	it("reads a resource tool (get_<name> here) as 2.36's read_<name>", () => {
		const resource = tool("figma", "get_figjam", { resourceUri: "figma://figjam" });
		const kept = new ToolPatterns("figma", "server", [resource]).kept([resource], undefined, ["read_figjam"]);
		expect(kept).toEqual([]);
	});

	it("keeps what includeTools names, less what excludeTools names (2.36's README examples)", () => {
		const list = ["get_a", "get_b", "dokploy_list_apps", "other"].map((n) => tool("dokploy", n));
		const dokploy = new ToolPatterns("dokploy", "server", list);
		expect(dokploy.kept(list, ["get_*", "dokploy_list_apps"], ["get_b"]).map((t) => t.name)).toEqual([
			"get_a",
			"dokploy_list_apps",
		]);
	});

	it("filters the catalog, resource tools included: what is left out cannot be resolved", () => {
		const catalog = new ToolCatalog("server", ["s"]);
		const list = [tool("s", "keep"), tool("s", "drop")];
		catalog.set("s", { tools: list, resources: [{ uri: "x://r", name: "r" }] }, true, (all) =>
			new ToolPatterns("s", "server", all).kept(all, undefined, ["drop", "read_r"]),
		);
		expect(catalog.all().map((t) => t.qualifiedName)).toEqual(["s_keep"]);
		expect(catalog.resolve("s_drop").kind).toBe("missing");
	});
});

describe("approveTools", () => {
	const github = defineServer("github", { command: "x", approveTools: ["delete_*"] });
	const docs = defineServer("docs", { command: "x", approveTools: false });
	const plain = defineServer("plain", { command: "x" });
	const settings = { ...DEFAULT_SETTINGS, approveTools: ["plain_danger"] };
	const del = tool("github", "delete_repo");

	it("per server over the settings' default; false turns it off for that server", () => {
		expect(needsApproval(github, settings, del, [del])).toBe(true);
		expect(needsApproval(github, settings, tool("github", "get"), [del])).toBe(false);
		expect(needsApproval(docs, settings, tool("docs", "anything"), [])).toBe(false);
		expect(needsApproval(plain, settings, tool("plain", "danger"), [])).toBe(true);
		expect(needsApproval(plain, settings, tool("plain", "safe"), [])).toBe(false);
	});

	/** Dialogs that answer each question with the next answer given, recording the questions. */
	function answering(...answers: (string | undefined)[]): { dialogs: Dialogs; asked: string[] } {
		const asked: string[] = [];
		const dialogs = {
			select: async (title: string) => {
				asked.push(title);
				return answers.shift();
			},
		} as unknown as Dialogs;
		return { dialogs, asked };
	}

	it("asks with Deny first; 'Allow for session' covers the same arguments only; 'Allow server' the server", async () => {
		const { dialogs, asked } = answering("Allow for session", "Deny", "Allow server for this session");
		const approvals = new ToolApprovals({ dialogs: () => dialogs });
		expect(await approvals.ask(github, del, { repo: "a" })).toBeUndefined();
		expect(asked[0]).toContain("MCP: github wants to run delete_repo");
		expect(await approvals.ask(github, del, { repo: "a" })).toBeUndefined(); // not asked again
		expect(asked).toHaveLength(1);
		expect(await approvals.ask(github, del, { repo: "b" })).toMatchObject({ error: "approval_denied" });
		expect(await approvals.ask(github, del, { repo: "c" })).toBeUndefined();
		expect(await approvals.ask(github, del, { repo: "d" })).toBeUndefined();
		expect(asked).toHaveLength(3);
	});

	it("Esc or a closed dialog denies; without a UI the call is refused with the reason", async () => {
		const { dialogs } = answering(undefined);
		expect(await new ToolApprovals({ dialogs: () => dialogs }).ask(github, del, {})).toMatchObject({
			error: "approval_denied",
		});
		const headless = await new ToolApprovals({ dialogs: () => undefined }).ask(github, del, {});
		expect(headless).toMatchObject({ error: "approval_required" });
		expect(headless?.message).toContain("requires an interactive session");
	});

	it("'Always allow' is saved in the user's file: later sessions and runs without a UI run it; a new launch asks again", async () => {
		const dir = tempDir();
		try {
			const saved = new SavedToolApprovals(dir.path);
			const { dialogs, asked } = answering("Always allow this tool (saved)", "Deny");
			expect(
				await new ToolApprovals({ dialogs: () => dialogs, saved }).ask(github, del, { repo: "a" }),
			).toBeUndefined();
			// Another session, other arguments, no UI: the saved answer holds.
			const later = new ToolApprovals({ dialogs: () => undefined, saved: new SavedToolApprovals(dir.path) });
			expect(await later.ask(github, del, { repo: "b" })).toBeUndefined();
			expect(asked).toHaveLength(1);
			// The same name launching something else is not what the user allowed.
			const moved = defineServer("github", { command: "y", approveTools: ["delete_*"] });
			expect(await new ToolApprovals({ dialogs: () => dialogs, saved }).ask(moved, del, {})).toMatchObject({
				error: "approval_denied",
			});
			expect(asked).toHaveLength(2);
		} finally {
			dir.remove();
		}
	});
});
