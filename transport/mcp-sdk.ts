// Everything the server manager needs from the MCP SDK (and zod, the SDK's schema library),
// in one module that is imported on the first connect, not when Pi loads the extension:
// together they cost ~150 ms of startup that a session with a warm cache never needs.

import {
	Client,
	deserializeMessage,
	extractWWWAuthenticateParams,
	SdkErrorCode,
	SSEClientTransport,
	StreamableHTTPClientTransport,
	UriTemplate,
} from "@modelcontextprotocol/client";
import {
	CallToolResultSchema,
	CreateMessageRequestParamsSchema,
	CreateTaskResultSchema,
	ElicitRequestParamsSchema,
	GetTaskResultSchema,
} from "@modelcontextprotocol/core";
import * as z from "zod/v4";

export {
	CallToolResultSchema,
	Client,
	CreateMessageRequestParamsSchema,
	CreateTaskResultSchema,
	deserializeMessage,
	ElicitRequestParamsSchema,
	extractWWWAuthenticateParams,
	GetTaskResultSchema,
	SdkErrorCode,
	SSEClientTransport,
	StreamableHTTPClientTransport,
	UriTemplate,
};

/**
 * Tools are listed with a lenient schema: some real servers send an `inputSchema` without
 * `"type": "object"`, which the SDK's strict `listTools()` rejects for the whole list.
 */
export const LenientToolsPage = z.looseObject({
	tools: z.array(
		z.looseObject({
			name: z.string(),
			title: z.string().optional(),
			description: z.string().optional(),
			inputSchema: z.unknown().optional(),
			outputSchema: z.unknown().optional(),
			annotations: z.unknown().optional(),
			execution: z.unknown().optional(),
			_meta: z.unknown().optional(),
		}),
	),
	nextCursor: z.string().optional(),
});
export type ToolsPage = z.infer<typeof LenientToolsPage>;

export const LenientResourcesPage = z.looseObject({
	resources: z.array(
		z.looseObject({
			uri: z.string(),
			name: z.string().optional(),
			description: z.string().optional(),
			mimeType: z.string().optional(),
		}),
	),
	nextCursor: z.string().optional(),
});
export type ResourcesPage = z.infer<typeof LenientResourcesPage>;

const describedItem = {
	name: z.string().optional(),
	title: z.string().optional(),
	description: z.string().optional(),
	mimeType: z.string().optional(),
};

export const LenientTemplatesPage = z.looseObject({
	resourceTemplates: z.array(z.looseObject({ uriTemplate: z.string(), ...describedItem })),
	nextCursor: z.string().optional(),
});
export type TemplatesPage = z.infer<typeof LenientTemplatesPage>;

export const LenientPromptsPage = z.looseObject({
	prompts: z.array(
		z.looseObject({
			name: z.string(),
			title: z.string().optional(),
			description: z.string().optional(),
			arguments: z
				.array(
					z.looseObject({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() }),
				)
				.optional(),
		}),
	),
	nextCursor: z.string().optional(),
});
export type PromptsPage = z.infer<typeof LenientPromptsPage>;

/**
 * A task of the 2026-07-28 tasks extension (SEP-2663), as tasks/get answers and as a call's task
 * answer: status-specific fields inlined (the result once completed, the JSON-RPC error once
 * failed, what it asks while input_required). Neither the SDK nor its core package has it.
 */
export const ExtensionTaskSchema = z.looseObject({
	taskId: z.string(),
	status: z.enum(["working", "input_required", "completed", "failed", "cancelled"]),
	statusMessage: z.string().optional(),
	pollIntervalMs: z.number().optional(),
	result: z.record(z.string(), z.unknown()).optional(),
	error: z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
	inputRequests: z.record(z.string(), z.looseObject({ method: z.string(), params: z.unknown().optional() })).optional(),
});
export type ExtensionTask = z.infer<typeof ExtensionTaskSchema>;

/** tasks/update's and tasks/cancel's empty acknowledgement on the 2026-07-28 wire. */
export const TaskAckSchema = z.looseObject({});
