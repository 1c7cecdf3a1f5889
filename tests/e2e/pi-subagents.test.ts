// pi-subagents (npm `pi-subagents`, built on pi-mcp-adapter 2.36) gives a child agent direct MCP
// tools in two steps: in the parent, its own code reads 2.36's config files and 2.36's cache
// (<agentDir>/mcp-cache.json, version 1, 2.36's hash) and names the tools, refusing the launch when
// it cannot; in the child's process it sets MCP_DIRECT_TOOLS and requires those names to be
// registered. Here the parent step is pi-subagents' real resolver over the cache our sessions wrote,
// and the child step the real Pi (both lines) with that variable, calling the tool by that name.
// (Its background runner itself does not start on Pi 1.5.2: it requires @earendil-works/chord.)
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING, ROOT } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";
import { ensurePiSubagents } from "../support/pi-subagents.ts";

interface Resolution {
	readonly selections: { name: string; serverName: string }[];
	readonly unresolvedSelectors: string[];
}

/** pi-subagents' own resolution of `mcp:` selectors, run as its parent process would, in that home. */
function resolveAsPiSubagents(home: PiHome, selectors: string[]): Resolution {
	const module = join(ensurePiSubagents(), "src", "runs", "shared", "mcp-direct-tool-allowlist.ts");
	const script = `const { resolveMcpDirectToolResolution } = await import(${JSON.stringify(module)});
		const { selections, unresolvedSelectors } = resolveMcpDirectToolResolution(${JSON.stringify(selectors)}, ${JSON.stringify(home.cwd)});
		console.log("RESULT" + JSON.stringify({ selections, unresolvedSelectors }));`;
	const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
		cwd: ROOT,
		env: { ...process.env, HOME: home.root, PI_CODING_AGENT_DIR: home.agentDir },
		encoding: "utf8",
	});
	return JSON.parse(out.slice(out.indexOf("RESULT") + "RESULT".length)) as Resolution;
}

describe("pi-subagents' children reach MCP tools through this extension", () => {
	let home: PiHome;
	afterEach(async () => home?.dispose());

	for (const host of PI_HOSTS) {
		it(`${host.name}: pi-subagents resolves mcp:everything/echo from our cache; the child calls it by that name`, async () => {
			home = await createPiHome({});
			// 2.36's shared file: pi-subagents reads it too.
			mkdirSync(join(home.root, ".config", "mcp"), { recursive: true });
			writeFileSync(
				join(home.root, ".config", "mcp", "mcp.json"),
				JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } }),
			);
			// A first session lists the server (the first run fills the cache).
			const first = await runPi(home, "hello", { host, steps: [() => ({ text: "hi" })] });
			expect(first.code, first.stderr).toBe(0);

			const resolved = resolveAsPiSubagents(home, ["everything/echo"]);
			expect(resolved.unresolvedSelectors).toEqual([]);
			expect(resolved.selections.map((s) => s.name)).toEqual(["everything_echo"]);

			// The child: pi-subagents' runner sets MCP_DIRECT_TOOLS to the selectors and requires the names.
			const child = await runPi(home, "echo", {
				host,
				env: { MCP_DIRECT_TOOLS: "everything/echo" },
				steps: [
					() => ({ toolCall: { name: "everything_echo", arguments: { message: "from a child" } } }),
					(req) => ({ text: lastToolMessage(req) }),
				],
			});
			expect(child.code, child.stderr).toBe(0);
			const declared = (home.model.requests.at(-2)?.tools ?? []).map((t) => t.function.name);
			expect(declared).toContain("everything_echo");
			expect(child.stdout).toContain("Echo: from a child");
		}, 180_000);
	}
});
