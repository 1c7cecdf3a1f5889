// What the client offers servers, through the runtime against the real server-everything over
// stdio and streamable HTTP, with the user's side scripted: answers are checked and asked again,
// "always allow" holds for the session, a task that needs input asks through tasks/result, a
// cancelled task is cancelled on the server, prompts complete their arguments, roots follow the
// working folder. The real-Pi side of the same is client-features-pi.test.ts.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { ListTasksResultSchema } from "@modelcontextprotocol/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Sampler } from "../../client/sampling.ts";
import type { Dialogs } from "../../client/user-dialogs.ts";
import { McpRuntime } from "../../mcp-runtime.ts";
import { assignArguments, PromptCommands } from "../../pi-commands/prompt-commands.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { everythingStdio, type RunningServer, startEverythingHttp, tempDir } from "../support/helpers.ts";

interface Asked {
	readonly kind: "select" | "input" | "confirm";
	readonly title: string;
	readonly options?: string[];
}

/** Dialogs that answer from a script (a function of the question) and record what was asked. */
function scriptedDialogs(
	answer: (q: Asked) => string | boolean | undefined,
): Dialogs & { asked: Asked[]; notes: string[] } {
	const asked: Asked[] = [];
	const notes: string[] = [];
	return {
		asked,
		notes,
		select: async (title, options) => {
			// A question taller than a screen comes in pages: read on.
			if (options[0]?.startsWith("Next page")) return options[0];
			// The answers before sending are asked as a select whose first choice is "Don't send": scripted as a confirm.
			if (options.includes("Send")) {
				asked.push({ kind: "confirm", title });
				return answer({ kind: "confirm", title }) === true ? "Send" : "Don't send";
			}
			asked.push({ kind: "select", title, options });
			return answer({ kind: "select", title, options }) as string | undefined;
		},
		input: async (title) => {
			asked.push({ kind: "input", title });
			return answer({ kind: "input", title }) as string | undefined;
		},
		confirm: async (title) => {
			asked.push({ kind: "confirm", title });
			return answer({ kind: "confirm", title }) === true;
		},
		notify: (message) => notes.push(message),
	};
}

const sampler: Sampler = {
	modelName: "test-model",
	complete: async (params) => ({
		text: `echo: ${JSON.stringify(params.messages[0].content)}`,
		model: "test-model",
		stopReason: "endTurn",
		inputTokens: 12,
		outputTokens: 3,
	}),
};

const transports = [
	{ label: "stdio", http: false },
	{ label: "streamable HTTP", http: true },
] as const;

