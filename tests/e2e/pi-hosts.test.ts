// The Pi lines as the tests and benchmarks reach them: each Pi 1.x comes with its first use, so what
// runs it from a fresh clone (`npm run bench`, which has no test setup) finds it installed.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { tempDir } from "../support/helpers.ts";
import { PI1_VERSIONS, pi1Host } from "../support/pi-hosts.ts";

it.each(PI1_VERSIONS)(
	"a folder with no Pi %s gets it at the first use of its host, and it runs",
	(version) => {
		const dir = tempDir();
		try {
			const host = pi1Host(version, join(dir.path, `pi-${version}`));
			const installed = execFileSync(host.node, [host.cli, "--version"], { encoding: "utf8" });
			expect(installed.trim()).toBe(version);
		} finally {
			dir.remove();
		}
	},
	300_000,
);
