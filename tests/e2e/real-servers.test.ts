// One real round trip each through server-filesystem and server-memory over stdio, and search
// across the README's three-server setup.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ServerLifecycle } from "../../lifecycle.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { configOf, EVERYTHING, FILESYSTEM, lifecycleOf, MEMORY, tempDir } from "../support/helpers.ts";

describe("real stdio servers", () => {
	const cleanups: (() => unknown)[] = [];
	afterEach(async () => {
		for (const clean of cleanups.splice(0).reverse()) await clean();
	});
	const track = (lifecycle: ServerLifecycle) => {
		cleanups.push(() => lifecycle.shutdown());
		return lifecycle;
	};

	it("server-filesystem reads and writes a file in its allowed folder", async () => {
		const dir = tempDir();
		cleanups.push(dir.remove);
		writeFileSync(join(dir.path, "notes.txt"), "first line\nsecond line\n");
		const lifecycle = track(lifecycleOf(configOf({ fs: { command: process.execPath, args: [FILESYSTEM, dir.path] } })));

		const read = await runProxy(lifecycle, { tool: "fs_read_text_file", args: { path: join(dir.path, "notes.txt") } });
		expect(contentText(read.content)).toContain("second line");

		const write = await runProxy(lifecycle, {
			tool: "fs_write_file",
			args: { path: join(dir.path, "out.md"), content: "# written by mcp" },
		});
		expect(write.isError).toBe(false);
		expect(readFileSync(join(dir.path, "out.md"), "utf8")).toBe("# written by mcp");

		const outside = await runProxy(lifecycle, { tool: "fs_read_text_file", args: { path: "/etc/hostname" } });
		expect(outside.isError).toBe(true);
		expect(contentText(outside.content)).toMatch(/denied|outside allowed/i);
	});

	it("server-memory stores an entity and finds it again", async () => {
		const dir = tempDir();
		cleanups.push(dir.remove);
		const memoryFile = join(dir.path, "memory.jsonl");
		const lifecycle = track(
			lifecycleOf(
				configOf({ memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } } }),
			),
		);

		const created = await runProxy(lifecycle, {
			tool: "memory_create_entities",
			args: { entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }] },
		});
		expect(created.isError).toBe(false);
		const found = await runProxy(lifecycle, { tool: "memory_search_nodes", args: { query: "Ada" } });
		expect(contentText(found.content)).toContain("wrote the first program");
		expect(readFileSync(memoryFile, "utf8")).toContain('"name":"Ada"');
	});

	it("in the everything + memory + filesystem setup, `add numbers` finds the sum tool first, and a query nothing answers says so", async () => {
		const dir = tempDir();
		cleanups.push(dir.remove);
		const lifecycle = track(
			lifecycleOf(
				configOf({
					everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
					memory: {
						command: process.execPath,
						args: [MEMORY],
						env: { MEMORY_FILE_PATH: join(dir.path, "memory.jsonl") },
					},
					filesystem: { command: process.execPath, args: [FILESYSTEM, dir.path] },
				}),
			),
		);
		await Promise.all(["everything", "memory", "filesystem"].map((s) => lifecycle.ensureConnected(s)));
		const sum = contentText((await runProxy(lifecycle, { search: "add numbers" })).content);
		expect(sum.split("\n")[0]).toMatch(/^- everything_get-sum\b/);
		// Half answered ("file", not "pdf"): the closest say what is near, the answer says it is not a match.
		const weak = contentText((await runProxy(lifecycle, { search: "convert a file to pdf" })).content);
		expect(weak).toMatch(/^No tool matches all of "convert a file to pdf"\. Closest:\n- filesystem_/);
		expect(weak).toContain('Or list a server\'s tools: mcp({server:"name"}) (everything, memory, filesystem).');
		for (const query of ["book a flight to lisbon", "convert celsius to fahrenheit"]) {
			// A synonym of "convert" ("change") in a usage note is no match: edit_file was once "closest" here.
			const nothing = contentText((await runProxy(lifecycle, { search: query })).content);
			expect(nothing).toBe(
				`No tools match "${query}". Try other words, or list a server's tools: mcp({server:"name"}) (everything, memory, filesystem).`,
			);
		}
	}, 60_000);
});
