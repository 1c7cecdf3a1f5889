// A task-only tool call given up (Esc) while the server is still answering the call that creates
// its task: the task is cancelled on the server once its id arrives, not left running to its TTL.
import { describe, expect, it, vi } from "vitest";
import type { McpSdk } from "../../transport/open-connection.ts";
import { callToolAsTask } from "../../transport/tool-tasks.ts";

describe("callToolAsTask", () => {
	it("cancels a task whose creation was still answering when the call was given up", async () => {
		let answerCreate: (value: unknown) => void = () => undefined;
		const cancelled: string[] = [];
		const client = {
			// Like the SDK: a request given an abort signal rejects when it aborts.
			request: (
				request: { method: string; params: { taskId?: string } },
				_schema: unknown,
				options?: { signal?: AbortSignal },
			) => {
				if (request.method === "tasks/cancel") {
					cancelled.push(request.params.taskId ?? "");
					return Promise.resolve({});
				}
				return new Promise((resolve, reject) => {
					answerCreate = resolve;
					options?.signal?.addEventListener("abort", () => reject(options.signal?.reason));
				});
			},
		};
		const sdk = { CreateTaskResultSchema: {}, CallToolResultSchema: {}, GetTaskResultSchema: {} } as unknown as McpSdk;
		const controller = new AbortController();
		const call = callToolAsTask(
			sdk,
			client as never,
			{ name: "research", arguments: {} },
			{
				signal: controller.signal,
				timeout: 60_000,
				maxTotalTimeout: 60_000,
			},
		);
		controller.abort(new Error("the user pressed Esc"));
		await expect(call).rejects.toThrow("the user pressed Esc");
		// The server's answer comes after the user gave up: the task it names is cancelled.
		answerCreate({ task: { taskId: "t-1", status: "working" } });
		await vi.waitFor(() => expect(cancelled).toEqual(["t-1"]));
	});
});
