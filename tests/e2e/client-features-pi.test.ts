// What a server may ask of the client, in the real Pi (both lines) against the real
// server-everything: roots, elicitation (form and URL) through Pi's dialogs in rpc mode, sampling
// with the user's consent answered by the session's model, prompts as slash commands, resource
// templates, structured results, a task-only tool, server instructions, and server logs that go to
// mcp.log and never to the model. In print mode no one can answer: questions are declined at once.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING, waitUntil } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, type PiRpc, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { converse, SAMPLING_SYSTEM, steps, toolResults } from "../support/pi-conversation.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

describe.each(PI_HOSTS)("what servers ask of the client ($name)", (host) => {
	let home: PiHome;
	let pi: PiRpc;
	beforeAll(async () => {
		home = await createPiHome({
			mcpConfig: { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } },
		});
		pi = await startPiRpc({ home, host, steps });
	}, 60_000);
	afterAll(async () => {
		await pi.close();
		await home.dispose();
	});

	it("lists the tools, the server's instructions, and the session folder as the only root", async () => {
		const listed = await converse(pi, 'call {"server":"everything"}', () => ({ cancelled: true }));
		const text = toolResults(listed.events);
		expect(text).toMatch(/everything: \d+ tools, \d+ resources, \d+ resource templates/);
		expect(text).toContain('Instructions from \\"everything\\"');
		for (const tool of [
			"get-roots-list",
			"trigger-elicitation-request",
			"trigger-url-elicitation",
			"trigger-sampling-request",
			"simulate-research-query",
		]) {
			expect(text).toContain(`everything_${tool}`);
		}
		const roots = await converse(pi, 'call {"tool":"everything_get-roots-list"}', () => ({ cancelled: true }));
		expect(toolResults(roots.events)).toContain(`URI: file://${home.cwd}`);
		expect(toolResults(roots.events)).toContain("Current MCP Roots (1 total)");
	});

	it("asks a form elicitation field by field in Pi's dialogs, as from the server, and returns the answers", async () => {
		const { dialogs, events } = await converse(
			pi,
			'call {"tool":"everything_trigger-elicitation-request"}',
			(dialog) => {
				const title = String(dialog.title);
				const first = (dialog.options as string[] | undefined)?.[0] ?? "";
				// The answers before sending may be taller than a screen: their pages are read through.
				if (first.startsWith("Next page")) return { value: first };
				if (first === "Don't send") return { value: "Send" };
				if (title.includes("Your full, legal name")) return { value: "Ada Lovelace" };
				if (title.includes("Integer")) return { value: "7" };
				if (dialog.method === "input") return { value: "" };
				const options = dialog.options as string[];
				if (title.includes("favorite hero")) return { value: "Wonder Woman" };
				return { value: options.find((o) => o.startsWith("Done")) ?? options[0] };
			},
		);
		expect(String(dialogs[0].title)).toContain(
			'MCP server "everything" asks: Please provide inputs for the following fields',
		);
		// One dialog per field: several fields, none asked twice.
		const start = dialogs.findIndex((d) => String(d.title).includes("Send these answers"));
		const fields = dialogs.slice(0, start).map((d) => String(d.title));
		expect(fields.length).toBeGreaterThan(1);
		expect(new Set(fields).size).toBe(fields.length);
		const summary = dialogs.slice(start);
		expect(summary.map((d) => String(d.title)).join("\n")).toContain("name: Ada Lovelace");
		// Enter before sending does not send: the first choice is "Don't send".
		expect(summary.at(-1)?.options).toEqual(["Don't send", "Send"]);
		const result = toolResults(events);
		expect(result).toContain("User provided the requested information");
		expect(result).toContain("Name: Ada Lovelace");
		expect(result).toContain("Favorite Integer: 7");
		expect(result).toContain("hero-3");
		// Left empty: the schema's default is applied (SEP-1034).
		expect(result).toContain("It was a dark and stormy night.");
	});

	it("Esc cancels an elicitation; the server hears cancel", async () => {
		const { events } = await converse(pi, 'call {"tool":"everything_trigger-elicitation-request"}', () => ({
			cancelled: true,
		}));
		expect(toolResults(events)).toMatch(/cancel/i);
	});

	it("shows a URL elicitation's page and offers to open it", async () => {
		const args = { url: "https://example.com/verify?step=1", message: "Verify your account" };
		const { dialogs, events } = await converse(
			pi,
			`call ${JSON.stringify({ tool: "everything_trigger-url-elicitation", args })}`,
			() => ({
				value: "I will open it myself",
			}),
		);
		expect(dialogs).toHaveLength(1);
		expect(String(dialogs[0].title)).toContain('MCP server "everything" asks you to open a page');
		expect(String(dialogs[0].title)).toContain("https://example.com/verify?step=1");
		expect(dialogs[0].options).toEqual(["Decline", "Open example.com in the browser", "I will open it myself"]);
		expect(toolResults(events)).toContain("User completed the URL elicitation flow");
	});

	it("sampling: asks the user, then answers with the session's model and shows the tokens used", async () => {
		const before = home.model.requests.length;
		const { dialogs, events } = await converse(
			pi,
			'call {"tool":"everything_trigger-sampling-request","args":{"prompt":"say hi"}}',
			() => ({ value: "Allow once" }),
		);
		expect(String(dialogs[0].title)).toContain('MCP server "everything" asks to use your model');
		expect(String(dialogs[0].title)).toContain("say hi");
		// What Enter picks is "Deny": a consent's default is never to allow.
		expect(dialogs[0].options).toEqual(["Deny", "Allow once", 'Always allow "everything" in this session']);
		expect(toolResults(events)).toContain("a sampled reply from the session model");
		const sampled = home.model.requests.slice(before).find((r) => JSON.stringify(r.messages).includes(SAMPLING_SYSTEM));
		expect(JSON.stringify(sampled?.messages)).toContain("say hi");
		const notes = events.filter((e) => e.method === "notify").map((e) => String(e.message));
		expect(notes.some((n) => /"everything" used .+ tokens in, \d+ out/.test(n))).toBe(true);

		const denied = await converse(
			pi,
			'call {"tool":"everything_trigger-sampling-request","args":{"prompt":"again"}}',
			() => ({ value: "Deny" }),
		);
		expect(toolResults(denied.events)).toContain("The user declined the sampling request");
	});

	it("runs a prompt as a slash command with its arguments, and /mcp lists the prompts", async () => {
		const before = home.model.requests.length;
		await converse(pi, "/everything:args-prompt city=Paris state=Texas", () => ({ cancelled: true }));
		const sent = home.model.requests
			.slice(before)
			.map((r) => JSON.stringify(r.messages[r.messages.length - 1]))
			.join("\n");
		expect(sent).toContain("Paris");
		expect(sent).toContain("Texas");
		const from = pi.events.length;
		pi.send({ id: "status", type: "prompt", message: "/mcp status" });
		const status = await pi.waitFor((e) => e.method === "notify" && String(e.message).includes("MCP servers"), from);
		expect(String(status.message)).toContain("prompts: /everything:simple-prompt, /everything:args-prompt city state?");
	});

	it("reads a resource template with its variables, passes structured content, and calls a task-only tool with progress", async () => {
		const template = await converse(
			pi,
			'call {"tool":"everything_get_Dynamic_Text_Resource","args":{"resourceId":"3"}}',
			() => ({ cancelled: true }),
		);
		expect(toolResults(template.events)).toContain("Resource 3: This is a plaintext resource");
		await converse(pi, 'call {"tool":"everything_get-structured-content","args":{"location":"Chicago"}}', () => ({
			cancelled: true,
		}));
		// What the model got: the structured result as compact JSON.
		const seen = lastToolMessage(home.model.requests[home.model.requests.length - 1]);
		expect(Object.keys(JSON.parse(seen))).toEqual(["temperature", "conditions", "humidity"]);
		expect(seen).not.toContain("\n");
		const research = await converse(
			pi,
			'call {"tool":"everything_simulate-research-query","args":{"topic":"tides"}}',
			() => ({ cancelled: true }),
		);
		expect(toolResults(research.events)).toContain("Research Report: tides");
		const updates = research.events
			.filter((e) => e.type === "tool_execution_update")
			.map((e) => JSON.stringify(e.partialResult));
		// The server moves through four 1 s stages and asks to be polled every 1 s, so which stages a
		// poll lands on depends on the machine's load; that the user sees the stage it is in does not.
		const stages = ["Gathering sources", "Analyzing content", "Synthesizing findings", "Generating report"];
		expect(updates.some((u) => stages.some((stage) => u.includes(`${stage}...`)))).toBe(true);
	}, 60_000);

	it("server logs go to mcp.log, never to the model", async () => {
		await converse(pi, 'call {"tool":"everything_toggle-simulated-logging"}', () => ({ cancelled: true }));
		const log = join(home.agentDir, "mcp.log");
		// server-everything logs one random-level message at once, then one every 5 s.
		const logged = /^\d{4}-\d\d-\d\dT[\d:.]+Z \[everything\] (\w+) \w+[ -]level[ -]message$/m;
		const read = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
		await waitUntil(() => logged.test(read()), "the server's log message in mcp.log");
		expect(read()).toContain("[everything] info everything-server: Roots updated: 1 root(s) received from client");
		expect(JSON.stringify(home.model.requests)).not.toMatch(/level[ -]message/);
	});
});

