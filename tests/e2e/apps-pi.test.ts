// MCP Apps in the real `pi`, on both lines, with a server on the SDK's server package whose tool
// declares a `ui://` view (tests/fixtures/apps-server.ts). Over rpc (an interactive session) the
// result opens the view: the browser (BROWSER, a script recording what it is handed) is handed a
// private launch file that opens a loopback page serving the view inside a sandbox with the
// view's declared policy, and the test then speaks for the view through that page's channel, as a
// browser would (tests/support/app-browser.ts): its tool calls meet the model's approvals and
// hooks (on Pi 1.5 a permission extension blocks one before it reaches the server; Pi's
// --exclude-tools and --tools limit them as they limit the model's), a tool for the app only
// runs, one for the model only is refused, a read, a message to the conversation and a link go
// through on the user's yes. When Pi exits the page is told and its servers are gone. In `pi -p`
// nothing opens and the result says so.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { launchFromFile, openAppPage, openInitialized, recordingBrowser } from "../support/app-browser.ts";
import { ROOT, TSX, waitUntil } from "../support/helpers.ts";
import { lastToolMessage, type Step } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { steps, toolResults } from "../support/pi-conversation.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const FIXTURE = join(ROOT, "tests/fixtures/apps-server.ts");
const PROBE = join(ROOT, "tests/fixtures/permission-probe.ts");
const SHOW = 'call {"tool":"board_show_board","args":{"title":"Team"}}';
const OPENED = "(Its app (ui://board/view.html) is open in the user's browser.)";
const BUDGET = 170_000;

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

