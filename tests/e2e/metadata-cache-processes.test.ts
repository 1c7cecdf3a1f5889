// Two real processes writing the metadata cache at the same moment lose neither's servers.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CACHE_FILE } from "../../metadata-cache.ts";
import { ROOT, TSX, tempDir } from "../support/helpers.ts";

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
	dir = tempDir();
});
afterEach(() => dir.remove());

describe("MetadataCache across processes", () => {
	it("two processes writing at the same moment lose neither's servers", async () => {
		const startAt = String(Date.now() + 2000); // both processes are up by then: their writes overlap
		const run = (prefix: string) =>
			new Promise<number | null>((resolve) => {
				const child = spawn(
					process.execPath,
					[TSX, join(ROOT, "tests/fixtures/cache-writer.ts"), dir.path, prefix, "25", startAt],
					{
						stdio: "inherit",
					},
				);
				child.on("close", resolve);
			});
		expect(await Promise.all([run("a"), run("b")])).toEqual([0, 0]);
		const names = Object.values(JSON.parse(readFileSync(join(dir.path, CACHE_FILE), "utf8")).servers).map(
			(s) => (s as { name: string }).name,
		);
		expect(names).toHaveLength(50);
		for (const p of ["a", "b"]) for (let i = 0; i < 25; i++) expect(names).toContain(`${p}-${i}`);
	});
});
