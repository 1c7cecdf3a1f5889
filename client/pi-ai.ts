// Pi's pi-ai, which answers a server's sampling request on pi 0.73 (Pi 1.x completes through
// `ctx.modelRegistry`), loaded at the first sampling request. Pi lends it to the TypeScript its
// loader compiles (a clone); the built package (dist/) is imported by Node, which finds it beside
// Pi, up the folders of Pi's own script.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { once } from "../bounds/waits.ts";

export const loadPiAi = once(async (): Promise<typeof import("@mariozechner/pi-ai")> => {
	try {
		return await import("@mariozechner/pi-ai");
	} catch (error) {
		const beside = process.argv[1] ? besideScript("@mariozechner/pi-ai", process.argv[1]) : undefined;
		if (!beside)
			throw new Error("Pi's pi-ai, which answers a server's sampling request, was not found", { cause: error });
		return import(pathToFileURL(beside).href);
	}
});

/** The ES module entry of package `name` in the node_modules folders above `script` (as Node would look from there), if any. */
export function besideScript(name: string, script: string): string | undefined {
	let dir: string;
	try {
		dir = dirname(realpathSync(script));
	} catch {
		return undefined; // no such file: a host that is not a script
	}
	for (; ; dir = dirname(dir)) {
		const manifest = join(dir, "node_modules", name, "package.json");
		if (existsSync(manifest)) {
			const { exports, main } = JSON.parse(readFileSync(manifest, "utf8")) as {
				exports?: { "."?: { import?: string; default?: string } };
				main?: string;
			};
			const entry = exports?.["."]?.import ?? exports?.["."]?.default ?? main;
			return entry ? join(dirname(manifest), entry) : undefined;
		}
		if (dirname(dir) === dir) return undefined;
	}
}
