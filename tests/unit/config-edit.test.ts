// /mcp enable|disable as saved to the files: the user's comments and layout survive, an imported
// server is hidden from the user's own file (Cursor's file is never touched), a project's server
// is left to /mcp deny, and turning a server back on restores exactly what the file said before.
import { lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editableFiles, turnOff, turnOn } from "../../config/edit.ts";
import { loadConfig } from "../../config.ts";
import { configFolders, type tempDir } from "../support/helpers.ts";

let root: ReturnType<typeof tempDir>;
let home: string;
let cwd: string;
let agentDir: string;
const userFile = () => join(agentDir, "mcp.json");
const load = () => loadConfig({ cwd, agentDir, home, env: {}, platform: "linux" });
const files = () => editableFiles(agentDir, cwd);

function write(path: string, text: string): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text, { mode: 0o600 });
}

beforeEach(() => {
	({ root, home, cwd, agentDir } = configFolders());
});
afterEach(() => root.remove());

describe("/mcp enable and disable, as saved", () => {
	it("off and on again in the user's file: comments kept, the server listed as turned off in between, the text restored", async () => {
		const original = `{\n\t// my servers\n\t"mcpServers": {\n\t\t"notes": { "command": "notes-server" }, // keep\n\t\t"other": { "command": "x" }\n\t}\n}\n`;
		write(userFile(), original);
		expect(await turnOff(load(), "notes", files())).toBe(`Turned "notes" off (saved in ${userFile()}).`);
		const off = readFileSync(userFile(), "utf8");
		expect(off).toContain("// my servers");
		expect(off).toContain("// keep");
		const config = load();
		expect(config.servers.has("notes")).toBe(false);
		expect(config.disabled?.get("notes")).toBe(userFile());
		expect(config.servers.has("other")).toBe(true);
		expect(statSync(userFile()).mode & 0o777).toBe(0o600);

		expect(await turnOn(load(), "notes", files())).toBe(`Turned "notes" on (saved in ${userFile()}).`);
		expect(load().servers.get("notes")).toMatchObject({ command: "notes-server" });
		expect(JSON.parse(readFileSync(userFile(), "utf8").replace(/\/\/.*$/gm, ""))).toEqual({
			mcpServers: { notes: { command: "notes-server" }, other: { command: "x" } },
		});
	});

	it("each entry keeps its own layout: the key joins it inline or on a line of its own, and on again restores the text", async () => {
		write(join(home, ".cursor/mcp.json"), JSON.stringify({ mcpServers: { figma: { command: "figma-mcp" } } }));
		const original = [
			"{",
			'  "imports": ["cursor"],',
			'  "mcpServers": {',
			'    "a": { "command": "npx", "args": ["-y", "x"] },',
			'    "b": {"command":"node","args":["s.js"]},',
			'    "c": {',
			'      "command": "node", // mine',
			'      "args": ["s.js"]',
			"    }",
			"  }",
			"}",
			"",
		].join("\n");
		write(userFile(), original);
		for (const name of ["a", "b", "c", "figma"]) await turnOff(load(), name, files());
		expect(readFileSync(userFile(), "utf8")).toBe(
			[
				"{",
				'  "imports": ["cursor"],',
				'  "mcpServers": {',
				'    "a": { "command": "npx", "args": ["-y", "x"], "enabled": false },',
				'    "b": {"command":"node","args":["s.js"],"enabled":false},',
				'    "c": {',
				'      "command": "node", // mine',
				'      "args": ["s.js"],',
				'      "enabled": false',
				"    },",
				'    "figma": { "enabled": false }',
				"  }",
				"}",
				"",
			].join("\n"),
		);
		for (const name of ["a", "b", "c", "figma"]) await turnOn(load(), name, files());
		expect(readFileSync(userFile(), "utf8")).toBe(original);
	});

	it("an imported server is hidden from the user's own file, never by editing Cursor's; on again removes the hiding entry", async () => {
		const cursor = join(home, ".cursor/mcp.json");
		const cursorText = JSON.stringify({ mcpServers: { figma: { command: "figma-mcp" } } });
		write(cursor, cursorText);
		write(userFile(), JSON.stringify({ imports: ["cursor"] }));
		await turnOff(load(), "figma", files());
		expect(readFileSync(cursor, "utf8")).toBe(cursorText);
		expect(load().servers.has("figma")).toBe(false);
		await turnOn(load(), "figma", files());
		expect(JSON.parse(readFileSync(userFile(), "utf8"))).toEqual({ imports: ["cursor"], mcpServers: {} });
		expect(load().servers.get("figma")).toMatchObject({ command: "figma-mcp" });
	});

	it("a user's server turned off by the project's .pi/mcp.json (Pi 1.5's override) is turned on there", async () => {
		write(userFile(), JSON.stringify({ mcpServers: { internal: { command: "internal-tools" } } }));
		const projectFile = join(cwd, ".pi", "mcp.json");
		write(projectFile, JSON.stringify({ mcpServers: { internal: { enabled: false } } }));
		expect(load().disabled?.get("internal")).toBe(projectFile);
		expect(await turnOn(load(), "internal", files())).toBe(`Turned "internal" on (saved in ${projectFile}).`);
		expect(JSON.parse(readFileSync(projectFile, "utf8"))).toEqual({ mcpServers: {} });
		expect(load().servers.get("internal")).toMatchObject({ command: "internal-tools", source: { scope: "user" } });
	});

	it("a project's server, another tool's switch, a broken file: each refused with what to do, nothing written", async () => {
		write(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { repo: { command: "repo-server" } } }));
		await expect(turnOff(load(), "repo", files())).rejects.toThrow(
			'"repo" comes from this project\'s config: /mcp deny repo keeps it from running.',
		);

		const claude = join(home, ".claude.json");
		write(claude, JSON.stringify({ mcpServers: { gh: { command: "gh-mcp", disabled: true } } }));
		write(userFile(), JSON.stringify({ imports: ["claude-code"] }));
		expect(load().disabled?.get("gh")).toBe(claude);
		await expect(turnOn(load(), "gh", files())).rejects.toThrow(
			`"gh" is turned off in ${claude}, which /mcp does not edit (it is not Pi's own config): turn it on there.`,
		);

		write(userFile(), JSON.stringify({ mcpServers: { a: { command: "a" } } }));
		const before = load();
		const broken = `{ "mcpServers": { "a": { "command": "a" } `; // edited by hand meanwhile
		write(userFile(), broken);
		await expect(turnOff(before, "a", files())).rejects.toThrow(/does not parse; fix it first/);
		expect(readFileSync(userFile(), "utf8")).toBe(broken);
		await expect(turnOn(load(), "nosuch", files())).rejects.toThrow('Unknown server "nosuch".');
	});

	it("eight disables at once (eight sessions) lose none", async () => {
		const names = ["a", "b", "c", "d", "e", "f", "g", "h"];
		write(
			userFile(),
			JSON.stringify({ mcpServers: Object.fromEntries(names.map((n) => [n, { command: n }])) }, null, 2),
		);
		const config = load();
		await Promise.all(names.map((n) => turnOff(config, n, files())));
		expect([...(load().disabled?.keys() ?? [])].sort()).toEqual(names);
	});

	it("a symlinked mcp.json (dotfiles) stays a symlink; the file it points to is edited", async () => {
		const real = join(root.path, "dotfiles", "mcp.json");
		write(real, JSON.stringify({ mcpServers: { notes: { command: "x" } } }));
		mkdirSync(agentDir, { recursive: true });
		symlinkSync(real, userFile());
		await turnOff(load(), "notes", files());
		expect(lstatSync(userFile()).isSymbolicLink()).toBe(true);
		expect(JSON.parse(readFileSync(real, "utf8")).mcpServers.notes.enabled).toBe(false);
	});
});
