// What loads a task-only tool's call routes at their first use: the 2025 task API
// (transport/tool-tasks.ts) and the 2026 tasks extension (transport/tool-tasks-2026.ts).
import { once } from "../bounds/waits.ts";

/** The 2025 task API's calls: at the first task-only tool. */
export const loadTasks = once(() => import("./tool-tasks.ts"));
/** The 2026 tasks extension's calls: at the first call to a server that offers it. */
export const loadExtensionTasks = once(() => import("./tool-tasks-2026.ts"));
