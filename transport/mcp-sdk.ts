// Everything the server manager needs from the MCP SDK (and zod, the SDK's schema library),
// in one module that is imported on the first connect, not when Pi loads the extension:
// together they cost ~150 ms of startup that a session with a warm cache never needs.

import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { isTerminal } from "@modelcontextprotocol/sdk/experimental/tasks";
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import {
	CallToolResultSchema,
	CompleteResultSchema,
	CreateMessageRequestSchema,
	CreateTaskResultSchema,
	ElicitRequestSchema,
	GetPromptResultSchema,
	ListRootsRequestSchema,
	LoggingMessageNotificationSchema,
	PromptListChangedNotificationSchema,
	ReadResourceResultSchema,
	ResourceListChangedNotificationSchema,
	ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";

export {
	CallToolResultSchema,
	Client,
	ClientCredentialsProvider,
	CompleteResultSchema,
	CreateMessageRequestSchema,
	CreateTaskResultSchema,
	deserializeMessage,
	ElicitRequestSchema,
	extractWWWAuthenticateParams,
	GetPromptResultSchema,
	isTerminal,
	ListRootsRequestSchema,
	LoggingMessageNotificationSchema,
	PrivateKeyJwtProvider,
	PromptListChangedNotificationSchema,
	ReadResourceResultSchema,
	ResourceListChangedNotificationSchema,
	SSEClientTransport,
	StreamableHTTPClientTransport,
	ToolListChangedNotificationSchema,
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
