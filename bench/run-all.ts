// `npm run bench`: every benchmark, one after another, each printing its measured ratios.
import { main as tokenCost } from "./token-cost.ts";

await tokenCost();
