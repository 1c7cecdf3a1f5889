// Pi 1.x: for every exposure, the model is shown what the line's built-in MCP shows it (the control,
// on the same config; Pi 1.5.2 and 1.6.0): the same tools declared, the same `mcp_servers` section, and no more tokens;
// and an MCP tool with an output schema declares the type of its structuredContent to codemode
// scripts as the built-in does. The real `pi` CLI, a scripted model and the real server-everything.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { everythingStdio } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, startPiRpc } from "../support/pi-cli-harness.ts";
import { PI1_HOSTS } from "../support/pi-hosts.ts";
import { contextOf, firstContext, type Pi15Mcp, runPi15 } from "../support/pi15-context.ts";
import { countTokens } from "../support/token-count.ts";

const SERVER = { ...everythingStdio(), description: "Sample tools, resources and prompts" };
const STRUCTURED = "mcp__everything__get_structured_content";
/** The resource tools: ours are described in fewer words (checked by the token count, not word for word). */
const RESOURCE_TOOLS = new Set(["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"]);
/**
 * server-everything lists these only to a client that answers elicitation and sampling, which the
 * extension does and Pi 1.5's built-in does not: tools the server has for us, not a presentation.
 */
const ONLY_FOR_ELICITATION_OR_SAMPLING =
	/^mcp__everything__trigger_(elicitation_request|url_elicitation|sampling_request)$/;

describe.each(PI1_HOSTS)("$name: each exposure shows the model what the built-in MCP shows it", (host) => {
	it.each([
		{ exposure: "codemode", config: {} },
		{ exposure: "deferred", config: { exposure: "deferred" } },
		{ exposure: "direct", config: { exposure: "direct" } },
		{ exposure: "hidden", config: { exposure: "hidden" } },
		{
			exposure: "per tool",
			config: { exposure: "deferred", toolExposure: { "get-sum": "direct", echo: "codemode", "*resource*": "hidden" } },
		},
	])(
		"$exposure: same tools and mcp_servers section, no more tokens",
		async ({ config }) => {
			const servers = { everything: { ...SERVER, ...config } };
			const builtIn = await firstContext(host, servers, "built-in");
			const ours = await firstContext(host, servers, "ours");
			const extra = ours.tools.filter((name) => !builtIn.tools.includes(name));
			expect(extra.filter((name) => !ONLY_FOR_ELICITATION_OR_SAMPLING.test(name))).toEqual([]);
			expect(builtIn.tools.filter((name) => !ours.tools.includes(name))).toEqual([]);
			expect(ours.section).toEqual(builtIn.section);
			for (const name of builtIn.tools.filter((t) => !RESOURCE_TOOLS.has(t)))
				expect(JSON.parse(ours.definitions[name]), name).toEqual(JSON.parse(builtIn.definitions[name]));
			const extraTokens = extra.reduce((sum, name) => sum + countTokens(ours.definitions[name]), 0);
			expect(ours.tokens - extraTokens).toBeLessThanOrEqual(builtIn.tokens);
		},
		120_000,
	);
});

describe.each(PI1_HOSTS)("$name: a tool's output schema types its structuredContent in codemode", (host) => {
	let home: PiHome;
	beforeEach(async () => {
		home = await createPiHome({ mcpConfig: { mcpServers: { everything: SERVER } } });
	});
	afterEach(async () => home.dispose());

	/** What describeTool() tells a script of get-structured-content, on a warm run. */
	const describeStructured = async (mcp: Pi15Mcp) => {
		const code = `return await describeTool(${JSON.stringify(STRUCTURED)});`;
		await runPi15(host, home, mcp, "warm", [() => ({ text: "ok" })]);
		let seen = "";
		const run = await runPi15(host, home, mcp, "describe", [
			() => ({ toolCall: { name: "codemode", arguments: { code } } }),
			(req) => {
				seen = lastToolMessage(req);
				return { text: "done" };
			},
		]);
		expect(run.code, run.stderr).toBe(0);
		return seen.slice(seen.indexOf("codemode tool declaration:"));
	};

	it("describeTool() shows the fields of structuredContent, word for word as with the built-in", async () => {
		const builtIn = await describeStructured("built-in");
		const ours = await describeStructured("ours");
		expect(builtIn).toMatch(/structuredContent\?: \{[^}]*temperature: number;/);
		expect(ours).toBe(builtIn);
	}, 120_000);
});

describe.each(PI1_HOSTS)("$name: a server without a description in the mcp_servers section", (host) => {
	let home: PiHome;
	beforeEach(async () => {
		home = await createPiHome({ mcpConfig: { mcpServers: { everything: everythingStdio() } } });
	});
	afterEach(async () => home.dispose());

	/** The last mcp_servers section a request carries (Pi appends a changed one to the conversation). */
	const lastSection = (req: ChatRequest) => {
		const system = req.messages.filter((m) => m.role === "system" || m.role === "developer");
		const text = system.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
		return [...text.matchAll(/<mcp_servers>\n([\s\S]*?)\n<\/mcp_servers>/g)].at(-1)?.[1];
	};

	it("is summarised by its instructions' first line from our first request, as the built-in's reads once its server connected", async () => {
		// The built-in: a first prompt whose script connects the server, then a second prompt.
		const script = "return await describeNamespace('mcp__everything');";
		home.model.script([
			() => ({ toolCall: { name: "codemode", arguments: { code: script } } }),
			() => ({ text: "described" }),
			() => ({ text: "second" }),
		]);
		const pi = await startPiRpc({ home, host, noExtension: true, builtins: ["mcp", "codemode", "tool-search"] });
		try {
			for (const [id, message] of [
				["p1", "describe"],
				["p2", "again"],
			]) {
				const from = pi.events.length;
				pi.send({ id, type: "prompt", message });
				await pi.waitFor((e) => e.type === "agent_end", from);
			}
		} finally {
			await pi.close();
		}
		const builtIn = lastSection(home.model.requests[2]);
		// Ours, in a session after the one that listed the server: its first request.
		await runPi15(host, home, "ours", "warm", [() => ({ text: "ok" })]);
		await runPi15(host, home, "ours", "hi", [() => ({ text: "ok" })]);
		const ours = contextOf(home.model.requests[0], home.cwd).section;
		expect(builtIn).toContain("- mcp__everything (codemode): # Everything Server");
		expect(ours).toBe(builtIn);
	}, 180_000);
});
