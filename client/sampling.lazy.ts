// What loads a server's sampling requests' answers (client/sampling.ts) at the first one.
import { once } from "../bounds/waits.ts";

export const loadSampling = once(() => import("./sampling.ts"));
