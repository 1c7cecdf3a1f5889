// Answering a server's `sampling/createMessage` with the session's current model, only with the
// user's consent: the request is shown (as coming from its server, in pages that fit the screen)
// with Deny (what Enter picks) / Allow once / Always allow this server for the session. Without a UI no one can consent, so it is refused at once.
// The model's reply goes back as text; its token use is shown to the user.
import type { Api, AssistantMessage, Context, Model, UserMessage } from "@mariozechner/pi-ai";
import type { CreateMessageRequest, CreateMessageResult } from "@modelcontextprotocol/client";
import { askPaged } from "./paged-question.ts";
import { loadPiAi } from "./pi-ai.ts";
import type { Dialogs } from "./user-dialogs.ts";
import { plain } from "./user-dialogs.ts";

type SamplingParams = CreateMessageRequest["params"];

/** A completion from the user's model. */
export interface Sampler {
	/** The model's name as the user knows it, for the consent question. */
	readonly modelName: string;
	complete(params: SamplingParams, signal: AbortSignal): Promise<SampledReply>;
}

export interface SampledReply {
	readonly text: string;
	readonly model: string;
	readonly stopReason: "endTurn" | "maxTokens" | "stopSequence";
	readonly inputTokens: number;
	readonly outputTokens: number;
}

/** The JSON-RPC error a client returns when the user (or the lack of one) refuses (spec: -1). */
export class SamplingRefused extends Error {
	readonly code = -1;
}

/** Remembers, for one session, the servers the user always allows. */
export class SamplingConsent {
	private readonly always = new Set<string>();

	/** `noUi` says why no one can be asked, when there are no dialogs. */
	async answer(
		dialogs: Dialogs | undefined,
		sampler: Sampler | undefined,
		server: string,
		params: SamplingParams,
		signal: AbortSignal,
		noUi: string,
	): Promise<CreateMessageResult> {
		if (!dialogs) throw new SamplingRefused(`${noUi} whether "${server}" may use the model, so it was refused.`);
		if (!sampler) throw new SamplingRefused("No model is selected in Pi, so the request cannot be answered.");
		if (!this.always.has(server)) {
			const title = consentTitle(server, sampler.modelName, params);
			// The user consents to what they were shown: a request too long to show is not sent.
			if (title.length > MAX_SHOWN_CHARS) {
				throw new SamplingRefused(
					`The request is too long to show the user (${title.length} characters; at most ${MAX_SHOWN_CHARS}), so it was refused.`,
				);
			}
			const once = "Allow once";
			const always = `Always allow "${server}" in this session`;
			// In pages that fit the screen, "Deny" first: Enter, Esc or a closed dialog never allow.
			const choice = await askPaged(dialogs, { text: title, safe: "Deny", choices: [once, always] }, { signal });
			if (choice === always) this.always.add(server);
			else if (choice !== once) throw new SamplingRefused("The user declined the sampling request.");
		}
		const reply = await sampler.complete(params, signal);
		dialogs.notify(
			`"${server}" used ${sampler.modelName}: ${reply.inputTokens} tokens in, ${reply.outputTokens} out.`,
			"info",
		);
		return {
			role: "assistant",
			content: { type: "text", text: reply.text },
			model: reply.model,
			stopReason: reply.stopReason,
		};
	}
}

/** The most a consent question shows; everything that would be sent must fit. */
const MAX_SHOWN_CHARS = 20_000;

/** Everything that would be sent: the system prompt and every message, whole (without terminal sequences). */
function consentTitle(server: string, model: string, params: SamplingParams): string {
	const lines = [
		`MCP server "${server}" asks to use your model (${model}, at most ${params.maxTokens} tokens). It would send:`,
	];
	if (params.systemPrompt) lines.push(`System: ${plain(params.systemPrompt, Number.POSITIVE_INFINITY)}`);
	for (const message of params.messages)
		lines.push(`${message.role}: ${plain(messageText(message.content), Number.POSITIVE_INFINITY)}`);
	return lines.join("\n");
}

type SamplingContent = SamplingParams["messages"][number]["content"];
type Block = Extract<SamplingContent, { type: string }>;

/** The text of a sampling message (content is one block or, since 2025-11, a list). */
function messageText(content: SamplingContent): string {
	const blocks = (Array.isArray(content) ? content : [content]) as Block[];
	return blocks.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
}

/** What a completion is given besides the model and the messages. */
interface CompleteOptions {
	readonly signal: AbortSignal;
	readonly maxTokens: number;
	readonly temperature?: number;
}

/** What a sampler needs of Pi's context: the current model and how to reach it. */
export interface ModelHost {
	readonly model?: Model<Api>;
	readonly modelRegistry: {
		getApiKeyAndHeaders(
			model: Model<Api>,
		): Promise<{ ok: true; apiKey?: string; headers?: Record<string, string> } | { ok: false; error: string }>;
		/** Pi 1.x: a completion through the session's providers (extensions' too) with their sign-in. */
		complete?(model: Model<Api>, context: Context, options: CompleteOptions): Promise<AssistantMessage>;
	};
}

/** The model's reply: through Pi 1.x's registry, else (pi 0.73) pi-ai's `complete` with the registry's credentials. */
async function completeWith(host: ModelHost, model: Model<Api>, context: Context, options: CompleteOptions) {
	const registry = host.modelRegistry;
	if (typeof registry.complete === "function") return registry.complete(model, context, options);
	const auth = await registry.getApiKeyAndHeaders(model);
	if (!auth.ok) throw new Error(`The model ${model.id} cannot be used: ${auth.error}`);
	const { complete } = await loadPiAi();
	return complete(model, context, { ...options, apiKey: auth.apiKey, headers: auth.headers });
}

/** A sampler on the session's current model. */
export function piSampler(host: ModelHost): Sampler | undefined {
	const model = host.model;
	if (!model) return undefined;
	return {
		modelName: model.name || model.id,
		async complete(params, signal) {
			const context: Context = {
				systemPrompt: params.systemPrompt,
				messages: params.messages.map((m) => toPiMessage(m, model)),
			};
			const reply: AssistantMessage = await completeWith(host, model, context, {
				signal,
				maxTokens: params.maxTokens,
				temperature: params.temperature,
			});
			if (reply.stopReason === "error" || reply.stopReason === "aborted")
				throw new Error(`The model failed: ${reply.errorMessage ?? reply.stopReason}`);
			const text = reply.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
			return {
				text,
				model: reply.model,
				stopReason: reply.stopReason === "length" ? "maxTokens" : "endTurn",
				inputTokens: reply.usage.input,
				outputTokens: reply.usage.output,
			};
		},
	};
}

/** A sampling message as pi-ai's: text and images; anything else as a short note. */
function toPiMessage(message: SamplingParams["messages"][number], model: Model<Api>): Context["messages"][number] {
	const blocks = (Array.isArray(message.content) ? message.content : [message.content]) as Block[];
	if (message.role === "user") {
		const content: UserMessage["content"] = blocks.map((b) =>
			b.type === "image"
				? { type: "image", data: b.data, mimeType: b.mimeType }
				: { type: "text", text: b.type === "text" ? b.text : `[${b.type}]` },
		);
		return { role: "user", content, timestamp: Date.now() };
	}
	return {
		role: "assistant",
		content: [{ type: "text", text: messageText(message.content) }],
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: "stop",
		timestamp: Date.now(),
	};
}
