// npx resolution: parsing npx/npm exec command lines, npm's own version rules against a cache
// folder laid out as npm lays it out, and a real `npx -y <pkg>@<exact>` resolved to its bin.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listDescendants } from "../../bounds/process-tree.ts";
import { NPX_CACHE_FILE, NpxResolver, nodeOnPath, npxInstallDir, parseNpx } from "../../npx-resolver.ts";
import { McpServerManager } from "../../server-manager.ts";
import { WORKER } from "../../transport/npx-install.ts";
import type { StdioServerEntry } from "../../types.ts";
import { configOf, entryOf, TEST_NPM_CACHE, tempDir } from "../support/helpers.ts";

const MEMORY_SPEC = "@modelcontextprotocol/server-memory@2026.8.31";

describe("parseNpx", () => {
	it("recognizes npx and npm exec forms", () => {
		expect(parseNpx("npx", ["-y", "@scope/pkg@1.2.3", "--flag", "x"])).toEqual({
			spec: "@scope/pkg@1.2.3",
			name: "@scope/pkg",
			range: "1.2.3",
			args: ["--flag", "x"],
		});
		expect(parseNpx("/usr/bin/npx", ["--yes", "pkg"])).toMatchObject({
			spec: "pkg",
			name: "pkg",
			range: undefined,
			args: [],
		});
		expect(parseNpx("npm", ["exec", "--yes", "--", "pkg@^2", "--", "a"])).toMatchObject({
			spec: "pkg@^2",
			range: "^2",
			args: ["a"],
		});
		expect(parseNpx("npx.cmd", ["-y", "pkg@latest"])).toMatchObject({ range: "latest" });
	});

	it("declines anything it is not sure about", () => {
		expect(parseNpx("node", ["x.js"])).toBeUndefined();
		expect(parseNpx("npm", ["run", "x"])).toBeUndefined();
		expect(parseNpx("npx", ["-p", "a", "b"])).toBeUndefined();
		expect(parseNpx("npx", ["--package=a", "b"])).toBeUndefined();
		expect(parseNpx("npx", ["github:user/repo"])).toBeUndefined();
		expect(parseNpx("npx", ["./local"])).toBeUndefined();
		expect(parseNpx("npx", ["-y"])).toBeUndefined();
	});
});

describe("the detached install", () => {
	it("runs npm through no shell, on Windows either: a spec's & starts nothing", () => {
		const dir = tempDir();
		try {
			// An `npm` that does nothing, so that nothing is installed whatever runs; `touch` is what a shell would run.
			const bin = join(dir.path, "bin");
			mkdirSync(bin);
			writeFileSync(join(bin, "npm"), "#!/bin/sh\nexit 0\n");
			chmodSync(join(bin, "npm"), 0o755);
			const pwned = join(dir.path, "pwned");
			const folder = join(dir.path, "folder");
			const marker = `${folder}.pi-mcp-install`;
			// Node as on Windows, with a shell that runs here in cmd.exe's place (Node's shell on Windows is %comspec%).
			const asWindows = 'Object.defineProperty(process, "platform", { value: "win32" });';
			for (const preamble of ["", asWindows]) {
				const run = spawnSync(process.execPath, ["-e", preamble + WORKER, marker, folder, `pkg@1&touch ${pwned}&`], {
					env: { ...process.env, PATH: `${bin}:/usr/bin:/bin`, comspec: "/bin/sh" },
					stdio: "ignore",
					timeout: 30_000,
				});
				// It ran to its end: npm's success or, as on Windows, npm's failure (no npm-cli.js beside this node).
				expect(run.signal).toBeNull();
				expect(preamble ? [0, 1] : [0]).toContain(run.status);
				expect(existsSync(pwned)).toBe(false);
				expect(existsSync(marker)).toBe(false); // it ended, and took its marker with it
			}
		} finally {
			dir.remove();
		}
	});
});

