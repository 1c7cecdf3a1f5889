// The requests to a server (a tool call, a resource read, a prompt, a completion): the proxy, the
// prompt commands and the CLI make them here, never on the pool itself. Every answer and progress
// message leaves here with the known secrets masked, in every string: what the model, content for
// the user only, Pi's `details` and session file, codemode scripts, the output guard's files and the
// CLI get is cut from it. URLs in answers are data, left whole. A tool that 2.36's `approveTools`
// names is asked about first.

import type { ToolCatalog } from "../catalog/tool-catalog.ts";
import { needsApproval } from "../catalog/tool-patterns.ts";
import type { ApprovalRefusal } from "../client/tool-approval.ts";
import type { Pool, PooledConnection } from "../server-manager.ts";
import { scrubStrings } from "../trust/redaction.ts";
import type { McpConfig, ServerEntry, ToolMetadata } from "../types.ts";

export type AskApproval = (
	entry: ServerEntry,
	tool: ToolMetadata,
	args: Record<string, unknown>,
	signal?: AbortSignal,
) => Promise<ApprovalRefusal | undefined>;

export interface MaskedRequestsOptions<C extends PooledConnection> {
	readonly pool: Pool<C>;
	readonly catalog: ToolCatalog;
	/** The session's current config (its servers' `approveTools`, the settings'). */
	readonly config: () => McpConfig;
	/** Asks the user about a tool `approveTools` names (client/tool-approval.ts); without it, such tools are refused. */
	readonly askApproval?: AskApproval;
	/** A request (a tool call, a resource read, a prompt) goes to this server: what the session used. */
	readonly onRequest?: (server: string) => void;
	/** A resource was read (at the URI the server listed): the session may follow it from now on. */
	readonly onRead?: (connection: C, uri: string) => void;
}

export class MaskedRequests<C extends PooledConnection> {
	constructor(private readonly options: MaskedRequestsOptions<C>) {}

	/**
	 * Whether a tool (or resource tool) may run now: asks the user when its server's `approveTools`
	 * names it; a refusal otherwise. Every route to a tool asks here, through proxy/calls.ts.
	 */
	async approveCall(
		tool: ToolMetadata,
		args: Record<string, unknown>,
		signal?: AbortSignal,
	): Promise<ApprovalRefusal | undefined> {
		const config = this.options.config();
		const entry = config.servers.get(tool.server);
		if (!entry || !needsApproval(entry, config.settings, tool, this.options.catalog.forServer(tool.server)))
			return undefined;
		const ask = this.options.askApproval;
		if (ask) return ask(entry, tool, args, signal);
		return {
			error: "approval_required",
			message: `${tool.name} on "${tool.server}" needs the user's approval ("approveTools"), and no one can be asked here.`,
		};
	}

	async callTool(...[server, tool, args, options = {}]: Parameters<Pool["callTool"]>) {
		this.options.onRequest?.(server);
		const heard = options.onProgress;
		const onProgress: typeof heard = heard && ((p) => heard(p.message ? { ...p, message: this.mask(p.message) } : p));
		return this.masked(await this.options.pool.callTool(server, tool, args, { ...options, onProgress }));
	}

	async readResource(...[server, uri, options]: Parameters<Pool["readResource"]>) {
		this.options.onRequest?.(server);
		const listed = this.listedUri(server, uri);
		const result = this.masked(await this.options.pool.readResource(server, listed, options));
		const connection = this.options.pool.get(server);
		if (connection) this.options.onRead?.(connection, listed);
		return result;
	}

	async getPrompt(...args: Parameters<Pool["getPrompt"]>) {
		this.options.onRequest?.(args[0]);
		return this.masked(await this.options.pool.getPrompt(...args));
	}

	async complete(...args: Parameters<Pool["complete"]>) {
		return this.masked(await this.options.pool.complete(...args));
	}

	/**
	 * The URI the server listed for one the catalog holds: the catalog keeps URIs with known secrets
	 * masked (it is on disk and shown to the model), and a read of such a URI must send the server
	 * its own, token and all. Any other URI is sent as given.
	 */
	private listedUri(server: string, uri: string): string {
		const listed = this.options.pool.get(server)?.resources ?? [];
		if (listed.some((r) => r.uri === uri)) return uri;
		return listed.find((r) => this.mask(r.uri) === uri)?.uri ?? uri;
	}

	private readonly mask = (text: string) => this.options.pool.redactor.scrubSecrets(text);

	private masked<T>(answer: T): T {
		return scrubStrings(answer, this.mask);
	}
}
