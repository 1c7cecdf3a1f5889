// A browser's part in an MCP App page (apps/page-server.ts), for tests: it opens the launch file
// it is handed as a browser would (its form posts the one-time token, the answer leads to the
// page), loads the host page, the sandbox page and the view (keeping each response's policy), then
// speaks for the view through the page's own channel: what the view would post reaches the host as
// the host page POSTs it (with the page's origin and its stream's key), and what the host sends to
// the view is read from the page's events stream. No browser runs.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AppCall } from "../../proxy/answer.ts";

/** A JSON-RPC message as the view and the host exchange them. */
export interface RpcMessage {
	readonly jsonrpc: "2.0";
	readonly id?: number | string;
	readonly method?: string;
	readonly params?: Record<string, unknown>;
	readonly result?: Record<string, unknown>;
	readonly error?: { code: number; message: string };
}

export interface Loaded {
	readonly status: number;
	readonly csp: string;
	readonly body: string;
}

export interface AppBrowser {
	/** The page's address (with its token). */
	readonly url: string;
	readonly hostPage: Loaded;
	readonly sandboxPage: Loaded;
	readonly view: Loaded;
	readonly sandboxOrigin: string;
	/** Posts a message as the host page relays one from the view; the HTTP status. */
	post(message: RpcMessage): Promise<number>;
	/** The first message from the host (in arrival order, from the start) that matches. */
	next(match: (message: RpcMessage) => boolean): Promise<RpcMessage>;
	/** Sends a request as the view, and waits for the host's answer to it. */
	request(id: number, method: string, params?: Record<string, unknown>): Promise<RpcMessage>;
	/** Resolves with the reason the host gives when it ends the page ("" when the stream just ends). */
	readonly closed: Promise<string>;
	/** Drops the events stream (the tab closes). */
	leave(): void;
}

/** The call of the board fixture's `show_board` whose result opens its view (for tests without a server). */
export const BOARD_CALL: AppCall = {
	tool: {
		server: "board",
		name: "show_board",
		description: "",
		inputSchema: {},
		ui: { resourceUri: "ui://board/view.html" },
	},
	args: { title: "Team" },
	result: { content: [{ type: "text", text: "board" }] },
};

/**
 * The user's browser for a real Pi (BROWSER in `env`): a script in `dir` recording what it is
 * handed, its first argument, exactly what its command line shows every local user.
 */
