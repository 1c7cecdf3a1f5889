// An MCP App's page is opened through a file only the user can read, never an address on a
// command line (`ps` shows every command line to every local user): the browser is handed the
// file's path, the file posts a one-time token, and the page then takes one events stream at a
// time and messages only with that stream's key. Whatever reaches for the page without being it
// is refused, and the user is told.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { AppHost } from "../../apps/app-session.ts";
import { AppSessions, type AppsSetting } from "../../apps/app-sessions.ts";
import { type AppPage, startAppPage } from "../../apps/page-server.ts";
import { BOARD_CALL, launchFromFile, openAppPage, postLaunch, readLaunchFile } from "../support/app-browser.ts";
import { tempDir } from "../support/helpers.ts";

const view = { uri: "ui://board/view.html", html: "<p>board</p>" };

/** An events stream's first event (the page's key), or its status when refused. */
async function openEvents(url: string): Promise<{ status: number; key?: string; stop(): void }> {
	const stop = new AbortController();
	const response = await fetch(new URL("events", url), { signal: stop.signal });
	if (response.status !== 200) return { status: response.status, stop: () => stop.abort() };
	const reader = (response.body as ReadableStream<Uint8Array>).getReader();
	let text = "";
	while (!text.includes("\n\n")) text += new TextDecoder().decode((await reader.read()).value);
	return { status: 200, key: /^event: key\ndata: (.+)$/m.exec(text)?.[1], stop: () => stop.abort() };
}

const post = (url: string, key: string | undefined) =>
	fetch(new URL("messages", url), {
		method: "POST",
		headers: {
			origin: new URL(url).origin,
			"content-type": "application/json",
			...(key ? { "x-mcp-app-stream": key } : {}),
		},
		body: JSON.stringify({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} }),
	});

describe("an app's page", () => {
	const launches = tempDir();
	let page: AppPage | undefined;
	const refused: string[] = [];
	afterEach(async () => {
		await page?.close("test over");
		refused.length = 0;
	});
	afterAll(() => launches.remove());
	const start = async () => {
		page = await startAppPage(view, "board: show_board", {
			launchDir: launches.path,
			onRefused: (what) => refused.push(what),
		});
		return page;
	};

	it("is handed over as a file only the user can read, which opens it once; then the file is gone", async () => {
		const { launchFile, url } = await start();
		expect(dirname(dirname(launchFile))).toBe(launches.path);
		expect(statSync(dirname(launchFile)).mode & 0o777).toBe(0o700);
		expect(statSync(launchFile).mode & 0o777).toBe(0o600);
		// Its path says nothing of the page: no port, no token.
		expect(launchFile).not.toContain("127.0.0.1");
		for (const token of [new URL(url).pathname.slice(1, -1), readLaunchFile(launchFile).launch])
			expect(launchFile).not.toContain(token);
		const { action, launch } = readLaunchFile(launchFile);
		expect(action).toBe(`${new URL(url).origin}/launch`);
		expect(readFileSync(launchFile, "utf8")).toContain('document.getElementById("launch").submit()');

		// Neither a GET of the launch path nor a wrong token opens anything.
		expect((await fetch(action)).status).toBe(404);
		expect((await postLaunch(action, "not-the-token")).status).toBe(403);
		expect(await launchFromFile(launchFile)).toBe(url);
		expect(existsSync(dirname(launchFile))).toBe(false);
		// Used again (something else read it): refused, and reported.
		expect((await postLaunch(action, launch)).status).toBe(410);
		expect(refused).toEqual(["its one-time launch token was used again"]);
	});

	it("takes one events stream at a time, and messages only with the open stream's key", async () => {
		const { url } = await start();
		const first = await openEvents(url);
		expect(first.status).toBe(200);
		expect(first.key).toMatch(/^[A-Za-z0-9_-]{24}$/);
		// A second opener while it is open: refused and reported.
		expect((await openEvents(url)).status).toBe(409);
		expect(refused).toEqual(["a second page asked for its events while it is open"]);
		// A message without the open stream's key, or with another: refused and reported.
		expect((await post(url, undefined)).status).toBe(403);
		expect((await post(url, "a-key-never-given")).status).toBe(403);
		expect((await post(url, first.key)).status).toBe(202);
		expect(refused.slice(1)).toEqual([
			"a message came without its open page's key",
			"a message came without its open page's key",
		]);
		// The page reloads: its old stream ends, a new one is taken; a late message of the old one is not foreign.
		first.stop();
		await waitFor(() => page?.connected() === false);
		const second = await openEvents(url);
		expect(second.status).toBe(200);
		expect((await post(url, first.key)).status).toBe(409);
		expect((await post(url, second.key)).status).toBe(202);
		expect(refused).toHaveLength(3);
		second.stop();
	});
});

