// The whole proxy path against the real server-everything over stdio, streamable HTTP and SSE.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerLifecycle } from "../../lifecycle.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { configOf, everythingStdio, lifecycleOf, type RunningServer, startEverythingHttp } from "../support/helpers.ts";

const transports = [
	{ label: "stdio", mode: undefined, path: "" },
	{ label: "streamable HTTP", mode: "streamableHttp", path: "/mcp" },
	{ label: "SSE (fallback from a plain url)", mode: "sse", path: "/sse" },
] as const;

describe.each(transports)("server-everything over $label", ({ mode, path }) => {
	let server: RunningServer | undefined;
	let lifecycle: ServerLifecycle;

	beforeAll(async () => {
		let entry: Record<string, unknown> = everythingStdio();
		if (mode) {
			server = await startEverythingHttp(mode);
			entry = { url: `http://127.0.0.1:${server.port}${path}` };
		}
		lifecycle = lifecycleOf(configOf({ everything: entry }));
	});

	afterAll(async () => {
		await lifecycle?.shutdown();
		await server?.stop();
	});

	const run = async (input: Parameters<typeof runProxy>[1]) => {
		const result = await runProxy(lifecycle, input);
		return { ...result, text: contentText(result.content) };
	};

	it("shows status before and after connecting, on the right transport", async () => {
		const before = await run({});
		expect(before.text).toContain("everything: not connected yet (lazy)");
		const connected = await run({ connect: "everything" });
		expect(connected.isError).toBe(false);
		expect(connected.text).toContain(mode === "sse" ? "(sse)" : mode ? "(streamable-http)" : "(stdio)");
		const after = await run({});
		expect(after.text).toMatch(/everything: connected, \d+ tools, \d+ resources/);
	});

	it("lists the server's tools with compact parameters", async () => {
		const list = await run({ server: "everything" });
		expect(list.text).toMatch(/everything: \d+ tools, \d+ resources/);
		expect(list.text).toContain("- everything_get-sum (a: number, b: number): Returns the sum of two numbers");
		expect(list.text).toContain("everything_get_architecture_md");
	});

	it("a listing carries the start of the server's instructions; the whole comes on request", async () => {
		const list = await run({ server: "everything" });
		expect(list.text).toContain('Instructions from "everything", the start (all ');
		expect(list.text).toContain('mcp({server:"everything",instructions:true})');
		expect(list.text).toContain("Audience: These instructions are written for an LLM");
		expect(list.text).not.toContain("Easter Egg");
		const whole = await run({ server: "everything", instructions: true });
		expect(whole.text).toMatch(/^everything: \d+ tools, \d+ resources/);
		expect(whole.text).toContain("## Constraints & Limitations");
		expect(whole.text).toContain("## Easter Egg");
		expect(whole.text).not.toContain("- everything_get-sum");
	});

	it("search ranks a name match above description matches", async () => {
		const result = await run({ search: "sum" });
		const first = result.text.split("\n")[0];
		expect(first).toMatch(/^- everything_get-sum /);
		const filtered = await run({ search: "echo", server: "everything", includeSchemas: false });
		expect(filtered.text.split("\n")[0]).toBe("- everything_echo: Echoes back the input string");
	});

	it("describes a tool's parameters", async () => {
		const result = await run({ describe: "everything_trigger-long-running-operation" });
		expect(result.text).toContain("- duration (number, optional, default 10): Duration of the operation in seconds");
		expect(result.text).toContain("- steps (number, optional, default 5)");
	});

	it("calls echo and get-sum, with args as object or JSON string", async () => {
		expect((await run({ tool: "everything_echo", args: { message: "hi there" } })).text).toBe("Echo: hi there");
		const sum = await run({ tool: "everything_get-sum", args: '{"a": 19, "b": 23}' });
		expect(sum.isError).toBe(false);
		expect(sum.text).toContain("42");
	});

	it("returns get-tiny-image as a real image", async () => {
		const result = await run({ tool: "everything_get-tiny-image" });
		const image = result.content.find((c) => c.type === "image");
		expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
		expect(
			Buffer.from((image as { data: string }).data, "base64")
				.subarray(1, 4)
				.toString(),
		).toBe("PNG");
	});

	it("shows structured content and resource links", async () => {
		const structured = await run({ tool: "everything_get-structured-content", args: { location: "Chicago" } });
		expect(JSON.parse(structured.text)).toHaveProperty("temperature");
		const links = await run({ tool: "everything_get-resource-links", args: { count: 2 } });
		expect(links.text).toMatch(/\[resource link\] .*demo:\/\/resource\/dynamic\//);
	});

	it("answers a rejected call with the server's error and the tool's parameters", async () => {
		const result = await run({ tool: "everything_get-sum", args: { a: "one" } });
		expect(result.isError).toBe(true);
		expect(result.text).toMatch(/expected number/i);
		expect(result.text).toContain("- b (number, required): Second number");
	});

	it("reads a resource through its get_ tool", async () => {
		const result = await run({ tool: "everything_get_architecture_md" });
		expect(result.isError).toBe(false);
		expect(result.text).toContain("[resource demo://resource/static/document/architecture.md (text/markdown)]");
		expect(result.text.length).toBeGreaterThan(200);
	});

	it("suggests close names for an unknown tool", async () => {
		const result = await run({ tool: "everything_get_sum" });
		expect(result.isError).toBe(true);
		expect(result.text).toContain("Did you mean: everything_get-sum");
	});
});