export function recordingBrowser(dir: string): { env: { BROWSER: string }; handed(): string[] } {
	const log = join(dir, "opened.txt");
	const browser = join(dir, "browser.sh");
	writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`);
	chmodSync(browser, 0o755);
	return {
		env: { BROWSER: browser },
		handed: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []),
	};
}

/** The launch file's path from what the browser was handed (its `file:` URL). */
export function launchFilePath(handed: string): string {
	return handed.startsWith("file:") ? fileURLToPath(handed) : handed;
}

/** What the launch file holds: where its form posts, and the one-time token it posts. */
export function readLaunchFile(handed: string): { action: string; launch: string } {
	const html = readFileSync(launchFilePath(handed), "utf8");
	const action = /<form id="launch" method="post" action="([^"]+)">/.exec(html)?.[1];
	const launch = /name="launch" value="([^"]+)"/.exec(html)?.[1];
	if (!action || !launch) throw new Error(`not a launch file: ${html.slice(0, 200)}`);
	return { action, launch };
}

/** Posts a launch form as the launch page does; the answer (not followed). */
export function postLaunch(action: string, launch: string): Promise<Response> {
	return fetch(action, {
		method: "POST",
		headers: { "content-type": "application/x-www-form-urlencoded", origin: "null" },
		body: new URLSearchParams({ launch }).toString(),
		redirect: "manual",
	});
}

/** Opens the launch file as the user's browser does: its form posted; the page's address it leads to. */
export async function launchFromFile(handed: string): Promise<string> {
	const { action, launch } = readLaunchFile(handed);
	const answer = await postLaunch(action, launch);
	if (answer.status !== 303) throw new Error(`the launch was answered ${answer.status}: ${await answer.text()}`);
	return new URL(answer.headers.get("location") ?? "", action).href;
}

/** Opens the page from its launch file and initializes the view, as the user's browser and the view do. */
export async function openInitialized(handed: string): Promise<AppBrowser> {
	const page = await openAppPage(await launchFromFile(handed));
	await page.post({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} });
	await page.request(1, "ui/initialize", {
		appInfo: { name: "board", version: "1.0.0" },
		appCapabilities: {},
		protocolVersion: "2026-01-26",
	});
	return page;
}

async function load(url: string): Promise<Loaded> {
	const response = await fetch(url);
	return {
		status: response.status,
		csp: response.headers.get("content-security-policy") ?? "",
		body: await response.text(),
	};
}

/** Opens the app page at `url` (the page's address, with its token). */
export async function openAppPage(url: string): Promise<AppBrowser> {
	const origin = new URL(url).origin;
	const hostPage = await load(url);
	const sandboxUrl = JSON.parse(/frame\.src = ("[^"]+");/.exec(hostPage.body)?.[1] ?? '""') as string;
	const sandboxOrigin = new URL(sandboxUrl).origin;
	const sandboxPage = await load(sandboxUrl);
	const viewPath = JSON.parse(/const VIEW = ("[^"]+");/.exec(sandboxPage.body)?.[1] ?? '""') as string;
	const view = await load(`${sandboxOrigin}${viewPath}`);

	const received: RpcMessage[] = [];
	let streamKey = "";
	let keyed: () => void = () => undefined;
	const gotKey = new Promise<void>((resolve) => {
		keyed = resolve;
	});
	const waiters: { match: (m: RpcMessage) => boolean; resolve: (m: RpcMessage) => void }[] = [];
	let closedWith: (reason: string) => void = () => undefined;
	const closed = new Promise<string>((resolve) => {
		closedWith = resolve;
	});
	const stop = new AbortController();
	const stream = await fetch(new URL("events", url), { signal: stop.signal });
	const deliver = (message: RpcMessage) => {
		received.push(message);
		for (const waiter of [...waiters])
			if (waiter.match(message)) {
				waiters.splice(waiters.indexOf(waiter), 1);
				waiter.resolve(message);
			}
	};
	void (async () => {
		const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
		const decoder = new TextDecoder();
		let buffer = "";
		try {
			for (;;) {
				const { value, done } = await reader.read();
				if (done) return;
				buffer += decoder.decode(value, { stream: true });
				for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
					const block = buffer.slice(0, end);
					buffer = buffer.slice(end + 2);
					const event = /^event: (.*)$/m.exec(block)?.[1];
					const data = /^data: (.*)$/m.exec(block)?.[1];
					if (event === "closed") closedWith(data ?? "");
					else if (event === "key") {
						streamKey = data ?? "";
						keyed();
					} else if (data !== undefined) deliver(JSON.parse(data) as RpcMessage);
				}
			}
		} catch {
			// the test left the page (leave()): the stream ends here
		} finally {
			closedWith(""); // ended without the host saying so (no effect once it has)
		}
	})();

	// As the host page: nothing is posted before the stream's key has come.
	if (stream.status === 200) await gotKey;
	else throw new Error(`the page's events stream was refused: ${stream.status}`);
	const post = async (message: RpcMessage) => {
		const response = await fetch(new URL("messages", url), {
			method: "POST",
			headers: { origin, "content-type": "application/json", "x-mcp-app-stream": streamKey },
			body: JSON.stringify(message),
		});
		return response.status;
	};
	const next = (match: (message: RpcMessage) => boolean) => {
		const seen = received.find(match);
		if (seen) return Promise.resolve(seen);
		return new Promise<RpcMessage>((resolve) => waiters.push({ match, resolve }));
	};
	return {
		url,
		hostPage,
		sandboxPage,
		view,
		sandboxOrigin,
		post,
		next,
		async request(id, method, params = {}) {
			const answer = next((m) => m.id === id && m.method === undefined);
			await post({ jsonrpc: "2.0", id, method, params });
			return answer;
		},
		closed,
		leave: () => stop.abort(),
	};
}
