// pi-mcp-adapter found where Pi loads it from before any extension loads (the packages of Pi's
// settings, `-e`), and the one message that names the command removing it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findAdapter, standDownLine } from "../../pi-session/adapter-236.ts";
import type { PiSettingsFile } from "../../pi-session/pi-settings.ts";
import { tempDir } from "../support/helpers.ts";

const root = tempDir();
afterAll(root.remove);
/** A folder holding a package named `name`, as `pi install <folder>` takes it. */
function packageFolder(name: string): string {
	const folder = join(root.path, name);
	mkdirSync(folder, { recursive: true });
	writeFileSync(join(folder, "package.json"), JSON.stringify({ name }));
	return folder;
}
const agentDir = join(root.path, "agent");
const files = (user: unknown[], project: unknown[] = []): PiSettingsFile[] => [
	{ scope: "user", path: join(agentDir, "settings.json"), dir: agentDir, settings: { packages: user } },
	{ scope: "project", path: "/p/.pi/settings.json", dir: "/p/.pi", settings: { packages: project } },
];

describe("pi-mcp-adapter installed beside this extension", () => {
	it("found by its npm or git source in the settings' packages", () => {
		for (const source of [
			"npm:pi-mcp-adapter",
			"npm:pi-mcp-adapter@2.36.0",
			"git:github.com/nicobailon/pi-mcp-adapter",
			"https://github.com/nicobailon/pi-mcp-adapter.git@v2.36.0",
		]) {
			expect(findAdapter(files(["npm:pi-mcp-proxy", source]), [], "/w"), source).toEqual({
				from: "settings",
				source,
				scope: "user",
			});
		}
		expect(findAdapter(files(["npm:pi-mcp-adapter-extras", "git:github.com/x/pi-mcp-adapters"]), [], "/w")).toBe(
			undefined,
		);
	});

	it("found as a folder by its package's name, given by its whole path (what pi remove takes from any folder)", () => {
		const folder = packageFolder("pi-mcp-adapter");
		packageFolder("other");
		expect(findAdapter(files(["../other", "../pi-mcp-adapter"]), [], "/w")).toEqual({
			from: "settings",
			source: folder,
			scope: "user",
		});
	});

	it("in the project's settings too (removed with -l); not where the settings switch its extensions off", () => {
		expect(findAdapter(files([], [{ source: "npm:pi-mcp-adapter" }]), [], "/w")).toMatchObject({ scope: "project" });
		expect(findAdapter(files([{ source: "npm:pi-mcp-adapter", extensions: [] }]), [], "/w")).toBe(undefined);
	});

	it("on the command line (-e); the settings' packages not when Pi loads none of them", () => {
		expect(findAdapter(files([]), ["-e", "npm:pi-mcp-adapter"], "/w")).toEqual({
			from: "command line",
			source: "npm:pi-mcp-adapter",
		});
		expect(findAdapter(files(["npm:pi-mcp-adapter"]), ["--no-extensions"], "/w")).toBe(undefined);
	});

	it("the message: why, then the command that removes it", () => {
		expect(standDownLine({ from: "settings", source: "npm:pi-mcp-adapter", scope: "user" })).toBe(
			"pi-mcp-proxy is off in this session: pi-mcp-adapter is installed too, and Pi stops at its start when two extensions register the same `mcp` tool, so pi-mcp-adapter serves your MCP servers. To use pi-mcp-proxy, remove it: pi remove npm:pi-mcp-adapter",
		);
		expect(standDownLine({ from: "settings", source: "npm:pi-mcp-adapter", scope: "project" })).toMatch(
			/pi remove npm:pi-mcp-adapter -l$/,
		);
		expect(standDownLine({ from: "command line", source: "../a" })).toMatch(/start Pi without -e \.\.\/a$/);
	});
});
