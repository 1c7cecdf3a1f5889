// What loads opening connections (our transports, cross-spawn, then the SDK:
// transport/open-connection.ts) at the first connect: a session with a warm cache may never connect.
import { once } from "../bounds/waits.ts";

export const loadConnections = once(() => import("./open-connection.ts"));
