// What a person reads in the real Pi (both lines), in words: a failed server's reason first and the
// fix after, the same on pi 0.73 and Pi 1.5; a broken config named by file, line and column, with
// the model still given `mcp` to say so; the approval list printed once; no words meant for the
// model in the /mcp manager; and what pi-mcp-adapter 2.36 users look for: /pi-mcp, /mcp prompts,
// /mcp setup, /mcp edit.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING, freePort, ROOT } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, type PiRpc, type RpcEvent, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const EXITING = { command: process.execPath, args: [join(ROOT, "tests/fixtures/exit-after-initialize.mjs")] };
const everything = { command: process.execPath, args: [EVERYTHING, "stdio"] };

describe.each(PI_HOSTS)("plain words in the real pi ($name)", (host) => {
	let home: PiHome | undefined;
	let rpc: PiRpc | undefined;
	afterEach(async () => {
		await rpc?.close();
		await home?.dispose();
		rpc = undefined;
		home = undefined;
	});
	const builtins = host.pi1 ? ["codemode", "tool-search"] : [];

	it("a failed server's reason comes first: its exit code and last words (not write EPIPE), an unreachable URL's cause", async () => {
		const port = await freePort();
		home = await createPiHome({
			mcpConfig: { mcpServers: { expiring: EXITING, remote: { url: `http://127.0.0.1:${port}/mcp` } } },
		});
		const answers: string[] = [];
		const steps = [
			() => ({ toolCall: { name: "mcp", arguments: { tool: "expiring_work", args: {} } } }),
			(req: ChatRequest) => {
				answers.push(lastToolMessage(req));
				return { toolCall: { name: "mcp", arguments: { tool: "remote_work", args: {} } } };
			},
			(req: ChatRequest) => {
				answers.push(lastToolMessage(req));
				return { text: "done" };
			},
		];
		const run = await runPi(home, "use both", { host, steps });
		expect(run.code, run.stderr).toBe(0);
		const [expiring, remote] = answers;
		expect(expiring).toContain('"expiring" failed to connect: the server exited (exit code 3) before it was ready');
		expect(expiring).toContain("fatal: the license key expired");
		expect(expiring).not.toContain("EPIPE");
		const file = join(home.agentDir, "mcp.json");
		expect(remote).toContain(
			`Cannot reach http://127.0.0.1:${port}/mcp: nothing accepts connections at 127.0.0.1:${port} (connection refused). Check the URL in ${file}.`,
		);
		expect(remote).not.toMatch(/SSE fallback|Version negotiation/);
	}, 120_000);

	it("a config that does not parse is named by file, line and column in words; the model keeps `mcp`, whose status says so", async () => {
		home = await createPiHome({
			agentFiles: {
				"mcp.json": '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}\n',
			},
		});
		let declared: string[] = [];
		let status = "";
		const steps = [
			(req: ChatRequest) => {
				declared = (req.tools ?? []).map((t) => t.function.name);
				return { toolCall: { name: "mcp", arguments: {} } };
			},
			(req: ChatRequest) => {
				status = lastToolMessage(req);
				return { text: "done" };
			},
		];
		const run = await runPi(home, "what MCP tools do I have?", { host, steps, builtins });
		const where = `${join(home.agentDir, "mcp.json")} line 4, column 5: a comma is missing`;
		expect(run.stderr).toContain(where);
		expect(run.stderr).not.toContain("CommaExpected");
		expect(declared).toContain("mcp");
		expect(status).toContain(`- a: needs configuration: ${where}`);
		expect(status).toContain(`Config problems (tell the user):\nerror: ${where}`);
	}, 120_000);

	it('`pi -p "/mcp approve"` prints the servers awaiting approval once, then names them by their code', async () => {
		home = await createPiHome({
			projectFiles: { ".mcp.json": JSON.stringify({ mcpServers: { projev: everything } }) },
		});
		const run = await runPi(home, "/mcp approve", { host, steps: [] });
		const out = run.stdout + run.stderr;
		expect(out.match(/ {4}runs: /g)).toHaveLength(1);
		const code = /\/mcp approve ([a-z2-9]{3}-[a-z2-9]{3})/.exec(out)?.[1];
		expect(out).toContain(`"projev": listed above with what each runs; to allow exactly that: /mcp approve ${code}.`);
	}, 120_000);

	it("/pi-mcp is /mcp; /mcp prompts lists the servers' prompts as the commands that run them", async () => {
		home = await createPiHome({ mcpConfig: { mcpServers: { everything } } });
		const alias = await runPi(home, "/pi-mcp reconnect everything", { host, steps: [] });
		expect(alias.stdout + alias.stderr).toMatch(/everything: reconnected, \d+ tools/);
		// Without a UI a command answers on stdout, which Pi's print mode sends to stderr.
		const prompts = await runPi(home, "/mcp prompts", { host, steps: [] });
		const listed = prompts.stdout + prompts.stderr;
		expect(listed).toContain("MCP prompts (run one as a command");
		expect(listed).toMatch(/ {2}\/everything:simple-prompt(: .+)?\n/);
		expect(listed).toMatch(/ {2}\/everything:args-prompt city state\?/);
	}, 120_000);

	it("the manager shows no words meant for the model; /mcp setup adds a server; /mcp edit saves only what parses", async () => {
		home = await createPiHome({
			mcpConfig: { mcpServers: {} },
			projectFiles: { ".mcp.json": JSON.stringify({ mcpServers: { projev: everything } }) },
		});
		rpc = await startPiRpc({ home, host });
		const pi = rpc;
		let at = 0;
		const dialog = (method: string) => (e: RpcEvent) => e.type === "extension_ui_request" && e.method === method;
		/** The next dialog of `method` after `at`, answered with `value` (a select: the option starting with it). */
		const answer = async (method: string, value: string): Promise<RpcEvent> => {
			const asked = await pi.waitFor(dialog(method), at);
			at = pi.events.indexOf(asked) + 1;
			const options = asked.options as string[] | undefined;
			const chosen = options ? options.find((o) => o.startsWith(value)) : value;
			if (chosen === undefined) throw new Error(`no option "${value}" in ${JSON.stringify(options)}`);
			pi.send({ type: "extension_ui_response", id: asked.id, value: chosen });
			return asked;
		};
		const told = async () => {
			const note = await pi.waitFor(dialog("notify"), at, 30_000);
			at = pi.events.indexOf(note) + 1;
			return String(note.message);
		};

		// The start asks about the project's server first (in the background): not now.
		await answer("select", "Not now");
		pi.send({ id: "manager", type: "prompt", message: "/mcp" });
		const list = await answer("select", "projev —");
		const row = (list.options as string[]).find((o) => o.startsWith("projev —"));
		expect(row).toContain("awaiting approval: run /mcp approve projev");
		const menu = await answer("select", "Back");
		expect(String(menu.title)).not.toContain("ask the user");
		await answer("select", "Close");

		pi.send({ id: "setup", type: "prompt", message: "/mcp setup" });
		await answer("input", "memory");
		await answer("input", `"${process.execPath}" '${EVERYTHING}' stdio`);
		await answer("select", "Your own");
		const file = join(home.agentDir, "mcp.json");
		expect(await told()).toBe(`Added "memory" (saved in ${file}). MCP reloaded its config.`);
		expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.memory).toEqual({
			command: process.execPath,
			args: [EVERYTHING, "stdio"],
		});

		pi.send({ id: "edit", type: "prompt", message: "/mcp edit memory" });
		const editor = await answer(
			"editor",
			readFileSync(file, "utf8").replace('"memory": {', '"memory": { "description": "notes" }\n"extra": {'),
		);
		expect(String(editor.title)).toBe(`Edit ${file}`);
		const again = await pi.waitFor(dialog("editor"), at);
		expect(String(again.title)).toMatch(
			new RegExp(`^Not saved: ${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} line \\d+, column \\d+: `),
		);
		await answer(
			"editor",
			readFileSync(file, "utf8").replace('"memory": {', '"memory": {\n      "description": "notes",'),
		);
		expect(await told()).toBe(`Saved ${file}. MCP reloaded its config.`);
		expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.memory.description).toBe("notes");
	}, 150_000);
});
