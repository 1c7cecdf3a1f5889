// Skills over MCP (SEP-2640) in a real Pi, on both lines: a server built on the SDK's server
// package publishes a skill; the first run lists (and caches) it and fetches none of it; the next
// run offers it to the model as a Pi skill named by its server, and the model loads it the way Pi
// skills load (the read tool on its SKILL.md), reads its supporting file and follows it (calls the
// server's tool with the code the file names). Each file is fetched at its read, checked, and
// written with the session's secrets masked; the folder goes with the session. A file is fetched
// only once every extension's tool_call hook let the call through: a permission hook that blocks
// the read leaves the server unasked.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CACHE_FILE } from "../../metadata-cache.ts";
import { SKILLS_DIR } from "../../skills/skill-folder.ts";
import { ROOT, TSX, waitUntil } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS, type PiHost } from "../support/pi-hosts.ts";

const TOKEN = "tok-skills-5f3a9c21e7";
const PROBE = join(ROOT, "tests/fixtures/permission-probe.ts");

function writeSkill(root: string, files: Record<string, string>): void {
	for (const [path, text] of Object.entries(files)) {
		mkdirSync(dirname(join(root, path)), { recursive: true });
		writeFileSync(join(root, path), text);
	}
}

/** The system prompt the model was sent. */
function systemPrompt(request: ChatRequest): string {
	const system = request.messages.find((m) => m.role === "system" || m.role === "developer");
	return typeof system?.content === "string" ? system.content : JSON.stringify(system?.content ?? "");
}

/** The location Pi gives the model for a skill, from its system prompt ("" if it is not offered). */
function skillLocation(request: ChatRequest, name: string): string {
	const prompt = systemPrompt(request);
	const at = prompt.indexOf(`<name>${name}</name>`);
	return at < 0 ? "" : (/<location>([^<]+)<\/location>/.exec(prompt.slice(at))?.[1] ?? "");
}

/** The names of the skills the metadata cache holds. */
function cachedSkills(agentDir: string): string[] {
	const file = join(agentDir, CACHE_FILE);
	if (!existsSync(file)) return [];
	const servers = JSON.parse(readFileSync(file, "utf8")).servers as Record<string, { skills?: { name: string }[] }>;
	return Object.values(servers).flatMap((server) => (server.skills ?? []).map((skill) => skill.name));
}

/**
 * Run 1: the session lists the server (its cache fill) and fetches nothing. The model answers once
 * the listing is in the cache, as in a session that lasts: a `pi -p` that ends first bounds the
 * fill at its exit, which a loaded machine's tsx start of the fixture can outlast.
 */
async function listingRun(home: PiHome, host: PiHost): Promise<void> {
	const first = await runPi(home, "hi", {
		host,
		steps: [
			() =>
				// A step that threw would leave Pi waiting for the model: a timeout is the run's answer.
				waitUntil(() => cachedSkills(home.agentDir).length > 0, "the cache fill", 120_000).then(
					() => ({ text: "hello" }),
					(error: Error) => ({ text: error.message }),
				),
		],
	});
	expect(first.code, first.stderr).toBe(0);
	expect(cachedSkills(home.agentDir), first.stdout).toEqual(["order-forms"]);
}

/** The fixture server over one skill, order-forms, as the config names it; `fetched()` is what it served. */
function orderFormsServer(home: PiHome) {
	const skills = join(home.root, "server-skills");
	writeSkill(skills, {
		"order-forms/SKILL.md": [
			"---",
			"name: order-forms",
			"description: File order forms. Use when the user asks to file an order form.",
			"---",
			"",
			"# Order forms",
			"",
			"Read references/FORMS.md, then call the submit tool with the form code it names.",
			"",
		].join("\n"),
		"order-forms/references/FORMS.md": `The form code is BLUE-42. (Service token: ${TOKEN})\n`,
	});
	const reads = join(home.root, "reads.log");
	const server = {
		command: process.execPath,
		args: [TSX, join(ROOT, "tests/fixtures/skills-server.ts"), skills],
		env: { SKILL_READS: reads, DOCS_API_TOKEN: TOKEN },
	};
	const fetched = () => (existsSync(reads) ? readFileSync(reads, "utf8").split("\n").filter(Boolean) : []);
	return { server, fetched };
}

