// What loading the extension costs is mostly the code it loads (Pi 1.5 evaluates it through jiti at
// every start). The paths a session start does not take load when first used: the MCP client, the
// proxy's call path, elicitation and sampling, the broker client, config editing.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/helpers.ts";

/** The files of this package that importing index.ts loads (in a fresh Node, as Pi would). */
function startupImports(): string[] {
	const script = `
		await import(${JSON.stringify(join(ROOT, "index.ts"))});
		console.log("LOADED" + JSON.stringify(await globalThis.loadedModules()));`;
	const out = execFileSync(
		process.execPath,
		[
			"--import",
			"tsx",
			"--import",
			join(ROOT, "tests", "fixtures", "record-imports.mjs"),
			"--input-type=module",
			"-e",
			script,
		],
		{ cwd: ROOT, encoding: "utf8" },
	);
	const urls = JSON.parse(out.slice(out.indexOf("LOADED") + "LOADED".length)) as string[];
	return urls
		.map((url) => decodeURIComponent(new URL(url).pathname))
		.filter((path) => path.startsWith(`${ROOT}/`))
		.map((path) => path.slice(ROOT.length + 1));
}

describe("loading the extension", () => {
	it("loads no MCP client, call path, elicitation, sampling, broker client or config editing", () => {
		const loaded = startupImports();
		expect(loaded).toContain("index.ts");
		expect(loaded).toContain("pi/pi-tools.ts");
		const deferred = [
			"transport/open-connection.ts",
			"transport/mcp-sdk.ts",
			"proxy/proxy-tool.ts",
			"proxy/calls.ts",
			"client/elicitation.ts",
			"client/sampling.ts",
			"broker/client.ts",
			"config/edit.ts",
			"search/engine.ts",
		];
		expect(loaded.filter((file) => deferred.includes(file))).toEqual([]);
		expect(loaded.filter((file) => file.includes("node_modules/@modelcontextprotocol/"))).toEqual([]);
	});
});
