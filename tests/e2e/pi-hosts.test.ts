// The Pi lines as the tests and benchmarks reach them: Pi 1.5 comes with its first use, so what runs
// it from a fresh clone (`npm run bench`, which has no test setup) finds it installed.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { tempDir } from "../support/helpers.ts";
import { PI15_VERSION, pi15Host } from "../support/pi-hosts.ts";

it("a folder with no Pi 1.5 gets it at the first use of its host, and it runs", () => {
	const dir = tempDir();
	try {
		const host = pi15Host(join(dir.path, `pi-${PI15_VERSION}`));
		const version = execFileSync(host.node, [host.cli, "--version"], { encoding: "utf8" });
		expect(version.trim()).toBe(PI15_VERSION);
	} finally {
		dir.remove();
	}
}, 300_000);
