// With a warm metadata cache, search, list and describe over three real servers start no
// process at all (counted), and a call starts exactly one.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listDescendants } from "../../bounds/process-tree.ts";
import { ServerLifecycle } from "../../lifecycle.ts";
import { MetadataCache } from "../../metadata-cache.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { McpServerManager } from "../../server-manager.ts";
import { configOf, EVERYTHING, FILESYSTEM, MEMORY, tempDir } from "../support/helpers.ts";

describe("warm metadata cache", () => {
	const cleanups: (() => unknown)[] = [];
	afterEach(async () => {
		for (const clean of cleanups.splice(0).reverse()) await clean();
	});

	it("answers search, list and describe with zero processes; a call spawns exactly one", async () => {
		const dir = tempDir();
		cleanups.push(dir.remove);
		const config = configOf({
			everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
			memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir.path, "m.jsonl") } },
			filesystem: { command: process.execPath, args: [FILESYSTEM, dir.path] },
		});
		const open = (): ServerLifecycle => {
			const lifecycle = new ServerLifecycle({
				config,
				manager: new McpServerManager(),
				cache: new MetadataCache(dir.path),
			});
			cleanups.push(() => lifecycle.shutdown());
			return lifecycle;
		};

		// First run: no cache file, so every server is connected once to fill it.
		const first = open();
		first.start();
		await first.startup;
		await first.shutdown();

		const servers = () => listDescendants(process.pid).length;
		const before = servers();
		const second = open();
		second.start();
		await second.startup;
		const search = await runProxy(second, { search: "create directory" });
		expect(contentText(search.content)).toContain("filesystem_create_directory");
		const list = await runProxy(second, { server: "memory" });
		expect(contentText(list.content)).toMatch(/memory: \d+ tools/);
		const describe = await runProxy(second, { describe: "everything_get-sum" });
		expect(contentText(describe.content)).toContain("- a (number, required)");
		expect(contentText((await runProxy(second, {})).content)).toMatch(
			/everything: not running, \d+ tools, \d+ resources, \d+ resource templates known \(lazy\)/,
		);
		expect(servers()).toBe(before);
		expect(second.manager.connectedNames()).toEqual([]);

		const call = await runProxy(second, { tool: "everything_echo", args: { message: "warm" } });
		expect(contentText(call.content)).toBe("Echo: warm");
		expect(servers()).toBe(before + 1);
		expect(second.manager.connectedNames()).toEqual(["everything"]);
	});
});
