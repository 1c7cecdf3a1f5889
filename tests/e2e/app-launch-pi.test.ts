// Another account on the same machine cannot take an MCP App's page, on both Pi lines. The browser
// is started with what it opens on its command line, which every local user reads in
// /proc/<pid>/cmdline (the browser here is a script recording its argument: exactly that). With
// only that, the other account tries what it can: follow any address in it, read any file it
// names (as the user `nobody`, when the test runs as root). It obtains no page, so no token,
// events or tool calls; the user's browser opens the page from the same argument and uses it; and
// what then reaches for the page without being it (the launch used again, a second events stream,
// a message without the page's stream key) is refused and Pi warns the user.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	launchFilePath,
	openInitialized,
	postLaunch,
	readLaunchFile,
	recordingBrowser,
} from "../support/app-browser.ts";
import { ROOT, TSX, waitUntil } from "../support/helpers.ts";
import { createPiHome, type PiHome, type RpcEvent, startPiRpc } from "../support/pi-cli-harness.ts";
import { steps } from "../support/pi-conversation.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const FIXTURE = join(ROOT, "tests/fixtures/apps-server.ts");
const SHOW = 'call {"tool":"board_show_board","args":{"title":"Team"}}';
const BUDGET = 170_000;
const NOBODY = 65534;

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

/** Reads a file as the user `nobody` (another local account); its text, or undefined when it may not. */
function readAsAnotherUser(path: string): string | undefined {
	const read = spawnSync("cat", [path], { uid: NOBODY, gid: NOBODY, encoding: "utf8" });
	return read.status === 0 ? read.stdout : undefined;
}

/**
 * What another local account obtains of the page from the browser's command line: it follows every
 * address there, and reads any file it names (and the addresses in it) where it may. The page's
 * address (with its token), if it reached the host page.
 */
async function takePage(commandLine: string): Promise<string | undefined> {
	const texts = [commandLine];
	if (commandLine.startsWith("file:") && process.getuid?.() === 0) {
		const stolen = readAsAnotherUser(launchFilePath(commandLine));
		if (stolen !== undefined) texts.push(stolen);
	}
	for (const text of texts) {
		for (const address of text.match(/http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_/-]*/g) ?? []) {
			const launch = /name="launch" value="([^"]+)"/.exec(text)?.[1];
			const response = launch
				? await postLaunch(address, launch)
				: await fetch(address, { redirect: "manual" }).catch(() => undefined);
			const location = response?.headers.get("location");
			const page = location ? new URL(location, address).href : address;
			const answer = await fetch(page).catch(() => undefined);
			if (answer?.status === 200 && (await answer.text()).includes("frame.src")) return page;
		}
	}
	return undefined;
}

describe.each(PI_HOSTS)("$name: an MCP App's page and another local account", (host) => {
	let home: PiHome;
	let browser: ReturnType<typeof recordingBrowser>;
	let reached: string;
	let env: Record<string, string>;

	beforeEach(async () => {
		home = await createPiHome({});
		// A home other accounts may enter, as on many systems: only what Pi makes private stays so.
		chmodSync(home.root, 0o755);
		chmodSync(home.agentDir, 0o755);
		reached = join(home.root, "reached.jsonl");
		browser = recordingBrowser(home.root);
		const board = { command: process.execPath, args: [TSX, FIXTURE], env: { REACHED_LOG: reached } };
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { board } }));
		env = browser.env;
	});
	afterEach(async () => home.dispose());

	it("rpc: the browser's command line opens nothing for it; the user's browser opens the page; what else reaches for it is refused, and Pi says so", async () => {
		const pi = await startPiRpc({ home, host, steps, env });
		const warnings = (from: number) =>
			pi.events
				.slice(from)
				.filter(
					(e: RpcEvent) => e.method === "notify" && String(e.message).includes("something other than your browser"),
				)
				.map((e) => String(e.message));
		try {
			pi.send({ id: "p1", type: "prompt", message: SHOW });
			await pi.waitFor((e) => e.type === "agent_end", 0, BUDGET);
			await waitUntil(() => browser.handed().length > 0, "the browser to be handed the page", BUDGET);
			const [commandLine] = browser.handed();

			// The other account: no page from what it can see.
			if (process.getuid?.() === 0)
				expect(
					readAsAnotherUser(join(home.agentDir, "settings.json")),
					"the other account reads what it may",
				).toContain("retry");
			expect(await takePage(commandLine)).toBeUndefined();
			// What it was handed: a file only the user can read, in a folder only the user can enter.
			const file = launchFilePath(commandLine);
			expect(commandLine).toMatch(/^file:\/\//);
			expect(statSync(file).mode & 0o777).toBe(0o600);
			expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
			expect(dirname(dirname(file))).toBe(join(home.agentDir, "mcp-app-pages"));

			// The user's browser opens the page from the same command line, and the view works.
			const { action, launch } = readLaunchFile(commandLine);
			const page = await openInitialized(commandLine);
			expect(existsSync(dirname(file))).toBe(false);
			const url = page.url;
			await page.post({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
			expect((await page.next((m) => m.method === "ui/notifications/tool-input")).params).toEqual({
				arguments: { title: "Team" },
			});
			const refreshed = await page.request(2, "tools/call", { name: "refresh_board", arguments: {} });
			expect(refreshed.result?.content).toEqual([{ type: "text", text: "refreshed: 3 cards" }]);
			expect(warnings(0)).toEqual([]);

			// Something else reaching for it: the launch used again, a second stream, a message without the stream's key.
			const from = pi.events.length;
			expect((await postLaunch(action, launch)).status).toBe(410);
			expect((await fetch(new URL("events", url))).status).toBe(409);
			const foreign = await fetch(new URL("messages", url), {
				method: "POST",
				headers: { origin: new URL(url).origin, "content-type": "application/json" },
				body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "refresh_board" } }),
			});
			expect(foreign.status).toBe(403);
			await waitUntil(() => warnings(from).length === 3, "Pi to warn of each", BUDGET);
			expect(warnings(from).map((w) => /\(([^)]+)\)/.exec(w)?.[1])).toEqual([
				"its one-time launch token was used again",
				"a second page asked for its events while it is open",
				"a message came without its open page's key",
			]);
			expect(warnings(from)[0]).toContain('the app of "board"');
			// Only the user's browser's call reached the server.
			expect(lines(reached).map((line) => JSON.parse(line).call ?? "read")).toEqual([
				"show_board",
				"read",
				"refresh_board",
			]);
			page.leave();
		} finally {
			await pi.close();
		}
	}, 240_000);
});
