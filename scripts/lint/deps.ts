// `npm run deps`: writes ARCHITECTURE.md's layer table (from scripts/lint/layer-rule.ts) and its
// dependency table (from the code's imports) between their markers.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { analyse } from "./analysis.ts";
import { DOC, writeBlocks } from "./architecture-doc.ts";
import { ROOT, readSources } from "./source-files.ts";

const path = join(ROOT, DOC);
const before = readFileSync(path, "utf8");
const after = writeBlocks(before, analyse(readSources()).blocks);
if (after === before) console.log(`${DOC}: tables already match the code`);
else {
	writeFileSync(path, after);
	console.log(`${DOC}: layer and dependency tables written`);
}
