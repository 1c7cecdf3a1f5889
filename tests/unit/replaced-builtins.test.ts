// Which of Pi 1.x's built-ins this extension replaces Pi's settings leave on (by Pi's own rules for
// `extensions` entries), and switching them off as `pi config` writes it.
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PiSettingsFile } from "../../pi-session/pi-settings.ts";
import {
	builtinsLeftOn,
	NOTICES_FILE,
	offerToSwitchOff,
	offLine,
	switchOff,
} from "../../pi-session/replaced-builtins.ts";
import { tempDir } from "../support/helpers.ts";

const files = (user?: string[], project?: string[]): PiSettingsFile[] => [
	{ scope: "user", path: "/u/settings.json", dir: "/u", settings: user ? { extensions: user } : undefined },
	{ scope: "project", path: "/p/.pi/settings.json", dir: "/p/.pi", settings: project ? { extensions: project } : {} },
];

describe("the replaced built-ins Pi's settings leave on", () => {
	it("both, until the settings switch one off", () => {
		expect(builtinsLeftOn([], files())).toEqual(["mcp", "tool-search"]);
		expect(builtinsLeftOn([], files(["-builtin:mcp"]))).toEqual(["tool-search"]);
		expect(builtinsLeftOn([], files(["!builtin:tool-search", "-builtin:mcp"]))).toEqual([]);
	});

	it("by Pi's order of the user's entries: `+` over `!`, `-` over both; a project's entry over the user's", () => {
		expect(builtinsLeftOn([], files(["!builtin:mcp", "+builtin:mcp"]))).toEqual(["mcp", "tool-search"]);
		expect(builtinsLeftOn([], files(["+builtin:mcp", "-builtin:mcp"]))).toEqual(["tool-search"]);
		expect(builtinsLeftOn([], files(["-builtin:mcp"], ["+builtin:mcp"]))).toEqual(["mcp", "tool-search"]);
		expect(builtinsLeftOn([], files([], ["+builtin:mcp", "-builtin:mcp", "-builtin:tool-search"]))).toEqual([]);
	});

	it("none when the command line loads no extensions from the settings", () => {
		expect(builtinsLeftOn(["--no-extensions"], files())).toEqual([]);
		expect(builtinsLeftOn(["-ne", "-e", "builtin:mcp"], files())).toEqual([]);
	});

	it("the line without a UI says why and names pi config", () => {
		expect(offLine(["mcp", "tool-search"])).toBe(
			"pi-mcp-proxy replaces Pi's built-in `mcp` and `tool-search`, so Pi warns at each start that they were not loaded; nothing is wrong. To stop the warnings, run `pi config` and switch them off under Built-in extensions.",
		);
		expect(offLine(["mcp"])).toContain("that it was not loaded");
	});
});

describe("switching them off", () => {
	const cleanups: (() => void)[] = [];
	afterEach(() => {
		for (const clean of cleanups.splice(0)) clean();
	});
	const settingsFile = (text?: string) => {
		const dir = tempDir();
		cleanups.push(dir.remove);
		const path = join(dir.path, "settings.json");
		if (text !== undefined) writeFileSync(path, text);
		return path;
	};

	it("writes `-builtin:<name>` in place of their entries, as pi config does, keeping every other setting and the file's mode", async () => {
		const path = settingsFile(
			JSON.stringify({ retry: { enabled: false }, extensions: ["./mine.ts", "+builtin:mcp"], packages: ["npm:x"] }),
		);
		chmodSync(path, 0o640);
		await switchOff(path, ["mcp", "tool-search"]);
		const text = readFileSync(path, "utf8");
		expect(JSON.parse(text)).toEqual({
			retry: { enabled: false },
			extensions: ["./mine.ts", "-builtin:mcp", "-builtin:tool-search"],
			packages: ["npm:x"],
		});
		expect(text).toContain('\n  "extensions": [');
		expect(statSync(path).mode & 0o777).toBe(0o640);
	});

	it("creates the file when there is none", async () => {
		const path = settingsFile();
		await switchOff(path, ["tool-search"]);
		expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ extensions: ["-builtin:tool-search"] });
	});

	it("leaves a file Pi could not read either as it is, and says so", async () => {
		const path = settingsFile('{ "retry": ');
		await expect(switchOff(path, ["mcp"])).rejects.toThrow("is not a JSON object");
		expect(readFileSync(path, "utf8")).toBe('{ "retry": ');
	});
});

describe("the once-only note at a `pi -p` start", () => {
	let dir: ReturnType<typeof tempDir> | undefined;
	afterEach(() => dir?.remove());

	it("hands its write to the session's end, which finds the note remembered once it waited", async () => {
		dir = tempDir();
		const agentDir = join(dir.path, "agent");
		const cwd = join(dir.path, "work");
		const kept: Promise<unknown>[] = [];
		const ctx = { cwd, hasUI: false, mode: "print", ui: {} };
		const stderr = console.error;
		console.error = () => {};
		try {
			offerToSwitchOff(ctx as never, [], agentDir, (work) => kept.push(work));
		} finally {
			console.error = stderr;
		}
		expect(kept).toHaveLength(1);
		await Promise.all(kept);
		expect(JSON.parse(readFileSync(join(agentDir, NOTICES_FILE), "utf8"))).toEqual({ builtins: "told" });
	});
});