describe.each(PI_HOSTS)("$name: a tool result with an MCP App", (host) => {
	const pi15 = host.pi1;
	let home: PiHome;
	let reached: string;
	let browser: ReturnType<typeof recordingBrowser>;
	let probe: string;
	let env: Record<string, string>;

	beforeEach(async () => {
		home = await createPiHome({});
		reached = join(home.root, "reached.jsonl");
		probe = join(home.root, "probe.jsonl");
		browser = recordingBrowser(home.root);
		const board = { command: process.execPath, args: [TSX, FIXTURE], env: { REACHED_LOG: reached } };
		home.writeAgentFile(
			"mcp.json",
			JSON.stringify({ mcpServers: { board: { ...board, approveTools: ["refresh_board", "add_note"] } } }),
		);
		env = { ...browser.env, PROBE_FILE: probe, PROBE_BLOCK: "mcp__board__add_note" };
	});
	afterEach(async () => home.dispose());

	const calls = () => lines(reached).map((line) => JSON.parse(line).call ?? `read ${JSON.parse(line).read}`);

	it("rpc: opens the view on a loopback page; the view's requests meet the model's approvals and hooks; it ends with Pi", async () => {
		const pi = await startPiRpc({ home, host, steps, env, extraArgs: pi15 ? ["-e", PROBE] : [] });
		try {
			pi.send({ id: "p1", type: "prompt", message: SHOW });
			await pi.waitFor((e) => e.type === "agent_end", 0, BUDGET);
			expect(toolResults(pi.events)).toContain(OPENED);
			await waitUntil(() => browser.handed().length > 0, "the browser to be handed the page", BUDGET);
			// The browser is handed a private launch file (tests/e2e/app-launch-pi.test.ts), which opens the page once.
			const [launch] = browser.handed();
			expect(launch).toMatch(/^file:\/\/.*\/open\.html$/);
			const url = await launchFromFile(launch);
			expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/$/);
			const notified = pi.events.find((e) => e.method === "notify" && String(e.message).includes(url));
			expect(notified?.message).toContain('the app of "board" is open in your browser');

			const page = await openAppPage(url);
			expect(page.hostPage.status).toBe(200);
			expect(page.hostPage.csp).toContain(`frame-src ${page.sandboxOrigin}`);
			expect(page.sandboxPage.csp).toContain(`frame-ancestors ${new URL(url).origin}`);
			// The view's own HTML, under the policy it declared and no more: its names end in `.example`, no
			// public suffix (RFC 2606), so not provably public, and are dropped (apps/public-hosts.ts).
			expect(page.view.body).toContain("<title>Board</title>");
			expect(page.view.csp).toContain("connect-src 'none';");
			expect(page.view.csp).toContain("script-src 'self' 'unsafe-inline';");
			expect(page.view.csp).toContain("default-src 'none'");
			// No origin of its own but an opaque one: not 127.0.0.1's (cookies ignore ports).
			expect(page.view.csp).toMatch(/sandbox allow-scripts allow-forms$/);
			expect(page.sandboxPage.body).toContain('<iframe id="view" sandbox="allow-scripts allow-forms"');

			// The handshake: the sandbox is told to load the view; the view initializes, then gets the call.
			expect(await page.post({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} })).toBe(202);
			await page.next((m) => m.method === "ui/notifications/sandbox-resource-ready");
			const init = await page.request(1, "ui/initialize", {
				appInfo: { name: "board", version: "1.0.0" },
				appCapabilities: {},
				protocolVersion: "2026-01-26",
			});
			expect(init.result?.hostCapabilities).toMatchObject({ serverTools: {}, serverResources: {}, message: {} });
			expect(init.result?.hostCapabilities).toMatchObject({
				sandbox: { csp: { connectDomains: [], resourceDomains: [] } },
			});
			await page.post({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
			const input = await page.next((m) => m.method === "ui/notifications/tool-input");
			expect(input.params).toEqual({ arguments: { title: "Team" } });
			const result = await page.next((m) => m.method === "ui/notifications/tool-result");
			expect(result.params?.structuredContent).toEqual({ title: "Team", cards: ["plan", "ship"] });

			// A tool for the app only: approveTools asks, as for any call; allowed once, it runs.
			const asked = pi.events.length;
			const refreshing = page.request(2, "tools/call", { name: "refresh_board", arguments: {} });
			const approval = await pi.waitFor(
				(e) => e.type === "extension_ui_request" && String(e.title).includes("refresh_board"),
				asked,
				BUDGET,
			);
			pi.send({ type: "extension_ui_response", id: approval.id, value: "Allow once" });
			expect((await refreshing).result?.content).toEqual([{ type: "text", text: "refreshed: 3 cards" }]);

			// A tool the server keeps for the model: refused to the view.
			const modelOnly = await page.request(3, "tools/call", { name: "model_only", arguments: {} });
			expect(modelOnly.error?.message).toContain('"model_only" is not for apps');

			// A tool for both, run as the model's call: Pi 1.5's permission hook blocks it by its
			// real name; on pi 0.73 (no nested tool calls, no hook sees it) the user denies it.
			const before = pi.events.length;
			const noting = page.request(4, "tools/call", { name: "add_note", arguments: { text: "from the app" } });
			if (!pi15) {
				const deny = await pi.waitFor(
					(e) => e.type === "extension_ui_request" && String(e.title).includes("add_note"),
					before,
					BUDGET,
				);
				pi.send({ type: "extension_ui_response", id: deny.id, value: "Deny" });
			}
			const noted = await noting;
			expect(noted.result?.isError).toBe(true);
			expect(JSON.stringify(noted.result?.content)).toMatch(pi15 ? /is not allowed here/ : /declined|denied/i);
			if (pi15) expect(lines(probe).map((l) => JSON.parse(l).tool)).toContain("mcp__board__add_note");

			// A read of its server's resource.
			const read = await page.request(5, "resources/read", { uri: "board://notes" });
			expect(read.result?.contents).toEqual([{ uri: "board://notes", mimeType: "text/plain", text: "plan; ship" }]);

			// A message for the conversation: shown to the user, sent as theirs on "Send".
			const sending = pi.events.length;
			const message = page.request(6, "ui/message", {
				role: "user",
				content: [{ type: "text", text: "Summarize the board" }],
			});
			const consent = await pi.waitFor(
				(e) => e.type === "extension_ui_request" && e.method === "select" && (e.options as string[]).includes("Send"),
				sending,
				BUDGET,
			);
			expect(consent.options).toEqual(["Don't send", "Send"]);
			pi.send({ type: "extension_ui_response", id: consent.id, value: "Send" });
			expect((await message).result).toEqual({});
			await pi.waitFor((e) => e.type === "agent_end", sending, BUDGET);
			expect(JSON.stringify(home.model.requests.at(-1)?.messages.at(-1))).toContain("Summarize the board");

			// A link: opened in the browser only on the user's "Open", as the browser reads it.
			const linking = pi.events.length;
			const link = page.request(7, "ui/open-link", { url: "HTTPS://Board.Example/card 1" });
			const ask = await pi.waitFor(
				(e) => e.type === "extension_ui_request" && e.method === "select" && String(e.title).includes("open this page"),
				linking,
				BUDGET,
			);
			expect(ask.options).toEqual(["Don't open", "Open it in the browser"]);
			expect(browser.handed()).toHaveLength(1);
			pi.send({ type: "extension_ui_response", id: ask.id, value: "Open it in the browser" });
			expect((await link).result).toEqual({});
			await waitUntil(() => browser.handed().length > 1, "the browser to be handed the link", BUDGET);
			expect(browser.handed()[1]).toBe("https://board.example/card%201");

			// The call, then its view read to open it; add_note and model_only never arrived.
			expect(calls()).toEqual(["show_board", "read ui://board/view.html", "refresh_board", "read board://notes"]);

			// Pi ends: the page is told, and nothing of it answers any more.
			await pi.close();
			expect(await page.closed).toBe("The Pi session ended.");
			await expect(fetch(url)).rejects.toThrow();
			page.leave();
		} finally {
			await pi.close();
		}
	}, 240_000);

	it.runIf(pi15)(
		"rpc: a tool for the app only that Pi's --exclude-tools names is refused to the view",
		async () => {
			const pi = await startPiRpc({ home, host, steps, env, extraArgs: ["--exclude-tools", "mcp__board__refresh*"] });
			try {
				pi.send({ id: "p1", type: "prompt", message: SHOW });
				await pi.waitFor((e) => e.type === "agent_end", 0, BUDGET);
				await waitUntil(() => browser.handed().length > 0, "the browser to be handed the page", BUDGET);
				const page = await openInitialized(browser.handed()[0]);
				const refreshed = await page.request(2, "tools/call", { name: "refresh_board", arguments: {} });
				expect(refreshed.result?.isError).toBe(true);
				expect(JSON.stringify(refreshed.result?.content)).toContain("excluded from this session by --exclude-tools");
				expect(
					pi.events.some((e) => e.type === "extension_ui_request" && String(e.title).includes("refresh_board")),
				).toBe(false);
				expect(calls()).toEqual(["show_board", "read ui://board/view.html"]);
				page.leave();
			} finally {
				await pi.close();
			}
		},
		240_000,
	);

	it("rpc: a --tools allowlist keeps a view from the tools it keeps from the model", async () => {
		// show_board as a direct tool, the one MCP tool the allowlist names; a first run lists the server into the cache.
		const board = { command: process.execPath, args: [TSX, FIXTURE], env: { REACHED_LOG: reached } };
		home.writeAgentFile(
			"mcp.json",
			JSON.stringify({ mcpServers: { board: { ...board, directTools: ["show_board"] } } }),
		);
		const listed = await runPi(home, 'call {"server":"board"}', { host, steps });
		expect(listed.code, listed.stderr).toBe(0);
		const direct = pi15 ? "mcp__board__show_board" : "board_show_board";
		const callDirect: Step[] = [
			() => ({ toolCall: { name: direct, arguments: { title: "Team" } } }),
			() => ({ text: "done" }),
		];
		const pi = await startPiRpc({ home, host, steps: callDirect, env, extraArgs: ["--tools", `read,${direct}`] });
		try {
			pi.send({ id: "p1", type: "prompt", message: "show the board" });
			await pi.waitFor((e) => e.type === "agent_end", 0, BUDGET);
			expect(toolResults(pi.events)).toContain(OPENED);
			await waitUntil(() => browser.handed().length > 0, "the browser to be handed the page", BUDGET);
			const page = await openInitialized(browser.handed()[0]);
			// The tool for the app only, and one for both: the model could call neither here.
			const refreshed = await page.request(2, "tools/call", { name: "refresh_board", arguments: {} });
			expect(refreshed.result?.isError).toBe(true);
			expect(JSON.stringify(refreshed.result?.content)).toContain("--tools");
			const noted = await page.request(3, "tools/call", { name: "add_note", arguments: { text: "from the app" } });
			expect(noted.result?.isError).toBe(true);
			expect(calls()).toEqual(["show_board", "read ui://board/view.html"]);
			page.leave();
		} finally {
			await pi.close();
		}
	}, 240_000);

	it("-p: nothing opens; the result says in one line what could not be shown", async () => {
		const run = await runPi(home, SHOW, { host, steps, env });
		expect(run.code, run.stderr).toBe(0);
		const said = lastToolMessage(home.model.requests[1]);
		expect(said).toContain('board "Team" has 2 cards');
		expect(said).toContain(
			"(Its app (ui://board/view.html) was not shown: this session has no interactive UI (pi -p, json mode).)",
		);
		expect(browser.handed()).toEqual([]);
		expect(calls()).toEqual(["show_board"]);
	}, 120_000);
});
