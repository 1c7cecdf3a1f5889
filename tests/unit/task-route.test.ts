// Which way a tool call goes: plainly, through the 2025 task API, or through the 2026-07-28 tasks
// extension (SEP-2663), whose tools no longer list their task support, so that a server offering
// the extension may answer any call with a task.
import { describe, expect, it } from "vitest";
import { advertisesTasks, TASKS_EXTENSION, taskRoute } from "../../transport/task-route.ts";

describe("taskRoute", () => {
	it("on the 2026 wire, takes every call to a server offering the tasks extension through it", () => {
		expect(taskRoute({ era: "modern", serverTasks: true })).toBe("tasks-extension");
		expect(taskRoute({ era: "modern", serverTasks: true, taskSupport: "optional" })).toBe("tasks-extension");
		expect(taskRoute({ era: "modern", serverTasks: false })).toBe("plain");
		// A tool an older listing (2025) said needs tasks still declares the extension.
		expect(taskRoute({ era: "modern", serverTasks: false, taskSupport: "required" })).toBe("tasks-extension");
	});

	it("on the 2025 wire, takes only a task-required tool through the task API", () => {
		expect(taskRoute({ era: "legacy", serverTasks: false, taskSupport: "required" })).toBe("task-api");
		expect(taskRoute({ era: "legacy", serverTasks: false, taskSupport: "optional" })).toBe("plain");
		expect(taskRoute({ era: "legacy", serverTasks: true })).toBe("plain");
		expect(taskRoute({ era: undefined, serverTasks: false, taskSupport: "required" })).toBe("task-api");
	});

	it("reads the extension from the server's capabilities", () => {
		expect(advertisesTasks({ extensions: { [TASKS_EXTENSION]: {} } })).toBe(true);
		expect(advertisesTasks({ extensions: { "io.modelcontextprotocol/skills": {} } })).toBe(false);
		expect(advertisesTasks({})).toBe(false);
		expect(advertisesTasks(undefined)).toBe(false);
	});
});
