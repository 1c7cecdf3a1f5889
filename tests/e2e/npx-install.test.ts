// The causes that let a cold `npx -y` server run from a half-installed folder, fail its connect
// while npm was still installing, or leave a folder cut in half, each reproduced with the slow npm
// stand-in (npm's order of writes, held at its dangerous point until the test lets it go on):
// the install waited for under the connect deadline; two installers in one folder; npx run as
// configured after a failed install (it installs under the connect deadline); a folder npm itself
// is installing taken for a cut one and removed; a stale marker whose pid now names another process.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NpxResolver } from "../../npx-resolver.ts";
import { McpServerManager } from "../../server-manager.ts";
import { type InstallProgress, installMarker } from "../../transport/npx-install.ts";
import type { StdioServerEntry } from "../../types.ts";
import { configOf, entryOf, stopChild, tempDir, waitUntil } from "../support/helpers.ts";
import { type SlowNpm, slowNpm } from "../support/slow-npm.ts";

const SPEC = "@example/slow-server@1.0.0";
const NAME = "@example/slow-server";

describe("npx installs", () => {
	let dir: ReturnType<typeof tempDir>;
	let npm: SlowNpm | undefined;
	const managers: McpServerManager[] = [];
	const others: ChildProcess[] = [];
	afterEach(async () => {
		npm?.open(); // whatever still waits at the gate ends, so no install outlives the test
		await Promise.all(managers.splice(0).map((m) => m.closeAll()));
		await Promise.all(others.splice(0).map(stopChild));
		const npx = join(dir.path, "npm-cache", "_npx");
		const installing = () => existsSync(npx) && readdirSync(npx).some((n) => n.endsWith(".pi-mcp-install"));
		await waitUntil(() => !installing(), "the installs to end", 60_000);
		dir.remove();
		npm = undefined;
	});

	/** One session's pool, with the npx resolver as Pi's runtime gives it. */
	function session(options: { connectTimeoutMs?: number; installTimeoutMs?: number } = {}): McpServerManager {
		const resolver = new NpxResolver({
			agentDir: dir.path,
			lookupVersion: async () => undefined,
			installTimeoutMs: options.installTimeoutMs,
		});
		const manager = new McpServerManager({ launch: resolver.launcher(), connectTimeoutMs: options.connectTimeoutMs });
		managers.push(manager);
		return manager;
	}

	function slowEntry(stand: SlowNpm): StdioServerEntry {
		return entryOf(
			configOf({ slow: { command: "npx", args: ["-y", SPEC], env: stand.env } }),
			"slow",
		) as StdioServerEntry;
	}

	async function echo(manager: McpServerManager, message: string): Promise<string> {
		const result = await manager.callTool("slow", "echo", { message });
		return JSON.stringify(result.content);
	}

	it("an install that outlasts the connect deadline is waited for, with progress, and then connects", async () => {
		dir = tempDir();
		npm = slowNpm(dir.path, { gate: true });
		// 15 s: the server's own start after the install must fit in it on a loaded machine (4 s did not).
		const manager = session({ connectTimeoutMs: 15_000 });
		const told: InstallProgress[] = [];
		manager.subscribe((server, event) => {
			const install = event === "installing" ? manager.progress(server)?.install : undefined;
			if (install) told.push(install);
		});
		const connecting = manager.connect(slowEntry(npm));
		await npm.paused();
		// The connect deadline (15 s) goes by while npm is still at work: the connect is still waiting, and says why.
		await waitUntil(() => told.some((p) => Date.now() - p.since > 16_000), "16 s of install progress", 60_000);
		npm.open();
		await connecting;
		expect(await echo(manager, "after the install")).toContain("Echo: after the install");
		expect(told[0]?.spec).toBe(SPEC);
		expect(npm.installs()).toEqual([`exec ${SPEC}`]);
	}, 90_000);

	it("the wait for an install has its own budget: past it the start fails, saying so, and the install goes on", async () => {
		dir = tempDir();
		npm = slowNpm(dir.path, { gate: true });
		const manager = session({ installTimeoutMs: 1500 });
		const connecting = manager.connect(slowEntry(npm));
		await expect(connecting).rejects.toThrow(
			/npm is still installing @example\/slow-server@1\.0\.0 after 2 s\. The install goes on; a later call uses it\. Raise settings\.installTimeoutMs/,
		);
		npm.open();
		// Not cut: it finishes, and the next start runs it.
		await manager.connect(slowEntry(npm));
		expect(await echo(manager, "later")).toContain("Echo: later");
		expect(npm.installs()).toEqual([`exec ${SPEC}`]);
	}, 90_000);

	it("two sessions starting the same install at once run one npm in the folder; both connect", async () => {
		dir = tempDir();
		npm = slowNpm(dir.path, { gate: true });
		const [a, b] = [session(), session()];
		const entry = slowEntry(npm);
		const both = Promise.all([a.connect(entry), b.connect(entry)]);
		await npm.paused();
		npm.open();
		await both;
		expect(await echo(a, "a")).toContain("Echo: a");
		expect(await echo(b, "b")).toContain("Echo: b");
		expect(npm.installs()).toEqual([`exec ${SPEC}`]);
	}, 90_000);

	it("a failed install fails the connect with npm's words and leaves nothing; no npx installs under the connect deadline", async () => {
		dir = tempDir();
		npm = slowNpm(dir.path, { gate: true, env: { SLOW_NPM_FAIL: "1" } });
		const manager = session();
		const connecting = manager.connect(slowEntry(npm));
		await npm.paused();
		npm.open();
		await expect(connecting).rejects.toThrow(/npm could not install @example\/slow-server@1\.0\.0:.*ECONNRESET/s);
		expect(existsSync(npm.folder(SPEC))).toBe(false);
		expect(npm.installs()).toEqual([`exec ${SPEC}`]);
	}, 90_000);

	it("a folder npm itself is installing (its lock held) is waited for, not removed and installed again", async () => {
		dir = tempDir();
		npm = slowNpm(dir.path, { gate: true, env: { SLOW_NPM_LOCK: "1" } });
		// The user's own `npx -y` (npm 11, its lock held) is halfway through the same package.
		const theirs = spawn("npx", ["-y", SPEC], {
			env: { ...process.env, ...npm.env },
			stdio: ["pipe", "ignore", "ignore"],
		});
		others.push(theirs);
		await npm.paused();
		const manager = session();
		let told = 0;
		manager.subscribe((_server, event) => {
			if (event === "installing") told++;
		});
		const connecting = manager.connect(slowEntry(npm));
		// Three reports (a second apart) of our session waiting: by then a session that took the folder
		// for a cut one would have removed it and started its own npm.
		await waitUntil(() => told >= 3, "our session to wait for their install", 60_000);
		expect(existsSync(join(npm.packageDir(SPEC, NAME), "package.json"))).toBe(true);
		expect(npm.installs()).toEqual([`npx ${SPEC}`]);
		npm.open();
		await connecting;
		expect(await echo(manager, "theirs")).toContain("Echo: theirs");
		expect(npm.installs()).toEqual([`npx ${SPEC}`]);
		theirs.stdin?.end(); // their server, running on stdin, ends with it
	}, 90_000);

	it("a marker whose pid now belongs to another process is not waited for", async () => {
		dir = tempDir();
		npm = slowNpm(dir.path, { env: { INSTALL_MS: "200" } });
		// What a worker killed outright leaves (the format of earlier versions: the pid alone), its pid
		// reused since: here by this test's own process, alive and no installer.
		const marker = installMarker(npm.folder(SPEC));
		mkdirSync(dirname(marker), { recursive: true });
		writeFileSync(marker, String(process.pid));
		const manager = session({ connectTimeoutMs: 8000 });
		await manager.connect(slowEntry(npm));
		expect(await echo(manager, "not stale")).toContain("Echo: not stale");
		expect(npm.installs()).toEqual([`exec ${SPEC}`]);
	}, 90_000);
});
