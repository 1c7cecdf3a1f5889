// What loads the search engine (BM25, stemmer, WordNet: search/engine.ts) at the first search or
// index update, never with Pi.
import { once } from "../bounds/waits.ts";

export const loadSearch = once(() => import("./engine.ts"));
