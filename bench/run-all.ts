// `npm run bench`: every benchmark, one after another, each printing its measured ratios.

import { main as coldStart } from "./cold-start.ts";
import { main as packageSize } from "./package-size.ts";
import { main as piToolSearch } from "./pi-tool-search.ts";
import { main as pi15Context } from "./pi15-context.ts";
import { main as redaction } from "./redaction.ts";
import { main as searchQuality } from "./search-quality.ts";
import { main as session } from "./session.ts";
import { main as sharedServers } from "./shared-servers.ts";
import { main as startup } from "./startup.ts";
import { main as stdioThroughput } from "./stdio-throughput.ts";
import { main as tokenCost } from "./token-cost.ts";
import { main as warmCalls } from "./warm-calls.ts";

await tokenCost();
console.log();
await packageSize();
console.log();
await pi15Context();
console.log();
await searchQuality();
console.log();
await piToolSearch();
console.log();
await startup();
console.log();
await session();
console.log();
await coldStart();
console.log();
await warmCalls();
console.log();
await stdioThroughput();
console.log();
await sharedServers();
console.log();
await redaction();
