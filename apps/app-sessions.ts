// The MCP Apps of one Pi session: what becomes of a tool result whose tool declares a `ui://`
// view, and the one line the result ends with to say so. Where Pi has an interactive UI (TUI,
// rpc) the view opens on a loopback page in the user's browser; a later call of the same view
// updates the page still open; another view replaces it (one app at a time, as 2.36). Without
// one (`pi -p`, json) nothing opens and the line says what could not be shown. Every page ends
// with the session.
import { describeError } from "../errors.ts";
import type { AppCall } from "../proxy/answer.ts";
import { type AppHost, AppSession, type PageSetup } from "./app-session.ts";
import type { ResolveHost } from "./public-hosts.ts";

/** What the session offers apps besides the host's routes. */
export interface AppsSetting {
	/** `settings.apps` (default true): false shows no app, and says nothing of them. */
	readonly enabled: boolean;
	/** Whether Pi has an interactive UI (TUI, rpc), so a page in the browser has someone to answer it. */
	readonly interactive: boolean;
	/** The private folder where each page's launch file is written (apps/launch-file.ts). */
	readonly launchDir: string;
	/** Opens a page's launch file (its path) in the user's browser (injectable: tests record it). */
	open(launchFile: string): void;
	/** Looks up the names a view's policy declares (default: the system's DNS; tests inject their own). */
	readonly resolveHost?: ResolveHost;
	/** Tells the user (the page's address, for a browser on another machine; a failure). */
	notify(text: string, level: "info" | "warning"): void;
}

export class AppSessions {
	private current?: AppSession;
	private ended = false;

	/** Shows `call`'s result in its view, or says why not; the line for the result (none when apps are off). */
	async show(call: AppCall, host: AppHost, setting: AppsSetting, signal?: AbortSignal): Promise<string | undefined> {
		const view = call.tool.ui.resourceUri;
		if (!setting.enabled || this.ended) return undefined;
		if (!setting.interactive)
			return `Its app (${view}) was not shown: this session has no interactive UI (pi -p, json mode).`;
		const open = this.current;
		if (open && open.server === call.tool.server && open.viewUri === view && open.connected()) {
			open.show(call);
			return `Its app (${view}), open in the user's browser, shows this result.`;
		}
		let session: AppSession;
		try {
			session = await AppSession.open(call, host, pageSetup(call.tool.server, setting), signal);
		} catch (error) {
			const why = describeError(error);
			setting.notify(`MCP: the app of "${call.tool.server}" could not be shown: ${why}`, "warning");
			return `Its app (${view}) could not be shown: ${why}`;
		}
		// The session ended while the page started: it goes at once.
		if (this.ended) {
			await session.close("The Pi session ended.");
			return undefined;
		}
		const replaced = this.current;
		this.current = session;
		await replaced?.close("Another app replaced this one.");
		setting.open(session.launchFile);
		setting.notify(`MCP: the app of "${call.tool.server}" is open in your browser: ${session.url}`, "info");
		return `Its app (${view}) is open in the user's browser.`;
	}

	/** Ends every page (the session ends); nothing opens after. */
	async closeAll(): Promise<void> {
		this.ended = true;
		const open = this.current;
		this.current = undefined;
		await open?.close("The Pi session ended.");
	}
}

/** A page's setup from the session's setting: each request refused for reaching for the page is told to the user. */
function pageSetup(server: string, setting: AppsSetting): PageSetup {
	return {
		launchDir: setting.launchDir,
		onRefused: (what) =>
			setting.notify(
				`MCP: something other than your browser reached for the app of "${server}" (${what}); it was refused. If that was not you, another program on this machine knows the page's address.`,
				"warning",
			),
		...(setting.resolveHost ? { resolveHost: setting.resolveHost } : {}),
	};
}
