// What loads the per-user broker's client (broker/client.ts): with the first connect of a server it
// shares, and for /mcp's broker line.
import { once } from "../bounds/waits.ts";

export const loadBroker = once(() => import("./client.ts"));
