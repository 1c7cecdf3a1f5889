// What loads the `mcp` tool's modes and the call path (Pi's tools, direct tools, resource reads:
// proxy/proxy-tool.ts) at the first request: Pi's start registers tools, it calls none.
import { once } from "../bounds/waits.ts";

export const loadCallPath = once(() => import("./proxy-tool.ts"));
