// What loads `approveTools` (client/tool-approval.ts) at the first call it names.
import { once } from "../bounds/waits.ts";

export const loadToolApproval = once(() => import("./tool-approval.ts"));
