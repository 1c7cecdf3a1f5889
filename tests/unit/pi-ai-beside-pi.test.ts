// pi-ai for pi 0.73's sampling when the built package runs: Node resolves its imports from the
// package's folder, where no pi-ai is installed; Pi's own is found up the folders of Pi's script.
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { besideScript } from "../../client/pi-ai.ts";
import { ROOT, tempDir } from "../support/helpers.ts";

const PI_073_CLI = join(ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js");

describe("pi-ai beside Pi's script", () => {
	it("is the module of the pi-ai Pi runs with (its ES module entry), found from Pi's script", async () => {
		const entry = besideScript("@mariozechner/pi-ai", PI_073_CLI);
		expect(entry).toBe(join(ROOT, "node_modules", "@mariozechner", "pi-ai", "dist", "index.js"));
		const piAi = (await import(pathToFileURL(entry as string).href)) as { complete?: unknown };
		expect(typeof piAi.complete).toBe("function");
	});

	it("is found through a link to Pi's script (npm's bin), and not where no folder above holds it", () => {
		const dir = tempDir();
		try {
			symlinkSync(PI_073_CLI, join(dir.path, "pi"));
			expect(besideScript("@mariozechner/pi-ai", join(dir.path, "pi"))).toContain(join("pi-ai", "dist", "index.js"));
			writeFileSync(join(dir.path, "host.js"), "");
			expect(besideScript("@mariozechner/pi-ai", join(dir.path, "host.js"))).toBe(undefined);
			expect(besideScript("@mariozechner/pi-ai", join(dir.path, "missing.js"))).toBe(undefined);
		} finally {
			dir.remove();
		}
	});
});
