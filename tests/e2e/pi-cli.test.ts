// The real `pi` CLI with a scripted OpenAI-style model on 127.0.0.1: the package loads as an
// extension, the model searches and calls through `mcp`, and sees the real result.
import { afterEach, describe, expect, it } from "vitest";
import { everythingStdio } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { type PiCliRun, runPiCli } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

describe.each(PI_HOSTS)("the pi CLI ($name)", (host) => {
	let run: PiCliRun | undefined;
	afterEach(async () => {
		await run?.cleanup();
		run = undefined;
	});

	it("loads the package and completes a search-then-call round trip", async () => {
		let found = "";
		run = await runPiCli({
			mcpConfig: { mcpServers: { everything: everythingStdio() } },
			loadAsPackage: true,
			host,
			prompt: "Echo 'pineapple' with the MCP tools.",
			steps: [
				() => ({ toolCall: { name: "mcp", arguments: { search: "echo" } } }),
				(req) => {
					found = /^- (\S+)/.exec(lastToolMessage(req))?.[1] ?? "";
					return { toolCall: { name: "mcp", arguments: { tool: found, args: { message: "pineapple" } } } };
				},
				(req) => ({ text: `Result: ${lastToolMessage(req)}` }),
			],
		});
		expect(run.code, run.stderr).toBe(0);
		expect(found).toBe("everything_echo");
		expect(run.stdout).toContain("Result: Echo: pineapple");
		const offered = (run.model.requests[0].tools ?? []).map((t) => t.function.name);
		expect(offered.filter((n) => n === "mcp" || n.startsWith("everything"))).toEqual(["mcp"]);
	});
});

describe.each(PI_HOSTS)("the pi CLI with a broken config ($name)", (host) => {
	it("loads, reports every problem with file and server, and the good servers work", async () => {
		const run = await runPiCli({
			mcpConfig: {
				mcpServers: { bad: { command: "x", args: "notalist", lifecycle: "sometimes" }, everything: everythingStdio() },
				settings: { toolPrefix: "long" },
			},
			prompt: "echo",
			host,
			steps: [
				() => ({ toolCall: { name: "mcp", arguments: { tool: "bad_anything" } } }),
				(req) => ({
					toolCall: {
						name: "mcp",
						arguments: { tool: "everything_echo", args: { message: `fine; before: ${lastToolMessage(req)}` } },
					},
				}),
				(req) => ({ text: lastToolMessage(req) }),
			],
		});
		try {
			expect(run.code, run.stderr).toBe(0);
			expect(run.stderr).toContain(
				'server "bad": args: must be a list of strings, got a string; lifecycle: must be one of "lazy", "eager", "keep-alive"',
			);
			expect(run.stderr).toContain('settings: toolPrefix: must be one of "server", "short", "none", got "long"');
			expect(run.stdout).toContain("Echo: fine");
			// The model is told why "bad" cannot run, not that it does not exist.
			expect(run.stdout).toContain(
				'before: Server "bad" needs configuration: args: must be a list of strings, got a string',
			);
		} finally {
			await run.cleanup();
		}
	});
});
