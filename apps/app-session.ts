// One open MCP App: its page (apps/page-server.ts) and the host's side of the protocol, the MCP
// Apps SDK's AppBridge, running here rather than in the browser: the page only relays, so every
// request of the view is answered in Pi's process, through `AppHost` (the same routes, approvals
// and hooks as the model's calls), and nothing the browser runs can answer for the host. Once the
// view has initialized it gets the tool's input and result; a later call of the same view sends
// them again.

import {
	type CallToolResult,
	ProtocolError,
	ProtocolErrorCode,
	type ReadResourceResult,
} from "@modelcontextprotocol/client";
import type { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";
import { once } from "../bounds/waits.ts";
import { CLIENT_INFO } from "../client-info.ts";
import type { ServerLifecycle } from "../lifecycle.ts";
import type { AppCall } from "../proxy/answer.ts";
import type { ToolMetadata } from "../types.ts";
import { linkToOpen, promptOf, routeToolCall, type ToolRoute } from "./app-routing.ts";
import { appliedCsp, publicCsp } from "./csp.ts";
import { type AppPage, type PageOptions, startAppPage } from "./page-server.ts";
import type { ResolveHost } from "./public-hosts.ts";
import { readView } from "./view-resource.ts";

/** The Apps SDK's host side (AppBridge): at the first view opened. */
const loadAppBridge = once(async () => (await import("@modelcontextprotocol/ext-apps/app-bridge")).AppBridge);

/** What an app's view may ask of the session, each through the route a model's request takes. */
export interface AppHost {
	readonly lifecycle: ServerLifecycle;
	/** The view's `tools/call`, by the route `apps/app-routing.ts` chose. */
	callTool(
		route: ToolRoute & { kind: "as-model" | "app-only" },
		args: Record<string, unknown>,
		signal: AbortSignal,
	): Promise<CallToolResult>;
	/** The view's `resources/read` on its own server. */
	readResource(server: string, uri: string, signal: AbortSignal): Promise<ReadResourceResult>;
	/** The view's `ui/message`: asks the user, then sends it as theirs; or why it was refused before asking. */
	sendPrompt(server: string, text: string): Promise<PromptOutcome>;
	/** The view's `ui/open-link` of an http(s) address: asks the user, then opens it; whether it opened. */
	openLink(server: string, url: string): Promise<boolean>;
	/** Whether the user's config lets the tool be used at all (exposure, includeTools, excludeTools). */
	configured(tool: ToolMetadata): boolean;
}

/** How a page is set up: where its launch file goes, who hears of refused requests, how names are looked up. */
export interface PageSetup extends PageOptions {
	/** Looks up the names the view's policy declares (default: the system's DNS). */
	readonly resolveHost?: ResolveHost;
}

/** What became of a view's message: sent as the user's, declined by the user, or refused unasked (why). */
export type PromptOutcome = "sent" | "declined" | { readonly refused: string };

export class AppSession {
	private initialized = false;
	private ended = false;

	private constructor(
		readonly server: string,
		readonly viewUri: string,
		private readonly page: AppPage,
		private readonly bridge: AppBridge,
		private shown: AppCall,
	) {}

	/** Reads the call's view from its server and serves its page (not opened yet: `url`). */
	static async open(call: AppCall, host: AppHost, setup: PageSetup, signal?: AbortSignal): Promise<AppSession> {
		const { server } = call.tool;
		const read = await readView(host.lifecycle, server, call.tool.ui.resourceUri, signal);
		// The declared names are looked up while the bridge loads: only provably public ones stay.
		const [Bridge, csp] = await Promise.all([
			loadAppBridge(),
			publicCsp(read.csp, { signal, ...(setup.resolveHost ? { resolve: setup.resolveHost } : {}) }),
		]);
		const view = { ...read, csp };
		const bridge = new Bridge(
			null,
			{ name: CLIENT_INFO.name, version: CLIENT_INFO.version },
			{
				serverTools: {},
				serverResources: {},
				openLinks: {},
				message: { text: {} },
				// What the page's policy allows of what the view declared.
				sandbox: { csp: appliedCsp(view.csp), ...(view.permissions ? { permissions: { ...view.permissions } } : {}) },
			},
			{ hostContext: hostContext(call) },
		);
		const page = await startAppPage(view, `${server}: ${call.tool.title ?? call.tool.name}`, setup);
		const session = new AppSession(server, view.uri, page, bridge, call);
		session.answer(host);
		try {
			await bridge.connect(page.transport);
		} catch (error) {
			await page.close("The app could not start.");
			throw error;
		}
		return session;
	}

	/** The page's address (with its token). */
	get url(): string {
		return this.page.url;
	}

	/** The private file the browser is handed (it opens `url` once). */
	get launchFile(): string {
		return this.page.launchFile;
	}

	/** Whether a page is connected to it now (the user has it open), and it has not closed. */
	connected(): boolean {
		return !this.ended && this.page.connected();
	}

	/** Shows a later call of the same view: its input and result. */
	show(call: AppCall): void {
		this.shown = call;
		if (this.initialized) this.sendCall();
	}

	/** Tells the view it goes (briefly waiting for its answer, as the spec asks), then ends the page. */
	async close(reason: string): Promise<void> {
		if (this.ended) return;
		this.ended = true;
		if (this.initialized && this.page.connected())
			await this.bridge.teardownResource({}, { timeout: 1000 }).catch(() => undefined); // a view that does not answer still goes
		await this.page.close(reason);
	}

	private sendCall(): void {
		const { args, result } = this.shown;
		// The bridge sends on the page's stream, which does not fail; a closed page drops them.
		void this.bridge.sendToolInput({ arguments: args });
		void this.bridge.sendToolResult(result as CallToolResult);
	}

	/** The handlers of the view's requests. */
	private answer(host: AppHost): void {
		const { bridge, server } = this;
		// The sandbox page then loads the view from its own address, where it is served with its CSP
		// as a header: the HTML never crosses the host page (the spec's `html` field stays empty).
		bridge.onsandboxready = () => void bridge.sendSandboxResourceReady({ html: "" });
		bridge.oninitialized = () => {
			this.initialized = true;
			this.sendCall();
		};
		bridge.oncalltool = async (params, ctx) => {
			const signal = ctx.mcpReq.signal;
			const connection = await host.lifecycle.ensureConnected(server, signal);
			const route = routeToolCall(server, params.name, connection.tools, (tool) => host.configured(tool));
			if (route.kind === "refused") throw new ProtocolError(ProtocolErrorCode.InvalidParams, route.reason);
			return host.callTool(route, params.arguments ?? {}, signal);
		};
		bridge.onreadresource = (params, ctx) => host.readResource(server, params.uri, ctx.mcpReq.signal);
		bridge.onmessage = async (params) => {
			const prompt = promptOf(params);
			if ("refusal" in prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Not sent: ${prompt.refusal}`);
			const outcome = await host.sendPrompt(server, prompt.text);
			if (typeof outcome === "object")
				throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Not sent: ${outcome.refused}`);
			return outcome === "sent" ? {} : { isError: true };
		};
		bridge.onopenlink = async (params) => {
			const url = linkToOpen(params.url);
			return url && (await host.openLink(server, url)) ? {} : { isError: true };
		};
		// The page fills the browser tab: the one mode there is.
		bridge.onrequestdisplaymode = async () => ({ mode: "fullscreen" });
		bridge.onrequestteardown = () => void this.close("The app closed itself.");
	}
}

/** What the view is told of the host and of the call that opened it. */
function hostContext(call: AppCall) {
	const { name, title, description, inputSchema } = call.tool;
	return {
		displayMode: "fullscreen" as const,
		availableDisplayModes: ["fullscreen" as const],
		platform: "web" as const,
		toolInfo: {
			tool: { name, ...(title ? { title } : {}), description, inputSchema: inputSchema as { type: "object" } },
		},
	};
}
