// The server manager on its own: pagination, de-duplicated connects, lenient tool lists,
// stderr tails, and closing without leaving any process behind.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isAlive, listDescendants } from "../../bounds/process-tree.ts";
import { McpServerManager } from "../../server-manager.ts";
import { TailBuffer } from "../../transport/tail-buffer.ts";
import { configOf, EVERYTHING, entryOf, fixture, ROOT } from "../support/helpers.ts";

const CATALOGS = join(ROOT, "tests", "data", "tool-catalogs");
const catalogServer = (files: string[], env: Record<string, string> = {}) => ({
	...fixture("catalog-server.ts", ...files.map((f) => join(CATALOGS, f))),
	env,
});

describe("McpServerManager", () => {
	const managers: McpServerManager[] = [];
	const manager = () => {
		const m = new McpServerManager();
		managers.push(m);
		return m;
	};
	afterEach(async () => {
		await Promise.all(managers.splice(0).map((m) => m.closeAll()));
	});

	it("lists tools and resources across every page, keeping a schema without type: object", async () => {
		const config = configOf({
			cat: catalogServer(["gitlab.json", "github.json"], { PAGE_SIZE: "7", RESOURCES: "10" }),
		});
		const connection = await manager().connect(entryOf(config, "cat"));
		const names = (file: string) =>
			(JSON.parse(readFileSync(join(CATALOGS, file), "utf8")) as { tools: { name: string }[] }).tools.map(
				(t) => t.name,
			);
		// 35 tools in pages of 7: every page arrives, gitlab's tools included despite their schemas.
		expect(connection.tools.map((t) => t.name)).toEqual([...names("gitlab.json"), ...names("github.json")]);
		expect(connection.resources.map((r) => r.name)).toEqual(Array.from({ length: 10 }, (_, i) => `doc-${i}`));
		for (const tool of connection.tools) expect(tool.inputSchema.type).toBe("object");
	});

	it("de-duplicates concurrent connects into one process and reuses a healthy connection", async () => {
		const m = manager();
		const entry = entryOf(configOf({ ev: { command: process.execPath, args: [EVERYTHING, "stdio"] } }), "ev");
		const all = await Promise.all(Array.from({ length: 5 }, () => m.connect(entry)));
		expect(new Set(all).size).toBe(1);
		expect(await m.connect(entry)).toBe(all[0]);
		expect(all[0].pid && isAlive(all[0].pid)).toBe(true);
	});

	it("tracks in-flight calls and last use", async () => {
		let t = 1000;
		const m = new McpServerManager({ now: () => t });
		managers.push(m);
		const entry = entryOf(configOf({ ev: { command: process.execPath, args: [EVERYTHING, "stdio"] } }), "ev");
		const connection = await m.connect(entry);
		t = 5000;
		const call = m.callTool("ev", "echo", { message: "x" });
		expect(connection.inFlight).toBe(1);
		await call;
		expect(connection.inFlight).toBe(0);
		expect(connection.lastUsedAt).toBe(5000);
	});

	it("a server that fails to start reports the command's error and its stderr", async () => {
		const config = configOf({
			broken: {
				command: process.execPath,
				args: ["-e", "console.error('missing API_KEY for broken server'); process.exit(3)"],
			},
			nothing: { command: "/nonexistent/binary-for-test" },
		});
		await expect(manager().connect(entryOf(config, "broken"))).rejects.toThrow(
			/failed to connect[\s\S]*missing API_KEY for broken server/,
		);
		await expect(manager().connect(entryOf(config, "nothing"))).rejects.toThrow(
			/Server "nothing" failed to connect: cannot start the server: command not found: \/nonexistent\/binary-for-test/,
		);
	});

	it("close leaves no process behind, including helpers the server started", async () => {
		const m = manager();
		// Like a browser server launching Chrome: a helper that would outlive the server's exit.
		const wrapped = { command: "sh", args: ["-c", `sleep 300 & exec "${process.execPath}" "${EVERYTHING}" stdio`] };
		const connection = await m.connect(entryOf(configOf({ wrapped }), "wrapped"));
		const wrapper = connection.pid as number;
		const descendants = listDescendants(wrapper);
		expect(descendants.length).toBeGreaterThan(0);
		await m.closeAll();
		for (const pid of [wrapper, ...descendants]) expect(isAlive(pid), `pid ${pid}`).toBe(false);
		expect(m.connectedNames()).toEqual([]);
	});

	it("keeps only the tail of a flood", () => {
		const tail = new TailBuffer(16);
		for (let i = 0; i < 1000; i++) tail.push(Buffer.from(`line ${i}\n`));
		tail.push(Buffer.from("x".repeat(100)));
		// One cut word is all that is left: it may be the tail half of a token, so nothing is shown.
		expect(tail.text()).toBe("");
		tail.push(Buffer.from(" said: done\n"));
		expect(tail.text()).toBe("said: done\n");
	});
});
