import { describe, expect, it } from "vitest";
import { type PrestartTarget, prestartOnStreamedCalls, serversOfCall } from "../../start-up/streamed-call.ts";

const tools = [
	{ qualifiedName: "git_status", server: "git" },
	{ qualifiedName: "git_log", server: "git" },
	{ qualifiedName: "github_create_issue", server: "github" },
	{ qualifiedName: "memory_read_graph", server: "memory" },
];

function target(started: string[] = []): PrestartTarget {
	return {
		serverNames: () => ["git", "github", "memory", "dev-radius"],
		tools: () => tools,
		piToolServer: (name) => ({ memory_read_graph: "memory", mcp__github__create_issue: "github" })[name],
		reaches: (name, input) => (name === "codemode" ? (String(input.code ?? "").match(/\w+/g) ?? []) : undefined),
		namespaceOf: (server) => `mcp__${server.replace(/[^A-Za-z0-9_]/g, "_")}`,
		prestart: (server) => started.push(server),
	};
}

const proxy = (args: Record<string, unknown>) => serversOfCall({ name: "mcp", arguments: args }, "mcp", target());

describe("which servers a streamed call names", () => {
	it("mcp({tool}): a server once the name so far is only its tools'", () => {
		expect(proxy({ tool: "git" })).toEqual([]); // git_ or github_: not yet known
		expect(proxy({ tool: "git_" })).toEqual(["git"]);
		expect(proxy({ tool: "gith" })).toEqual(["github"]);
		expect(proxy({ tool: "nothing_like_it" })).toEqual([]);
		expect(proxy({ tool: "" })).toEqual([]);
	});

	it("mcp({connect}) and mcp({tool, server}) name their server; an unknown one nothing", () => {
		expect(proxy({ connect: "memory" })).toEqual(["memory"]);
		expect(proxy({ connect: "mem" })).toEqual([]); // still streaming, or a typo
		expect(proxy({ tool: "x", server: "github" })).toEqual(["github"]);
		expect(proxy({ search: "issues" })).toEqual([]);
	});

	it("a direct tool or a Pi 1.5 tool names its server", () => {
		expect(serversOfCall({ name: "memory_read_graph", arguments: {} }, "mcp", target())).toEqual(["memory"]);
		expect(serversOfCall({ name: "mcp__github__create_issue", arguments: {} }, "mcp", target())).toEqual(["github"]);
		expect(serversOfCall({ name: "bash", arguments: { command: "ls" } }, "mcp", target())).toEqual([]);
	});

	it("a codemode script: every server whose namespace it has written out so far", () => {
		const script = (code: string) => serversOfCall({ name: "codemode", arguments: { code } }, "mcp", target());
		expect(script("await tools.mcp__git")).toEqual([]); // mcp__git or mcp__github: not yet known
		expect(script("await tools.mcp__git__status(); await tools.mcp__dev_radius__")).toEqual(["git", "dev-radius"]);
		expect(script('const n = "mcp__memory__" + name')).toEqual(["memory"]);
	});
});

describe("prestartOnStreamedCalls", () => {
	type Handler = Parameters<Parameters<typeof prestartOnStreamedCalls>[0]["on"]>[1];
	const host = () => {
		const handlers: Handler[] = [];
		return {
			on: (_event: "message_update", handler: Handler) => handlers.push(handler),
			emit: (e: Parameters<Handler>[0]) => {
				for (const h of handlers) h(e);
			},
		};
	};
	const piece = (type: string, block: unknown) => ({
		assistantMessageEvent: { type, contentIndex: 1, partial: { content: [{ type: "text", text: "" }, block] } },
	});

	it("starts a server once per call as the call streams, and only for tool-call pieces", () => {
		const pi = host();
		const started: string[] = [];
		prestartOnStreamedCalls(pi, "mcp", () => target(started));
		const block = { type: "toolCall", id: "c1", name: "mcp", arguments: {} as Record<string, unknown> };
		pi.emit(piece("toolcall_start", block));
		block.arguments = { tool: "memory_r" };
		pi.emit(piece("toolcall_delta", block));
		block.arguments = { tool: "memory_read_graph" };
		pi.emit(piece("toolcall_delta", block));
		pi.emit(piece("toolcall_end", block));
		pi.emit(piece("text_delta", { type: "toolCall", name: "mcp", arguments: { connect: "git" } }));
		expect(started).toEqual(["memory"]);
		// A second call to the same server in the same message asks again (the runtime knows it runs).
		pi.emit(piece("toolcall_end", { type: "toolCall", id: "c2", name: "mcp", arguments: { connect: "memory" } }));
		expect(started).toEqual(["memory", "memory"]);
	});

	it("does nothing before the session's runtime exists", () => {
		const pi = host();
		prestartOnStreamedCalls(pi, "mcp", () => undefined);
		expect(() => pi.emit(piece("toolcall_delta", { type: "toolCall", name: "mcp", arguments: {} }))).not.toThrow();
	});
});
