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
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from "@modelcontextprotocol/core";
import * as z from "zod/v4";

export {
	CallToolResultSchema,
	Client,
	CreateTaskResultSchema,
	deserializeMessage,
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
