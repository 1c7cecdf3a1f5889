// What loads the browser sign-in and sign-out (oauth/sign-in.ts) at /mcp-auth.
import { once } from "../bounds/waits.ts";

export const loadSignIn = once(() => import("./sign-in.ts"));
