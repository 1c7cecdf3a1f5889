// The documents an MCP App opens in the browser. The launch page (a private file,
// apps/launch-file.ts) posts the page's one-time token and is answered with the host page. The
// host page (its own loopback origin, its address holding the page's token) only relays: JSON-RPC
// from the view (through the sandbox page) is POSTed to `messages` with its events stream's key,
// and what the host sends arrives on the `events` stream (server-sent events) and is posted to the
// sandbox page. The protocol itself is answered in Pi's process by the MCP Apps SDK's AppBridge
// (apps/app-session.ts). The sandbox page (another origin, no token) loads the view in a nested
// sandboxed frame once the host says the view is ready, and relays between the two, as the spec's
// sandbox proxy does. The view has an opaque origin ("null", apps/csp.ts), so the sandbox page
// knows it by its window alone and can only post to it with "*" (only the view, or a page it
// navigated its own frame to, can be there). Scripts run by nonce; every value is inlined as
// escaped JSON.

import { SANDBOX_PAGE_SANDBOX, VIEW_SANDBOX } from "./csp.ts";
import { STREAM_KEY_HEADER } from "./page-channel.ts";

/** JSON safe inside a <script> element (no `</script>`, no line separators JavaScript would break on). */
function inlineJson(value: unknown): string {
	return JSON.stringify(value)
		.replace(/</g, "\\u003c")
		.replace(/>/g, "\\u003e")
		.replace(/&/g, "\\u0026")
		.replace(/\u2028/g, "\\u2028")
		.replace(/\u2029/g, "\\u2029");
}

function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The methods only the sandbox page and the host exchange (the spec's `ui/notifications/sandbox-*`). */
const SANDBOX_METHODS = "ui/notifications/sandbox-";

export interface HostPageInput {
	readonly nonce: string;
	/** What the page shows it is: the server and tool. */
	readonly label: string;
	readonly sandboxUrl: string;
	readonly sandboxOrigin: string;
	readonly allow: string;
}

export function hostPage(input: HostPageInput): string {
	const { nonce } = input;
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<title>${escapeHtml(input.label)} (MCP app)</title>
<style nonce="${nonce}">
html, body { margin: 0; height: 100%; font: 13px system-ui, sans-serif; }
body { display: flex; flex-direction: column; }
header { padding: 6px 10px; border-bottom: 1px solid #8886; display: flex; gap: 8px; }
#status { opacity: 0.7; }
iframe { flex: 1; border: 0; width: 100%; }
</style></head>
<body><header><b id="label"></b><span id="status">connecting</span></header>
<iframe id="sandbox" sandbox="${SANDBOX_PAGE_SANDBOX}" allow="${escapeHtml(input.allow)}" referrerpolicy="no-referrer"></iframe>
<script nonce="${nonce}">
const SANDBOX_ORIGIN = ${inlineJson(input.sandboxOrigin)};
document.getElementById("label").textContent = ${inlineJson(input.label)};
const status = (text) => { document.getElementById("status").textContent = text; };
const frame = document.getElementById("sandbox");
const events = new EventSource("events");
// Each POST names the open stream's key (its first event): Pi takes messages only from the page it streams to.
let streamKey;
const keyed = new Promise((resolve) => events.addEventListener("key", (event) => {
	streamKey = event.data;
	resolve();
}));
let sending = keyed;
const send = (message) => {
	const body = JSON.stringify(message);
	sending = sending
		.then(() => {
			const headers = { "content-type": "application/json", ${inlineJson(STREAM_KEY_HEADER)}: streamKey };
			return fetch("messages", { method: "POST", headers, body });
		})
		.then((response) => { if (!response.ok) status("Pi refused a message (" + response.status + ")"); })
		.catch(() => status("disconnected from Pi"));
};
addEventListener("message", (event) => {
	if (event.source !== frame.contentWindow || event.origin !== SANDBOX_ORIGIN) return;
	const message = event.data;
	if (!message || typeof message !== "object" || message.jsonrpc !== "2.0") return;
	if (message.method === "ui/notifications/size-changed" && message.params && message.params.height > 0)
		frame.style.minHeight = Math.ceil(message.params.height) + "px";
	send(message);
});
events.onopen = () => status("");
events.onmessage = (event) => frame.contentWindow.postMessage(JSON.parse(event.data), SANDBOX_ORIGIN);
events.addEventListener("closed", (event) => {
	events.close();
	status(event.data || "closed");
});
const REFUSED = "Pi refused this page: the app is open in another one, or has closed";
events.onerror = () => status(events.readyState === EventSource.CLOSED ? REFUSED : "disconnected from Pi");
frame.src = ${inlineJson(input.sandboxUrl)};
</script></body></html>`;
}

export interface LaunchPageInput {
	/** What is being opened: the server and tool. */
	readonly label: string;
	/** Where the form posts (the host page server's `/launch`). */
	readonly action: string;
	/** The page's one-time launch token. */
	readonly launch: string;
}

/**
 * The launch file's page (apps/launch-file.ts): a form that posts the one-time token to the page
 * server as soon as it loads (its button, where scripts do not run), which answers with the page.
 */
export function launchPage(input: LaunchPageInput): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<title>${escapeHtml(input.label)} (MCP app)</title></head>
<body><form id="launch" method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="launch" value="${escapeHtml(input.launch)}">
<p>Opening the app of ${escapeHtml(input.label)}... <button type="submit">Open it</button></p>
</form>
<script>document.getElementById("launch").submit();</script></body></html>`;
}

export interface SandboxPageInput {
	readonly nonce: string;
	readonly hostOrigin: string;
	readonly viewPath: string;
	readonly allow: string;
}

export function sandboxPage(input: SandboxPageInput): string {
	const { nonce } = input;
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<style nonce="${nonce}">html, body, iframe { margin: 0; border: 0; width: 100%; height: 100%; display: block; }</style></head>
<body><iframe id="view" sandbox="${VIEW_SANDBOX}" allow="${escapeHtml(input.allow)}" referrerpolicy="no-referrer"></iframe>
<script nonce="${nonce}">
const HOST_ORIGIN = ${inlineJson(input.hostOrigin)};
const VIEW = ${inlineJson(input.viewPath)};
const view = document.getElementById("view");
const own = (message) => typeof message.method === "string" && message.method.startsWith(${inlineJson(SANDBOX_METHODS)});
addEventListener("message", (event) => {
	const message = event.data;
	if (!message || typeof message !== "object") return;
	if (event.source === parent && event.origin === HOST_ORIGIN) {
		if (message.method === "ui/notifications/sandbox-resource-ready") view.src = VIEW;
		else if (!own(message) && view.contentWindow) view.contentWindow.postMessage(message, "*");
	} else if (event.source === view.contentWindow && event.origin === "null" && !own(message)) {
		parent.postMessage(message, HOST_ORIGIN);
	}
});
parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, HOST_ORIGIN);
</script></body></html>`;
}
