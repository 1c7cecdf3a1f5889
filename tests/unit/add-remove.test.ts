// `add` and `remove` as saved: a server's entry joins, replaces or leaves a Pi config file with the
// rest of the text as it was (comments, layout, the other servers, a comment belonging to the
// neighbour); a new file is written as Pi 1.5's `pi mcp add` writes one; what is not a config is
// refused untouched. Every result is read back by the config loader.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addServer, removeServer } from "../../config/add-remove.ts";
import { loadConfig } from "../../config.ts";
import { configFolders, type tempDir } from "../support/helpers.ts";

let root: ReturnType<typeof tempDir>;
let home: string;
let cwd: string;
let agentDir: string;
const file = () => join(agentDir, "mcp.json");
const text = () => readFileSync(file(), "utf8");
const names = () => [...loadConfig({ cwd, agentDir, home, env: {}, platform: "linux" }).servers.keys()].sort();

function write(content: string): void {
	mkdirSync(dirname(file()), { recursive: true });
	writeFileSync(file(), content);
}

beforeEach(() => {
	({ root, home, cwd, agentDir } = configFolders());
});
afterEach(() => root.remove());

const COMMENTED = `{
  // my servers
  "mcpServers": {
    "a": { "command": "x" }, // first
    "b": {
      "url": "https://b.example.com/mcp" // remote
    },
    "c": { "command": "y" } // third
  },
  "settings": {}
}
`;

describe("a server added or removed, the rest of the file kept", () => {
	it("added after the last one on lines of its own, at the file's indentation; the comments stay where they were", async () => {
		write(COMMENTED);
		expect(await addServer(file(), "d", { command: "npx", args: ["-y", "pkg"] })).toBe("added");
		expect(text()).toBe(
			COMMENTED.replace(
				'"c": { "command": "y" } // third\n',
				'"c": { "command": "y" }, // third\n    "d": {\n      "command": "npx",\n      "args": [\n        "-y",\n        "pkg"\n      ]\n    }\n',
			),
		);
		expect(names()).toEqual(["a", "b", "c", "d"]);
	});

	it("replaced in place (said so), its neighbours and their comments untouched", async () => {
		write(COMMENTED);
		expect(await addServer(file(), "a", { url: "https://a.example.com/mcp" })).toBe("replaced");
		expect(text()).toContain('"a": {\n      "url": "https://a.example.com/mcp"\n    }, // first\n');
		expect(text()).toContain('"url": "https://b.example.com/mcp" // remote');
		expect(text()).toContain("// my servers");
	});

	it("removed first, middle or last: only its lines go, and the comma before the last one", async () => {
		for (const [name, gone] of [
			["a", '    "a": { "command": "x" }, // first\n'],
			["b", '    "b": {\n      "url": "https://b.example.com/mcp" // remote\n    },\n'],
		] as const) {
			write(COMMENTED);
			expect(await removeServer(file(), name)).toBe(true);
			expect(text()).toBe(COMMENTED.replace(gone, ""));
		}
		write(COMMENTED);
		expect(await removeServer(file(), "c")).toBe(true);
		// The comment after b's comma stays (it is b's); the comma goes with c.
		expect(text()).toBe(COMMENTED.replace('    },\n    "c": { "command": "y" } // third\n', "    }\n"));
		expect(names()).toEqual(["a", "b"]);
	});

	it("inline objects keep their one line", async () => {
		write('{ "mcpServers": { "a": { "command": "x" }, "b": { "command": "y" } } }');
		expect(await removeServer(file(), "a")).toBe(true);
		expect(text()).toBe('{ "mcpServers": { "b": { "command": "y" } } }\n');
		expect(await addServer(file(), "c", { url: "https://c.example.com" })).toBe("added");
		expect(text()).toBe('{ "mcpServers": { "b": { "command": "y" }, "c": {"url":"https://c.example.com"} } }\n');
		expect(names()).toEqual(["b", "c"]);
	});

	it("a new file is written as Pi 1.5's `pi mcp add` writes one; a name it lacks is not removed", async () => {
		expect(await removeServer(file(), "ghost")).toBe(false);
		expect(await addServer(file(), "n", { command: "n", env: { K: "V" } })).toBe("added");
		expect(text()).toBe(`${JSON.stringify({ mcpServers: { n: { command: "n", env: { K: "V" } } } }, null, 2)}\n`);
		expect(await removeServer(file(), "ghost")).toBe(false);
	});

	it("a file that is not a config, or does not parse, is refused and left as it was", async () => {
		write('["not", "a", "config"]');
		await expect(addServer(file(), "x", { command: "x" })).rejects.toThrow("is not an MCP config");
		write('{ "mcpServers": { "a": { "command": "x" } ');
		await expect(removeServer(file(), "a")).rejects.toThrow("it was not changed");
		expect(text()).toBe('{ "mcpServers": { "a": { "command": "x" } ');
	});
});
