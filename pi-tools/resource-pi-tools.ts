// Pi 1.5's resource tools, under the names its built-in MCP (and Codex, opencode) uses:
// `list_mcp_resources`, `list_mcp_resource_templates` and `read_mcp_resource`, taking a `server`.
// Listings come from the metadata cache (no server starts to list); a read connects the server.
// Registered with the widest exposure among the servers with resources, as Pi 1.5 does:
// `direct` if one is direct, else `deferred` (codemode and tool_search reach them), else hidden.

import type { McpRuntime } from "../mcp-runtime.ts";
import { loadCallPath } from "../proxy/proxy-tool.lazy.ts";
import type { Pi15ToolApi } from "./pi-tools.ts";

export const LIST_RESOURCES_TOOL = "list_mcp_resources";
export const LIST_TEMPLATES_TOOL = "list_mcp_resource_templates";
export const READ_RESOURCE_TOOL = "read_mcp_resource";

const SERVER = { type: "string", description: "MCP server name. Omit to list every server with resources." };
const LIST_PARAMETERS = { type: "object", properties: { server: SERVER }, additionalProperties: false };
/** Scripts get the JSON payloads (a tool with an output schema resolves to its structuredContent). */
const listOutput = (key: string) => ({
	type: "object",
	properties: { server: { type: "string" }, [key]: { type: "array", items: { type: "object" } } },
	required: [key],
});
const READ_OUTPUT = {
	type: "object",
	properties: {
		server: { type: "string" },
		uri: { type: "string" },
		contents: { type: "array", items: { type: "object" } },
	},
	required: ["server", "uri", "contents"],
};
const READ_PARAMETERS = {
	type: "object",
	properties: {
		server: {
			type: "string",
			description: "MCP server name exactly as configured (the 'server' of list_mcp_resources).",
		},
		uri: { type: "string", description: "Resource URI to read: one of the URIs list_mcp_resources returns." },
	},
	required: ["server", "uri"],
	additionalProperties: false,
};

export type ResourceExposure = "direct" | "deferred" | "hidden";

/** Registers (again, when the exposure they need changed) the three resource tools for this session's servers. */
export class ResourcePiTools {
	private exposure?: ResourceExposure;

	constructor(
		private readonly pi: Pi15ToolApi,
		/** The session's runtime, built first if it is not yet (a start from a snapshot builds it at first use). */
		private readonly runtime: () => Promise<McpRuntime>,
	) {}

	sync(active: McpRuntime): void {
		const servers = this.servers(active);
		const exposures = new Set(servers.map((name) => active.config.servers.get(name)?.exposure?.server ?? "codemode"));
		const exposure: ResourceExposure = exposures.has("direct") ? "direct" : servers.length > 0 ? "deferred" : "hidden";
		if (exposure === this.exposure || (this.exposure === undefined && exposure === "hidden")) return;
		this.register(exposure);
	}

	/** Their names, once registered. */
	names(): string[] {
		return this.exposure === undefined ? [] : [LIST_RESOURCES_TOOL, LIST_TEMPLATES_TOOL, READ_RESOURCE_TOOL];
	}

	/** The exposure they are registered with (undefined: not registered), for a start-up snapshot. */
	state(): ResourceExposure | undefined {
		return this.exposure;
	}

	/** Registers them as a start-up snapshot kept them. */
	restore(exposure: ResourceExposure | undefined): void {
		if (exposure !== undefined) this.register(exposure);
	}

	private register(exposure: ResourceExposure): void {
		this.exposure = exposure;
		const common = { exposure, annotations: { readOnlyHint: true } };
		this.pi.registerTool({
			...common,
			name: LIST_RESOURCES_TOOL,
			label: "MCP resources",
			description: "List the resources of MCP servers (all of them, or one server). Read one with read_mcp_resource.",
			parameters: LIST_PARAMETERS,
			outputSchema: listOutput("resources"),
			execute: async (_id: string, params: { server?: string }) => this.list(params.server, "resources"),
		});
		this.pi.registerTool({
			...common,
			name: LIST_TEMPLATES_TOOL,
			label: "MCP resource templates",
			description: "List the resource templates (RFC 6570 URI templates) of MCP servers (all of them, or one server).",
			parameters: LIST_PARAMETERS,
			outputSchema: listOutput("resourceTemplates"),
			execute: async (_id: string, params: { server?: string }) => this.list(params.server, "resourceTemplates"),
		});
		this.pi.registerTool({
			...common,
			name: READ_RESOURCE_TOOL,
			label: "MCP resource",
			description: "Read one resource of an MCP server by its URI.",
			parameters: READ_PARAMETERS,
			outputSchema: READ_OUTPUT,
			execute: async (_id: string, params: { server: string; uri: string }, signal?: AbortSignal) =>
				this.read(params.server, params.uri, signal),
		});
	}

	/** Servers that may run, are not hidden and list resources or templates (from the cache). */
	private servers(active: McpRuntime): string[] {
		const { lifecycle } = active;
		return lifecycle.serverNames().filter((name) => {
			const meta = lifecycle.catalog.metadata(name);
			const hidden = active.config.servers.get(name)?.exposure?.server === "hidden";
			return (
				!hidden && !lifecycle.blocked(name) && meta && (meta.resources.length > 0 || (meta.templates?.length ?? 0) > 0)
			);
		});
	}

	private async list(server: string | undefined, kind: "resources" | "resourceTemplates") {
		const active = await this.runtime();
		const names = this.servers(active);
		if (server !== undefined && !names.includes(server)) {
			throw new Error(
				`No MCP server "${server}" with resources. Servers with resources: ${names.join(", ") || "none"}.`,
			);
		}
		const items = (server === undefined ? names : [server]).flatMap((name): Record<string, unknown>[] => {
			const meta = active.lifecycle.catalog.metadata(name);
			return kind === "resources"
				? (meta?.resources ?? []).map((r) => ({ server: name, ...r }))
				: (meta?.templates ?? []).map(({ variables: _variables, ...t }) => ({ server: name, ...t }));
		});
		const payload = { ...(server === undefined ? {} : { server }), [kind]: items };
		return {
			content: [{ type: "text", text: JSON.stringify(payload) }],
			details: { server },
			structuredContent: payload,
		};
	}

	/**
	 * The read tool's name, registered first when no listing has made it callable (no server with
	 * resources known yet, or none left): `mcp` reads a resource through it, so that hooks and
	 * `--tools` see `read_mcp_resource` on every route to a resource.
	 */
	reader(active: McpRuntime): string {
		this.sync(active);
		if (this.exposure === undefined || this.exposure === "hidden") this.register("deferred");
		return READ_RESOURCE_TOOL;
	}

	/** A read as `mcp` answers one (the same content for the model), with the contents for scripts. */
	private async read(server: string, uri: string, signal?: AbortSignal) {
		const { lifecycle, output } = await this.runtime();
		const { contentText, readResource } = await loadCallPath();
		const details = { server, uri };
		const read = { server, uri, label: `${server}-resource`, details };
		const { answer, contents } = await readResource(lifecycle, read, { signal, output });
		if (answer.isError || !contents) throw new Error(lifecycle.redactor.scrub(contentText(answer.content)));
		return { content: answer.content, details, structuredContent: { server, uri, contents } };
	}
}
