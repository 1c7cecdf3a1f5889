// Every place a server name is defined, as `doctor` and `get` report them: a project's entry that
// replaces your own (a note), an override that adjusts it (a note), a name in two of your files or
// twice in one (a warning: only one is read), an import hidden by a file's entry (a note).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { definitions, shadowings } from "../../config/definitions.ts";
import { piConfigPaths } from "../../config.ts";
import { configFolders, type tempDir } from "../support/helpers.ts";

let root: ReturnType<typeof tempDir>;
let home: string;
let cwd: string;
let agentDir: string;

function write(path: string, content: string | object): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
}

const found = () => {
	const defs = definitions(piConfigPaths(cwd, agentDir, true, home), { cwd, home, env: {} });
	return { defs, said: shadowings(defs).map((s) => `${s.level}: ${s.text}`) };
};

beforeEach(() => {
	({ root, home, cwd, agentDir } = configFolders());
});
afterEach(() => root.remove());

describe("where each server is defined", () => {
	it("a project's entry replaces your own, an override adjusts it: notes, each naming both files", () => {
		const user = join(agentDir, "mcp.json");
		write(user, { mcpServers: { github: { command: "gh-mcp" }, notes: { command: "notes" } } });
		write(join(cwd, ".mcp.json"), { mcpServers: { github: { command: "their-gh" } } });
		write(join(cwd, ".pi", "mcp.json"), { mcpServers: { notes: { enabled: false } } });
		const { defs, said } = found();
		expect(defs.map((d) => `${d.name} ${d.kind} ${d.scope}`)).toEqual([
			"github entry user",
			"notes entry user",
			"github entry project",
			"notes override project",
		]);
		expect(said).toEqual([
			`note: "github" in the project's ${join(cwd, ".mcp.json")} replaces your own in ${user}`,
			`note: "notes" from ${user} is adjusted by the project's ${join(cwd, ".pi", "mcp.json")}`,
		]);
	});

	it("a name in two of your files, or twice in one file (JSON keeps the last silently): warnings with the lines", () => {
		const shared = join(home, ".config", "mcp", "mcp.json");
		const user = join(agentDir, "mcp.json");
		write(shared, { mcpServers: { search: { command: "old" } } });
		write(user, '{\n  "mcpServers": {\n    "search": { "command": "a" },\n    "search": { "command": "b" }\n  }\n}\n');
		expect(found().said).toEqual([
			`warning: "search" is written 2 times in ${user} (lines 3, 4): only the last is read; remove the others`,
			`warning: "search" is defined in ${shared} and again in ${user}: the second is used; remove one`,
		]);
	});

	it("an imported server hidden by a file's entry of the same name: a note naming the host", () => {
		const cursor = join(home, ".cursor", "mcp.json");
		write(cursor, { mcpServers: { linear: { command: "cursor-linear" }, only: { command: "x" } } });
		write(join(agentDir, "mcp.json"), { imports: ["cursor"], mcpServers: { linear: { command: "mine" } } });
		expect(found().said).toEqual([
			`note: "linear" imported from cursor (${cursor}) is hidden by ${join(agentDir, "mcp.json")}`,
		]);
	});
});