/** Waits for the page server to see a closed stream (an event of its socket, not a time). */
async function waitFor(check: () => boolean): Promise<void> {
	while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

describe("a result with a view, in an interactive session", () => {
	const call = BOARD_CALL;
	const declared = {
		connectDomains: ["https://api.board.example.com", "https://printer.lan", "https://127.0.0.1.nip.io"],
		resourceDomains: ["https://cdn.board.example.com", "https://localtest.me", "https://intranet.example.org"],
	};
	const host = {
		lifecycle: {
			readResource: async (_server: string, uri: string) => ({
				contents: [{ uri, mimeType: "text/html", text: "<p>board</p>", _meta: { ui: { csp: declared } } }],
			}),
		},
	} as unknown as AppHost;
	/** A DNS where the board's names are public and the intranet's and localtest.me point home. */
	const dns: Record<string, string[]> = {
		"api.board.example.com": ["93.184.215.14"],
		"cdn.board.example.com": ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
		"intranet.example.org": ["10.0.0.7"],
		"localtest.me": ["127.0.0.1"],
	};

	it("opens its launch file, serves the view under the public names only, and tells the user what else reached for it", async () => {
		const launches = tempDir();
		const opened: string[] = [];
		const notes: [string, string][] = [];
		const setting: AppsSetting = {
			enabled: true,
			interactive: true,
			launchDir: launches.path,
			open: (file) => opened.push(file),
			notify: (text, level) => notes.push([level, text]),
			resolveHost: async (name) => dns[name] ?? [],
		};
		const sessions = new AppSessions();
		try {
			expect(await sessions.show(call, host, setting)).toBe(
				"Its app (ui://board/view.html) is open in the user's browser.",
			);
			expect(opened).toHaveLength(1);
			const url = await launchFromFile(opened[0]);
			expect(notes).toEqual([["info", `MCP: the app of "board" is open in your browser: ${url}`]]);
			const page = await openAppPage(url);
			expect(page.view.csp).toContain("connect-src https://api.board.example.com;");
			expect(page.view.csp).toContain("img-src 'self' data: https://cdn.board.example.com;");
			expect(page.view.csp).not.toMatch(/printer|nip\.io|localtest|intranet/);
			const init = await page.request(1, "ui/initialize", {
				appInfo: { name: "board", version: "1.0.0" },
				appCapabilities: {},
				protocolVersion: "2026-01-26",
			});
			expect(init.result?.hostCapabilities).toMatchObject({
				sandbox: {
					csp: {
						connectDomains: ["https://api.board.example.com"],
						resourceDomains: ["https://cdn.board.example.com"],
					},
				},
			});
			// Something else with the page's address: its events are refused, and the user is told.
			expect((await openEvents(url)).status).toBe(409);
			expect(notes[1]).toEqual([
				"warning",
				'MCP: something other than your browser reached for the app of "board" (a second page asked for its events while it is open); it was refused. If that was not you, another program on this machine knows the page\'s address.',
			]);
			page.leave();
		} finally {
			await sessions.closeAll();
			launches.remove();
		}
	});
});
