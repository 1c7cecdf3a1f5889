// Long calls against the real server-everything: progress reaches onUpdate, an abort returns at
// once and the server is told (notifications/cancelled, seen on the wire); the output guard's
// rules; and bad input from the model always answered with a clear error.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ServerLifecycle } from "../../lifecycle.ts";
import { OutputGuard } from "../../proxy/output-guard.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { normalizeProxyInput } from "../../proxy/surface.ts";
import { contentText, type PiContent } from "../../proxy/tool-results.ts";
import type { Progress } from "../../server-manager.ts";
import { configOf, EVERYTHING, everythingStdio, lifecycleOf, tempDir, waitUntil } from "../support/helpers.ts";

describe("long calls", () => {
	const cleanups: (() => unknown)[] = [];
	afterEach(async () => {
		for (const clean of cleanups.splice(0).reverse()) await clean();
	});

	it("progress from trigger-long-running-operation reaches onProgress as it happens", async () => {
		const lc = lifecycleOf(configOf({ everything: everythingStdio() }));
		cleanups.push(() => lc.shutdown());
		const seen: { progress: Progress; at: number }[] = [];
		const call = runProxy(
			lc,
			{ tool: "everything_trigger-long-running-operation", args: { duration: 1.5, steps: 3 } },
			{
				onProgress: (progress) => seen.push({ progress, at: performance.now() }),
			},
		);
		const result = await call;
		const finished = performance.now();
		expect(result.isError).toBe(false);
		// The last step's notification can race the result; the first ones arrive while the call runs.
		// The server's own progress (a cold start first says "starting everything…" while it connects).
		const own = seen.filter((s) => !s.progress.message?.startsWith("starting "));
		expect(own.map((s) => `${s.progress.progress}/${s.progress.total}`).slice(0, 2)).toEqual(["1/3", "2/3"]);
		expect(finished - own[0].at).toBeGreaterThan(500);
	});

	it("an abort mid-call returns at once and the server is told", async () => {
		const dir = tempDir();
		cleanups.push(dir.remove);
		const wire = join(dir.path, "client-to-server.jsonl");
		// tee records what the client writes to the server's stdin.
		const lc = lifecycleOf(
			configOf({
				everything: { command: "sh", args: ["-c", `tee "${wire}" | exec "${process.execPath}" "${EVERYTHING}" stdio`] },
			}),
		);
		cleanups.push(() => lc.shutdown());
		await lc.ensureConnected("everything");
		const controller = new AbortController();
		const call = runProxy(
			lc,
			{ tool: "everything_trigger-long-running-operation", args: { duration: 30, steps: 30 } },
			{ signal: controller.signal },
		);
		// The user presses Esc once the call is on the wire, at the server.
		await waitUntil(() => readFileSync(wire, "utf8").includes('"tools/call"'), "the call on the wire");
		controller.abort();
		const result = await call;
		expect(result.isError).toBe(true);
		expect(contentText(result.content)).toBe(
			"everything_trigger-long-running-operation was cancelled; the server was told to stop.",
		);
		// The cancellation reaches the server after the answer returned: wait for it on the wire.
		await waitUntil(
			() => readFileSync(wire, "utf8").includes("notifications/cancelled"),
			"the cancellation on the wire",
		);
		const messages = readFileSync(wire, "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l) as { method?: string; params?: { requestId?: unknown } });
		const call_ = messages.find((m) => m.method === "tools/call") as { id?: unknown };
		expect(messages.find((m) => m.method === "notifications/cancelled")?.params?.requestId).toBe(call_.id);
		expect(contentText((await runProxy(lc, { tool: "everything_echo", args: { message: "next" } })).content)).toBe(
			"Echo: next",
		);
	});
});

describe("OutputGuard", () => {
	const text = (t: string): PiContent => ({ type: "text", text: t });
	const guards: OutputGuard[] = [];
	afterEach(() => {
		for (const g of guards.splice(0)) g.dispose();
	});
	const guard = (limits?: ConstructorParameters<typeof OutputGuard>[0]) => {
		const g = new OutputGuard(limits);
		guards.push(g);
		return g;
	};

	it("passes small output and images untouched", () => {
		const image: PiContent = { type: "image", data: "iVBOR", mimeType: "image/png" };
		const content = [text("small"), image];
		expect(guard().apply(content, "t")).toEqual(content);
	});

	it("cuts on lines too, keeps images, and can be turned off", () => {
		const many = Array.from({ length: 2500 }, (_, i) => `line ${i}`).join("\n");
		const image: PiContent = { type: "image", data: "iVBOR", mimeType: "image/png" };
		const out = guard().apply([text(many), image], "lister");
		expect(out[1]).toEqual(image);
		const shown = (out[0] as { text: string }).text;
		expect(shown.split("\n")[199]).toBe("line 199");
		expect(shown).toMatch(
			/\[Output truncated: [\d.]+ KB, 2,500 lines; showing the first 200 lines\. The whole output is in \S+lister-1\.txt/,
		);
		expect(guard(false).apply([text(many)], "x")).toEqual([text(many)]);
		expect(
			guard({ maxBytes: 100_000, maxLines: 5000, previewBytes: 1000, previewLines: 10 }).apply([text(many)], "x"),
		).toEqual([text(many)]);
	});

	it("a single enormous line is still previewed", () => {
		const out = guard().apply([text("y".repeat(200_000))], "oneline");
		expect((out[0] as { text: string }).text.startsWith("y".repeat(8192))).toBe(true);
	});
});

describe("bad input from the model", () => {
	let lc: ServerLifecycle | undefined;
	afterEach(async () => {
		await lc?.shutdown();
		lc = undefined;
	});
	const ask = async (input: unknown) => {
		lc ??= lifecycleOf(configOf({ everything: everythingStdio() }));
		const result = await runProxy(lc, normalizeProxyInput(input));
		return { ...result, text: contentText(result.content) };
	};

	it.each<[string, unknown, RegExp]>([
		[
			"args that are an array",
			{ tool: "everything_echo", args: [1, 2] },
			/args must be an object of named arguments, got an array/,
		],
		[
			"args that are a number",
			{ tool: "everything_echo", args: 42 },
			/args must be an object of named arguments, got number/,
		],
		["args that are JSON for an array", { tool: "everything_echo", args: "[1,2]" }, /got an array/],
		[
			"broken JSON args",
			{ tool: "everything_echo", args: "{message: hi}" },
			/args is not valid JSON \(.*\)\. Pass an object/,
		],
		[
			"a missing required argument",
			{ tool: "everything_echo", args: {} },
			/Expected by everything_echo:\nParameters:\n- message \(string, required\)/,
		],
		["an unknown tool", { tool: "no_such_tool" }, /Unknown tool "no_such_tool"/],
		["an unknown server", { server: "nope" }, /Unknown server "nope"\. Configured servers: everything/],
		[
			"a bad regex",
			{ search: "(unclosed", regex: true },
			/Invalid regex "\(unclosed": .*Fix the pattern \(RE2 syntax: no lookaround or backreferences\), or drop regex: true/,
		],
		["connect to an unknown server", { connect: "ghost" }, /Unknown server "ghost"/],
	])("%s gets a clear error", async (_label, input, expected) => {
		const result = await ask(input);
		expect(result.isError).toBe(true);
		expect(result.text).toMatch(expected);
	});

	it("odd combinations follow the mode priority; `arguments` works like `args`; huge args pass through", async () => {
		expect((await ask({ search: "echo", tool: "  " })).details.mode).toBe("search");
		expect((await ask({ describe: "everything_echo", server: "everything" })).text).toContain(
			"- message (string, required)",
		);
		expect((await ask({ tool: "everything_echo", arguments: { message: "alias" } })).text).toBe("Echo: alias");
		expect((await ask("not an object")).details.mode).toBe("status");
		const big = "z".repeat(1_000_000);
		expect((await ask({ tool: "everything_echo", args: { message: big } })).text).toBe(`Echo: ${big}`);
		expect((await ask({ tool: "everything_echo", args: { message: "after all that" } })).text).toBe(
			"Echo: after all that",
		);
	});
});