describe.each(PI_HOSTS)("without a UI ($name, -p)", (host) => {
	let home: PiHome;
	beforeAll(async () => {
		home = await createPiHome({
			mcpConfig: { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } },
		});
	});
	afterAll(async () => home.dispose());

	it("declines elicitation and sampling at once, saying why, and exits", async () => {
		const elicit = await runPi(home, 'call {"tool":"everything_trigger-elicitation-request"}', { host, steps });
		expect(elicit.code, elicit.stderr).toBe(0);
		expect(elicit.stdout).toContain("User declined");
		expect(elicit.stdout).toContain(
			"Pi runs without a UI here (print or json mode): no one can answer, so it was declined",
		);
		const sample = await runPi(home, 'call {"tool":"everything_trigger-sampling-request","args":{"prompt":"hi"}}', {
			host,
			steps,
		});
		expect(sample.code, sample.stderr).toBe(0);
		expect(sample.stdout).toContain('no one can answer whether "everything" may use the model, so it was refused');
	}, 60_000);

	it("a prompt command given to pi -p and --mode json runs its turn: the model gets the prompt, its answer is printed", async () => {
		const reply = [
			(req: { messages: { content?: unknown }[] }) => ({
				text: `got: ${JSON.stringify(req.messages.at(-1)?.content)}`,
			}),
		];
		// The earlier runs cached the server's prompts: the command exists from the start.
		const print = await runPi(home, "/everything:simple-prompt", { host, steps: reply });
		expect(print.code, print.stderr).toBe(0);
		expect(print.stdout).toMatch(/got: .*simple prompt/i);
		const json = await runPi(home, "/everything:simple-prompt", { host, steps: reply, mode: "json" });
		expect(json.code, json.stderr).toBe(0);
		expect(json.stdout).toMatch(/got: .*simple prompt/i);
	}, 60_000);
});
