// The search engine as it was when issue 14 was filed (commit 5481084), taken from git into a
// scratch folder, so that the bench measures the current engine and that one side by side in one
// run. Without git history (a package install) the side-by-side is skipped.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolCatalog } from "../catalog/tool-catalog.ts";
import type { SearchHit, SearchOptions } from "../search/engine.ts";

const BASELINE_COMMIT = "5481084";
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

export type SearchFn = (catalog: ToolCatalog, query: string, options?: SearchOptions) => SearchHit[];

export async function loadBaselineEngine(): Promise<SearchFn | undefined> {
	const dir = join(ROOT, "bench", ".baseline");
	try {
		mkdirSync(dir, { recursive: true });
		for (const file of ["tool-search.ts", "search-lexicon.ts"]) {
			const source = execFileSync("git", ["show", `${BASELINE_COMMIT}:${file}`], {
				cwd: ROOT,
				encoding: "utf8",
				stdio: ["ignore", "pipe", "ignore"],
			});
			// Its own two files side by side; the modules it shares with today's code where they live now.
			const moved: Record<string, string> = { errors: "errors", "tool-catalog": "catalog/tool-catalog" };
			writeFileSync(
				join(dir, file),
				source.replace(/from "\.\/(errors|tool-catalog)\.ts"/g, (_, name: string) => `from "../../${moved[name]}.ts"`),
			);
		}
	} catch {
		return undefined;
	}
	const engine = (await import(join(dir, "tool-search.ts"))) as { searchCatalog: SearchFn };
	return engine.searchCatalog;
}
