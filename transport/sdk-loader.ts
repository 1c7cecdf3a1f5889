// The MCP SDK is imported on the first connect, keeping it out of Pi's startup (see mcp-sdk.ts).
import { once } from "../bounds/waits.ts";

export type McpSdk = typeof import("./mcp-sdk.ts");
export const loadSdk: () => Promise<McpSdk> = once(() => import("./mcp-sdk.ts"));