describe.each(transports)("client features over $label", ({ http }) => {
	let server: RunningServer | undefined;
	let dir: ReturnType<typeof tempDir>;
	let runtime: McpRuntime;
	let answer: (q: Asked) => string | boolean | undefined = () => undefined;
	let dialogs: ReturnType<typeof scriptedDialogs>;

	beforeAll(async () => {
		dir = tempDir();
		if (http) server = await startEverythingHttp("streamableHttp");
		const entry = server ? { url: `http://127.0.0.1:${server.port}/mcp` } : everythingStdio();
		writeFileSync(join(dir.path, "mcp.json"), JSON.stringify({ mcpServers: { everything: entry } }));
		runtime = new McpRuntime({
			cwd: dir.path,
			env: { ...process.env, PI_CODING_AGENT_DIR: join(dir.path, "agent") },
			configPath: join(dir.path, "mcp.json"),
		});
		dialogs = scriptedDialogs((q) => answer(q));
		runtime.client.host = { dialogs, sampler: () => sampler };
	});
	afterAll(async () => {
		await runtime?.shutdown();
		await server?.stop();
		dir?.remove();
	});

	const call = async (tool: string, args: Record<string, unknown> = {}, signal?: AbortSignal) => {
		const result = await runProxy(
			runtime.lifecycle,
			{ tool: `everything_${tool}`, args },
			{ signal, notes: (s) => runtime.client.takeNotes(s) },
		);
		return contentText(result.content);
	};

	it("asks again, saying why, when an answer does not fit the field", async () => {
		const tries: Record<string, string[]> = {
			"Your full, legal name": ["", "Grace"],
			Integer: ["4.5", "500", "12"],
			"email address": ["nope", "g@h.io"],
		};
		answer = (q) => {
			if (q.kind === "confirm") return true;
			const field = Object.keys(tries).find((k) => q.title.includes(k));
			if (field) return tries[field].shift();
			if (q.kind === "input") return "";
			return (
				q.options?.find((o) => o.startsWith("Done")) ??
				q.options?.find((o) => o.endsWith("(default)")) ??
				q.options?.[0]
			);
		};
		const text = await call("trigger-elicitation-request");
		expect(text).toContain("Name: Grace");
		expect(text).toContain("Favorite Integer: 12");
		expect(text).toContain("Email: g@h.io");
		const retried = dialogs.asked.map((q) => q.title.split("\n").pop());
		expect(retried).toContain("This answer is required.");
		expect(retried).toContain("A whole number, please.");
		expect(retried).toContain("At most 100.");
		expect(retried).toContain("This should be an email address.");
	});

	it("a multi-select holds to minItems before Done", async () => {
		dialogs.asked.length = 0;
		let unchecked = false;
		answer = (q) => {
			if (q.kind === "confirm") return true;
			if (q.kind === "input") return q.title.includes("legal name") ? "Kim" : "";
			const options = q.options ?? [];
			if (q.title.includes("favorite instruments")) {
				// Uncheck the default, try Done with none, then pick Piano.
				if (!unchecked) {
					unchecked = true;
					return "[x] Guitar";
				}
				if (options.includes("[ ] Piano") && q.title.includes("Choose at least 1.")) return "[ ] Piano";
				return options.find((o) => o.startsWith("Done"));
			}
			return options.find((o) => o.startsWith("Done")) ?? options[0];
		};
		const text = await call("trigger-elicitation-request");
		expect(dialogs.asked.some((q) => q.title.endsWith("Choose at least 1."))).toBe(true);
		expect(text).toContain('"Piano"');
		expect(text).not.toContain('"Guitar"');
	});

	it("sampling: 'always allow' asks once for the session; the reply and token use come back", async () => {
		dialogs.asked.length = 0;
		answer = (q) => q.options?.find((o) => o.startsWith("Always allow"));
		const first = await call("trigger-sampling-request", { prompt: "first" });
		const second = await call("trigger-sampling-request", { prompt: "second" });
		expect(first).toContain("echo:");
		expect(first).toContain("first");
		expect(second).toContain("second");
		expect(dialogs.asked.filter((q) => q.title.includes("asks to use your model"))).toHaveLength(1);
		expect(dialogs.notes).toContain('"everything" used test-model: 12 tokens in, 3 out.');
	});

	it("a task that needs input asks through tasks/result and completes with the answer", async () => {
		answer = (q) => (q.kind === "confirm" ? true : q.options?.find((o) => o.includes("snake")));
		const text = await call("simulate-research-query", { topic: "python", ambiguous: true });
		expect(text).toContain("Research Report: python (snake)");
		expect(dialogs.asked.some((q) => q.title.includes("could have multiple interpretations"))).toBe(true);
	}, 30_000);

	it("cancelling a task-only tool cancels its task on the server", async () => {
		const controller = new AbortController();
		const running = call("simulate-research-query", { topic: "cancel me" }, controller.signal);
		const connection = () => runtime.lifecycle.manager.get("everything");
		const tasks = async () =>
			(await connection()?.client.request({ method: "tasks/list", params: {} }, ListTasksResultSchema))?.tasks ?? [];
		// Cancel once the server holds the task running, not after a guessed delay.
		await vi.waitFor(async () => expect((await tasks()).some((t) => t.status === "working")).toBe(true), {
			timeout: 20_000,
		});
		controller.abort();
		expect(await running).toContain("was cancelled");
		// The server is told after the call returned: wait for its task to show cancelled.
		await vi.waitFor(async () => expect((await tasks()).some((t) => t.status === "cancelled")).toBe(true), {
			timeout: 20_000,
		});
	}, 30_000);

	it("prompts complete their arguments from the server, and the answer depends on what came before", async () => {
		const commands = new Map<string, { getArgumentCompletions?: (prefix: string) => unknown; handler: unknown }>();
		const pi = {
			registerCommand: (name: string, command: never) => commands.set(name, command),
			sendUserMessage: () => undefined,
			on: () => undefined,
		} as unknown as ExtensionAPI;
		new PromptCommands(
			pi,
			async () => runtime,
			() => undefined,
		).sync(runtime);
		expect([...commands.keys()]).toEqual(expect.arrayContaining(["everything:completable-prompt"]));
		const complete = commands.get("everything:completable-prompt")?.getArgumentCompletions;
		expect(await complete?.("Eng")).toEqual([
			{ value: "Engineering", label: "Engineering", description: "department" },
		]);
		expect(await complete?.("Engineering C")).toEqual([
			{ value: "Engineering Charlie", label: "Charlie", description: "name" },
		]);
		expect(await complete?.("department=Sales name=")).toEqual(
			["David", "Eve", "Frank"].map((n) => ({ value: `department=Sales name=${n}`, label: n, description: "name" })),
		);
	});

	it("roots are the working folder; a new one is told to the server (roots/list_changed)", async () => {
		expect(await call("get-roots-list")).toContain(`file://${dir.path}`);
		const other = join(dir.path, "elsewhere");
		mkdirSync(other);
		await runtime.setWorkingFolder(other);
		// The server asks for the roots again when told they changed: wait until it has the new one.
		await vi.waitFor(async () => expect(await call("get-roots-list")).toContain(`file://${other}`), {
			timeout: 20_000,
		});
		expect(await call("get-roots-list")).toContain("Current MCP Roots (1 total)");
	});
});

