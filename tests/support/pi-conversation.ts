// Talking to the real Pi the way a user and a model would, for tests that drive it in rpc or print
// mode: a scripted model that turns `call {...}` into that `mcp` call and answers tool results,
// and a conversation that answers Pi's dialogs as they come.
import { type ChatRequest, lastToolMessage, type Step } from "./mock-openai.ts";
import type { PiRpc, RpcEvent } from "./pi-cli-harness.ts";

export const SAMPLING_SYSTEM = "You are a helpful test server."; // what server-everything's trigger-sampling-request sends

/**
 * The scripted model: a user message `call {...}` becomes that `mcp` call, a tool result is
 * answered `tool said: ...`, and a sampling request (server-everything's system prompt) gets a reply.
 */
const router: Step = (request: ChatRequest) => {
	const system = request.messages.find((m) => m.role === "system");
	if (JSON.stringify(system?.content ?? "").includes(SAMPLING_SYSTEM))
		return { text: "a sampled reply from the session model" };
	const last = request.messages[request.messages.length - 1];
	if (last.role === "tool") return { text: `tool said: ${lastToolMessage(request)}` };
	const text =
		typeof last.content === "string"
			? last.content
			: (last.content as { text?: string }[]).map((c) => c.text ?? "").join("");
	const call = /call (\{.*\})/s.exec(text);
	if (call) return { toolCall: { name: "mcp", arguments: JSON.parse(call[1]) } };
	return { text: `user said: ${text}` };
};
export const steps = Array.from({ length: 200 }, () => router);

export type Answer = { value: string } | { confirmed: boolean } | { cancelled: true };

/**
 * Sends a prompt and answers Pi's dialogs (select/input/confirm) as they come until the agent ends;
 * returns the dialogs asked and the events of the run.
 */
export async function converse(
	pi: PiRpc,
	message: string,
	answer: (dialog: RpcEvent) => Answer,
	/** The longest wait for each next event (by default the test's own timeout bounds it: a loaded machine is slow, not wrong). */
	eventWaitMs = Number.POSITIVE_INFINITY,
): Promise<{ dialogs: RpcEvent[]; events: RpcEvent[] }> {
	const from = pi.events.length;
	const dialogs: RpcEvent[] = [];
	pi.send({ id: `p${from}`, type: "prompt", message });
	let seen = from;
	for (;;) {
		const event = await pi.waitFor(
			(e) =>
				e.type === "agent_end" ||
				(e.type === "extension_ui_request" && ["select", "input", "confirm"].includes(String(e.method))),
			seen,
			eventWaitMs,
		);
		seen = pi.events.indexOf(event) + 1;
		if (event.type === "agent_end") return { dialogs, events: pi.events.slice(from) };
		dialogs.push(event);
		pi.send({ type: "extension_ui_response", id: event.id, ...answer(event) });
	}
}

export const toolResults = (events: RpcEvent[]) =>
	events
		.filter((e) => e.type === "tool_execution_end")
		.map((e) => JSON.stringify((e.result as { content?: unknown } | undefined)?.content ?? e.result))
		.join("\n");