describe.each(PI_HOSTS)("MCP skills ($name)", (host) => {
	let home: PiHome;
	afterEach(async () => home.dispose());

	it("run 1 lists the skill and fetches none of it; run 2 loads it on read, checks it, and the model follows it", async () => {
		home = await createPiHome({});
		const { server, fetched } = orderFormsServer(home);
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { docs: server } }));

		await listingRun(home, host);
		expect(fetched()).toEqual([]);

		// Another extension's permission hook runs after ours and lets every call through.
		let skillFile = "";
		const seen: string[][] = [];
		const second = await runPi(home, "file the order form", {
			host,
			extraArgs: ["-e", PROBE],
			env: { PROBE_FILE: join(home.root, "probe.log") },
			steps: [
				(req) => {
					seen.push(fetched());
					skillFile = skillLocation(req, "docs-order-forms");
					// Not offered: the run ends here (a step that threw would leave Pi waiting for the model).
					if (!skillFile) return { text: `no skill offered:\n${systemPrompt(req).slice(-1500)}` };
					return { toolCall: { name: "read", arguments: { path: skillFile } } };
				},
				(req) => {
					seen.push(fetched());
					expect(lastToolMessage(req)).toContain("call the submit tool");
					const forms = join(dirname(skillFile), "references", "FORMS.md");
					return { toolCall: { name: "read", arguments: { path: forms } } };
				},
				(req) => {
					seen.push(fetched());
					const code = /form code is (\S+?)\./.exec(lastToolMessage(req))?.[1];
					return { toolCall: { name: "mcp", arguments: { tool: "docs_submit", args: { code } } } };
				},
				(req) => ({ text: lastToolMessage(req) }),
			],
		});
		expect(second.code, second.stderr).toBe(0);
		expect(skillFile, second.stdout).not.toBe("");
		expect(second.stdout).toContain("form BLUE-42 accepted");
		// Nothing before the model read SKILL.md; the supporting file only at its own read.
		expect(seen).toEqual([[], ["order-forms/SKILL.md"], ["order-forms/SKILL.md", "order-forms/references/FORMS.md"]]);
		// The skill's folder is ours, under the agent dir, and named by the server.
		expect(skillFile.startsWith(join(home.agentDir, SKILLS_DIR))).toBe(true);
		expect(skillFile.endsWith(join("docs-order-forms", "SKILL.md"))).toBe(true);
		const sent = JSON.stringify(home.model.requests);
		expect(sent).toContain('From the MCP server \\"docs\\"');
		expect(sent).not.toContain(TOKEN);
		// Removed with the session.
		expect(readdirSync(join(home.agentDir, SKILLS_DIR))).toEqual([]);

		// Run 3 starts from the start-up snapshot (nothing changed): `/skill:<name>` loads the skill
		// before Pi puts it in the prompt.
		const third = await runPi(home, "/skill:docs-order-forms file it", {
			host,
			steps: [(req) => ({ text: JSON.stringify(req.messages.filter((m) => m.role === "user")) })],
		});
		expect(third.code, third.stderr).toBe(0);
		expect(third.stdout).toContain("call the submit tool");
		expect(third.stdout).toContain('From the MCP server \\"docs\\"');
		expect(fetched().filter((path) => path.endsWith("SKILL.md"))).toHaveLength(2);

		// /mcp lists the server's skills under the names Pi knows them by.
		const status = await runPi(home, "/mcp status", { host, steps: [] });
		expect(status.stdout + status.stderr).toMatch(/docs: .*\n\s+skills: docs-order-forms/);
	}, 180_000);

	it("approveTools asking for every tool of the server (its skill reader too): a skill loads only on a yes, none in -p", async () => {
		home = await createPiHome({});
		const { server, fetched } = orderFormsServer(home);
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { docs: { ...server, approveTools: true } } }));
		await listingRun(home, host);

		let refusal = "";
		const second = await runPi(home, "file the order form", {
			host,
			steps: [
				(req) => {
					const skillFile = skillLocation(req, "docs-order-forms");
					if (!skillFile) return { text: `no skill offered:\n${systemPrompt(req).slice(-1500)}` };
					return { toolCall: { name: "read", arguments: { path: skillFile } } };
				},
				(req) => {
					refusal = lastToolMessage(req);
					return { text: "done" };
				},
			],
		});
		expect(second.code, second.stderr).toBe(0);
		// As read_mcp_resource of the same skill:// URI answers in -p: no one to ask, so no read.
		expect(refusal).toMatch(/docs-order-forms .*was not loaded: .*approval-gated and requires an interactive session/);
		const slash = await runPi(home, "/skill:docs-order-forms file it", { host, steps: [] });
		expect(slash.stdout + slash.stderr).toMatch(/approval-gated/);
		expect(fetched()).toEqual([]);
	}, 180_000);

	it("a permission hook that blocks read and bash: the server serves no file; one that answers every call: the files come after the call ran", async () => {
		home = await createPiHome({});
		const { server, fetched } = orderFormsServer(home);
		home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: { docs: server } }));
		await listingRun(home, host);
		const probe = { host, extraArgs: ["-e", PROBE] };
		const probeFile = join(home.root, "probe.log");

		let skillFile = "";
		const told: string[] = [];
		const blocked = await runPi(home, "file the order form", {
			...probe,
			env: { PROBE_FILE: probeFile, PROBE_BLOCK: "read,bash" },
			steps: [
				(req) => {
					skillFile = skillLocation(req, "docs-order-forms");
					if (!skillFile) return { text: `no skill offered:\n${systemPrompt(req).slice(-1500)}` };
					return { toolCall: { name: "read", arguments: { path: skillFile } } };
				},
				(req) => {
					told.push(lastToolMessage(req));
					const forms = join(dirname(skillFile), "references", "FORMS.md");
					return { toolCall: { name: "bash", arguments: { command: `cat '${skillFile}' '${forms}'` } } };
				},
				(req) => {
					told.push(lastToolMessage(req));
					return { text: "done" };
				},
			],
		});
		expect(blocked.code, blocked.stderr).toBe(0);
		expect(skillFile, blocked.stdout).not.toBe("");
		expect(told).toEqual(["read is not allowed here", "bash is not allowed here"]);
		// The server never learned what the model tried: not one resources/read.
		expect(fetched()).toEqual([]);

		// A hook that answers `{ block: false }` takes the last word from ours: the read runs without
		// the file, which is fetched then, and the model is asked to read again.
		const again: string[] = [];
		const answered = await runPi(home, "file the order form", {
			...probe,
			env: { PROBE_FILE: probeFile, PROBE_ALLOW: "answer" },
			steps: [
				(req) => ({ toolCall: { name: "read", arguments: { path: skillLocation(req, "docs-order-forms") } } }),
				(req) => {
					again.push(lastToolMessage(req));
					return { toolCall: { name: "read", arguments: { path: skillLocation(req, "docs-order-forms") } } };
				},
				(req) => {
					again.push(lastToolMessage(req));
					return { text: "done" };
				},
			],
		});
		expect(answered.code, answered.stderr).toBe(0);
		expect(again[0]).toMatch(/MCP skill docs-order-forms was fetched .*run the call again/);
		expect(again[1]).toContain("call the submit tool");
		expect(fetched()).toEqual(["order-forms/SKILL.md"]);
	}, 180_000);
});
