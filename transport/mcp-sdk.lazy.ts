// What loads SDK v2's client side and the lenient list schemas (transport/mcp-sdk.ts) at the first
// connect, and its type: a session with a warm cache may never connect. What loads with Pi imports
// this, never mcp-sdk.ts.
import { once } from "../bounds/waits.ts";

export type McpSdk = typeof import("./mcp-sdk.ts");
export const loadSdk: () => Promise<McpSdk> = once(() => import("./mcp-sdk.ts"));
