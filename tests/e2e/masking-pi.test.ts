// Masking in real sessions on both Pi lines: a folder the user gave a server reaches the model as
// it is in every answer, a token in none (the real server-filesystem and server-everything); and
// a cloned repository's never-approved server with a 140,000-character env value and header
// cannot end the session (the old masking built one regular expression from them, which V8
// refused: Pi exited 1 at the approval question).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING, FILESYSTEM } from "../support/helpers.ts";
import { lastToolMessage, type Step } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const TEST_MS = 180_000;
const TOKEN = "svc-tok-7e3d9a1c5b";
const call = (tool: string, args: unknown = {}): ReturnType<Step> => ({
	toolCall: { name: "mcp", arguments: { tool, args } },
});

describe.each(PI_HOSTS)("the user's folders and tokens in a real session ($name)", (host) => {
	let home: PiHome | undefined;
	afterEach(async () => home?.dispose());

	it(
		"server-filesystem given a folder (args and env), server-everything a token: the folder whole in every answer, the token in none",
		async () => {
			home = await createPiHome();
			const notes = join(home.root, "notes");
			mkdirSync(notes);
			writeFileSync(join(notes, "todo.md"), "buy oat milk\n");
			const env = { NOTES_DIR: notes, API_KEY: "${HOME}" };
			const servers = {
				fs: { command: process.execPath, args: [FILESYSTEM, notes], env },
				every: {
					command: process.execPath,
					args: [EVERYTHING, "stdio"],
					env: { ...env, SERVICE_TOKEN: "${MY_TOKEN}" },
				},
			};
			home.writeAgentFile("mcp.json", JSON.stringify({ mcpServers: servers }));
			const answers: string[] = [];
			/** A step that keeps the answer the model was just given, then does `next`. */
			const keeping =
				(next: () => ReturnType<Step>): Step =>
				(req) => {
					answers.push(lastToolMessage(req));
					return next();
				};
			const steps: Step[] = [
				() => call("fs_list_allowed_directories"),
				keeping(() => call("every_get-env")),
				keeping(() => call("fs_read_text_file", { path: join(notes, "todo.md") })),
				keeping(() => call("every_echo", { message: `notes at ${notes}, home ${home?.root}` })),
				keeping(() => ({ text: "done" })),
			];
			const run = await runPi(home, "look at my notes", { host, steps, env: { MY_TOKEN: TOKEN } });
			expect(run.code, run.stderr.slice(-2000)).toBe(0);
			const [allowed, environment, read, echo] = answers;
			expect(allowed).toContain(notes);
			expect(environment).toContain(`"NOTES_DIR": "${notes}"`);
			expect(environment).toContain(`"API_KEY": "${home.root}"`); // ${HOME}: the home folder, not a key
			expect(environment).toContain('"SERVICE_TOKEN": "***"'); // the token was there, masked
			expect(read).toContain("buy oat milk");
			expect(echo).toContain(`notes at ${notes}, home ${home.root}`);
			for (const answer of answers) expect(answer).not.toMatch(/\*\*\*\//); // no folder cut to ***/...
			const seen = `${run.stdout}\n${run.stderr}\n${JSON.stringify(home.model.requests)}`;
			for (const form of [TOKEN, encodeURIComponent(TOKEN), Buffer.from(TOKEN).toString("base64").slice(2, -2)])
				expect(seen).not.toContain(form);
		},
		TEST_MS,
	);
});

describe.each(PI_HOSTS)("a repository's pending server with huge values ($name)", (host) => {
	let home: PiHome | undefined;
	afterEach(async () => home?.dispose());
	const huge = (tag: string) => `${tag}-${"aZ/+".repeat(35_000)}`;
	const project = () =>
		JSON.stringify({
			mcpServers: {
				big: { command: "node", args: ["server.js"], env: { API_TOKEN: huge("env") } },
				remote: { url: "http://127.0.0.1:9/mcp", headers: { "X-Api-Key": huge("hdr") } },
			},
		});

	it(
		"-p: Pi answers and exits 0; rpc: the question is asked and the session goes on",
		async () => {
			home = await createPiHome({ mcpConfig: { mcpServers: {} } });
			home.writeProjectFile(".mcp.json", project());
			const run = await runPi(home, "hi", {
				host,
				steps: [() => call("big_anything"), (req) => ({ text: `tool said: ${lastToolMessage(req).slice(0, 200)}` })],
			});
			expect(run.code, run.stderr.slice(-2000)).toBe(0);
			expect(run.stdout).toContain('tool said: Server "big" is awaiting approval');
			expect(run.stderr).not.toContain("SyntaxError");

			const pi = await startPiRpc({ home, host, steps: [() => ({ text: "still here" })] });
			try {
				await pi.waitFor((e) => e.type === "extension_ui_request" && e.method === "select", 0, TEST_MS);
				const from = pi.events.length;
				pi.send({ id: "p", type: "prompt", message: "are you there" });
				await pi.waitFor((e) => e.type === "agent_end", from, TEST_MS);
				expect(JSON.stringify(pi.events.slice(from))).toContain("still here");
				expect(pi.stderr()).not.toContain("SyntaxError");
			} finally {
				await pi.close();
			}
		},
		TEST_MS,
	);
});