describe("NpxResolver against an npx cache laid out as npm does", () => {
	let dir: ReturnType<typeof tempDir>;
	afterEach(() => dir?.remove());

	/** npm's order: the package first, its dependencies, then (`done`) the folder's own package.json. */
	function install(
		npmCache: string,
		spec: string,
		name: string,
		version: string,
		bin: unknown = "cli.js",
		done = true,
	): string {
		const folder = npxInstallDir(spec, npmCache);
		const pkgDir = join(folder, "node_modules", name);
		mkdirSync(pkgDir, { recursive: true });
		writeFileSync(join(pkgDir, "package.json"), JSON.stringify({ name, version, bin }));
		writeFileSync(join(pkgDir, "cli.js"), "#!/usr/bin/env node\n");
		if (done) writeFileSync(join(folder, "package.json"), JSON.stringify({ dependencies: { [name]: version } }));
		return pkgDir;
	}

	it("an exact version resolves only to that version", () => {
		dir = tempDir();
		const npmCache = join(dir.path, "npm");
		const pkgDir = install(npmCache, "pkg@1.2.3", "pkg", "1.2.3");
		const resolver = new NpxResolver({ agentDir: dir.path, npmCache, lookupVersion: async () => undefined });
		expect(resolver.resolve({ command: "npx", args: ["-y", "pkg@1.2.3", "--port", "1"] })).toEqual({
			command: process.execPath,
			args: [join(pkgDir, "cli.js"), "--port", "1"],
		});
		install(npmCache, "pkg@1.2.4", "pkg", "1.2.3"); // a folder that holds another version
		expect(resolver.resolve({ command: "npx", args: ["-y", "pkg@1.2.4"] })).toBeUndefined();
		expect(resolver.resolve({ command: "npx", args: ["-y", "pkg@9.9.9"] })).toBeUndefined();
	});

	it("a range resolves only to what npm would run, asked in the background and remembered", async () => {
		dir = tempDir();
		const npmCache = join(dir.path, "npm");
		install(npmCache, "pkg@^1.0.0", "pkg", "1.4.0", { pkg: "cli.js", other: "cli.js" });
		let registryHas = "1.5.0";
		const asked: string[] = [];
		const options = {
			agentDir: dir.path,
			npmCache,
			lookupVersion: async (spec: string) => {
				asked.push(spec);
				return registryHas;
			},
		};
		const resolver = new NpxResolver(options);
		const entry = { command: "npx", args: ["-y", "pkg@^1.0.0"] };
		expect(resolver.resolve(entry)).toBeUndefined(); // unknown yet: plain npx, and ask
		await resolver.refresh("pkg@^1.0.0");
		expect(resolver.resolve(entry)).toBeUndefined(); // npm would install 1.5.0, not run the cached 1.4.0
		registryHas = "1.4.0";
		const fresh = new NpxResolver({ ...options, now: () => Date.now() + 2 * 60 * 60 * 1000 });
		expect(fresh.resolve(entry)).toBeUndefined(); // the remembered answer expired
		await fresh.refresh("pkg@^1.0.0");
		expect(fresh.resolve(entry)?.args[0]).toMatch(/node_modules\/pkg\/cli\.js$/);
		expect(JSON.parse(readFileSync(join(dir.path, NPX_CACHE_FILE), "utf8")).specs["pkg@^1.0.0"].version).toBe("1.4.0");
		expect(asked).toEqual(["pkg@^1.0.0", "pkg@^1.0.0"]);
	});

	it("a package whose install has not ended (its dependencies may be missing) is left to npx", () => {
		dir = tempDir();
		const npmCache = join(dir.path, "npm");
		install(npmCache, "pkg@1.2.3", "pkg", "1.2.3", "cli.js", false);
		const resolver = new NpxResolver({ agentDir: dir.path, npmCache, lookupVersion: async () => undefined });
		expect(resolver.resolve({ command: "npx", args: ["-y", "pkg@1.2.3"] })).toBeUndefined();
	});

	it("a package with several bins and none named like it is left to npx", () => {
		dir = tempDir();
		const npmCache = join(dir.path, "npm");
		install(npmCache, "multi@1.0.0", "multi", "1.0.0", { a: "cli.js", b: "other.js" });
		expect(
			new NpxResolver({ agentDir: dir.path, npmCache }).resolve({ command: "npx", args: ["multi@1.0.0"] }),
		).toBeUndefined();
	});
});

describe("real npx", () => {
	const managers: McpServerManager[] = [];
	afterEach(async () => {
		await Promise.all(managers.splice(0).map((m) => m.closeAll()));
	});

	it(`npx -y ${MEMORY_SPEC} resolves to its bin and runs without npm`, async () => {
		const dir = tempDir();
		try {
			const config = configOf({
				// cwd outside this repo: here npx would run the devDependency copy instead of its cache.
				memory: {
					command: "npx",
					args: ["-y", MEMORY_SPEC],
					cwd: dir.path,
					env: { npm_config_cache: TEST_NPM_CACHE, MEMORY_FILE_PATH: join(dir.path, "m.jsonl") },
				},
			});
			const entry = entryOf(config, "memory") as StdioServerEntry;

			// As configured: npm's process runs the server as its child (installing it if needed).
			const plain = new McpServerManager();
			managers.push(plain);
			const viaNpm = await plain.connect(entry);
			expect(readFileSync(`/proc/${viaNpm.pid}/cmdline`, "utf8")).toMatch(/npm|npx/);
			expect(listDescendants(viaNpm.pid as number).length).toBeGreaterThan(0);
			await plain.closeAll();

			const resolver = new NpxResolver({ agentDir: dir.path, npmCache: TEST_NPM_CACHE });
			const launch = resolver.resolve(entry);
			// The user's node (first on PATH, as npx would use), not whatever runs Pi.
			expect(launch?.command).toBe(nodeOnPath());
			expect(resolver.resolve({ ...entry, env: { ...entry.env, PATH: dir.path } })).toBeUndefined();
			expect(launch?.args[0]).toContain(
				join("_npx", "c98ccc168155bafa", "node_modules", "@modelcontextprotocol", "server-memory"),
			);

			const direct = new McpServerManager({ launch: resolver.launcher() });
			managers.push(direct);
			const connection = await direct.connect(entry);
			const cmdline = readFileSync(`/proc/${connection.pid}/cmdline`, "utf8").split("\0");
			expect(cmdline[0]).toBe(nodeOnPath());
			expect(cmdline[1]).toBe(launch?.args[0]);
			expect(listDescendants(connection.pid as number)).toEqual([]);
			const result = await direct.callTool("memory", "read_graph", {});
			expect(JSON.stringify(result.content)).toContain("entities");
		} finally {
			dir.remove();
		}
	}, 120_000);
});
