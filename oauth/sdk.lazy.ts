// What loads the SDK's OAuth parts at their first use: a session whose servers need no sign-in
// never loads them.
import { once } from "../bounds/waits.ts";

/** The SDK's OAuth and DPoP functions (the package itself, not transport/mcp-sdk.ts): at a sign-in or a refresh. */
export const loadClientSdk = once(() => import("@modelcontextprotocol/client"));
/** The SDK's metadata schemas: at the first discovery of an authorization server. */
export const loadCoreSdk = once(() => import("@modelcontextprotocol/core"));