describe('a server configured with "roots": false', () => {
	it("is offered no roots: the client declares none to it, and a new working folder tells it nothing", async () => {
		const dir = tempDir();
		const config = { mcpServers: { everything: { ...everythingStdio(), roots: false } } };
		writeFileSync(join(dir.path, "mcp.json"), JSON.stringify(config));
		const runtime = new McpRuntime({
			cwd: dir.path,
			env: { ...process.env, PI_CODING_AGENT_DIR: join(dir.path, "agent") },
			configPath: join(dir.path, "mcp.json"),
		});
		try {
			const listed = contentText((await runProxy(runtime.lifecycle, { server: "everything" })).content);
			// server-everything lists get-roots-list only to a client that declares roots.
			expect(listed).toContain("everything_get-sum");
			expect(listed).not.toContain("get-roots-list");
			await runtime.setWorkingFolder(join(dir.path, "elsewhere"));
			const sum = await runProxy(runtime.lifecycle, { tool: "everything_get-sum", args: { a: 1, b: 2 } });
			expect(contentText(sum.content)).toContain("The sum of 1 and 2 is 3");
		} finally {
			await runtime.shutdown();
			dir.remove();
		}
	});
});

describe("prompt arguments on the command line", () => {
	const args = [{ name: "city", required: true }, { name: "state" }];
	it("by name, in order, quoted, and the last takes the rest of the line", () => {
		expect(assignArguments("Paris", args)).toEqual({ city: "Paris" });
		expect(assignArguments("state=TX Austin", args)).toEqual({ state: "TX", city: "Austin" });
		expect(assignArguments('"New York" New York State', args)).toEqual({ city: "New York", state: "New York State" });
		expect(assignArguments('city="San José" mood=happy', args)).toEqual({ city: "San José", state: "mood=happy" });
	});
});
