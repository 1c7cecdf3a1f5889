// A scripted OpenAI-style chat-completions server on 127.0.0.1 for driving the real `pi` CLI.
// It streams (Pi always streams) one scripted step per request and records every request body,
// which is exactly what the model would have been sent.
import { createServer, type Server } from "node:http";

export interface ChatRequest {
	readonly messages: { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }[];
	readonly tools?: { type: string; function: { name: string; description: string; parameters: unknown } }[];
	readonly [key: string]: unknown;
}

export type StepReply =
	| {
			toolCall: { name: string; arguments: unknown };
			/** Streams the arguments' first `after` characters, then the rest once `until` resolves (a model mid-call). */
			hold?: { after: number; until: () => Promise<void> };
	  }
	| { text: string }
	| { httpStatus: number };

/** One model turn; a step may wait for an event first (a server catalogued, a file written). */
export type Step = (request: ChatRequest) => StepReply | Promise<StepReply>;

export interface MockModel {
	readonly port: number;
	readonly requests: ChatRequest[];
	/** Replaces the script and forgets earlier requests (for the next run against the same model). */
	script(steps: Step[]): void;
	/** models.json content pointing Pi at this server. */
	modelsJson(): string;
	close(): Promise<void>;
}

export async function startMockModel(initial: Step[]): Promise<MockModel> {
	const requests: ChatRequest[] = [];
	let steps = initial;
	const server: Server = createServer((req, res) => {
		// One connection per request: a kept-alive one the server drops after 5 idle seconds (a slow
		// tool call on a loaded machine) races Pi's next request on it ("other side closed").
		res.setHeader("connection", "close");
		let body = "";
		req.on("data", (c) => {
			body += c;
		});
		req.on("end", async () => {
			const request = JSON.parse(body || "{}") as ChatRequest;
			requests.push(request);
			const step = steps[requests.length - 1] ?? (() => ({ text: "(script ended)" }));
			const out = await step(request);
			if ("httpStatus" in out) {
				res
					.writeHead(out.httpStatus, { "content-type": "application/json" })
					.end(JSON.stringify({ error: { message: "scripted failure" } }));
				return;
			}
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
			const chunk = (delta: unknown, finish: string | null) =>
				`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
			if ("toolCall" in out) {
				const args =
					typeof out.toolCall.arguments === "string" ? out.toolCall.arguments : JSON.stringify(out.toolCall.arguments);
				res.write(
					chunk(
						{
							role: "assistant",
							tool_calls: [
								{
									index: 0,
									id: `call_${requests.length}`,
									type: "function",
									function: { name: out.toolCall.name, arguments: out.hold ? args.slice(0, out.hold.after) : args },
								},
							],
						},
						null,
					),
				);
				if (out.hold) {
					await out.hold.until();
					const rest = { index: 0, function: { arguments: args.slice(out.hold.after) } };
					res.write(chunk({ tool_calls: [rest] }, null));
				}
				res.write(chunk({}, "tool_calls"));
			} else {
				res.write(chunk({ role: "assistant", content: out.text }, null));
				res.write(chunk({}, "stop"));
			}
			res.end("data: [DONE]\n\n");
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const port = (server.address() as { port: number }).port;
	return {
		port,
		requests,
		script(next) {
			steps = next;
			requests.length = 0;
		},
		modelsJson: () =>
			JSON.stringify({
				providers: {
					mock: {
						baseUrl: `http://127.0.0.1:${port}/v1`,
						api: "openai-completions",
						apiKey: "k",
						compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
						models: [{ id: "m", name: "m", contextWindow: 128000, maxTokens: 4096 }],
					},
				},
			}),
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

/** The text of the last tool message in a request. */
export function lastToolMessage(request: ChatRequest): string {
	const tool = [...request.messages].reverse().find((m) => m.role === "tool");
	if (!tool) return "";
	return typeof tool.content === "string" ? tool.content : JSON.stringify(tool.content);
}
