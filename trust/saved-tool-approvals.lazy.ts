// What loads the saved answers of `approveTools` (trust/saved-tool-approvals.ts) at the first call it names.
import { once } from "../bounds/waits.ts";

export const loadSavedToolApprovals = once(() => import("./saved-tool-approvals.ts"));
