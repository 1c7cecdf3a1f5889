// No secret leaves through an error. Each leak path found in use gets a unique planted secret;
// then every channel a user or the model can see is searched for it: what the model was sent,
// the rpc events (/mcp text, notifications, status line), Pi's stderr, and every file under the
// agent dir (cache, npx cache, approvals) and the output-guard files. Both Pi lines.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CACHE_FILE } from "../../metadata-cache.ts";
import { fixture, freePort } from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

/** Every file under a folder, as text. */
function filesUnder(dir: string): { path: string; text: string }[] {
	const out: { path: string; text: string }[] = [];
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) out.push(...filesUnder(path));
		else out.push({ path, text: readFileSync(path, "latin1") });
	}
	return out;
}

function outputGuardFiles(): { path: string; text: string }[] {
	return readdirSync(tmpdir())
		.filter((n) => n.startsWith("pi-mcp-output-"))
		.flatMap((n) => {
			try {
				return filesUnder(join(tmpdir(), n));
			} catch {
				return [];
			}
		});
}

describe.each(PI_HOSTS)("secrets never leave through an error ($name)", (host) => {
	it("crash stderr, args, isError results, URL queries and malformed headers: zero hits on every channel", async () => {
		const secrets = {
			inherited: "inh-5e1c0a7d93f2", // an API key in Pi's own environment, which servers inherit
			arg: "argref-8d2b6e41c0", // reaches a path in args through ${VAR} (a variable named as a secret)
			result: "res-3f9a7c2e18", // a server quotes it in an isError result
			query: "qry-6b0e4d9a21", // in a URL's query
			header: "hdr-1a7f3c9e55", // a malformed headers value
		};
		const closed = await freePort();
		const home = await createPiHome({
			mcpConfig: {
				mcpServers: {
					crasher: { command: "sh", args: ["-c", "env >&2; exit 1"], lifecycle: "eager" },
					argsy: { command: process.execPath, args: ["/nonexistent/${DEPLOY_TOKEN}/server.js"] },
					leaky: {
						...fixture("leaky-server.ts"),
						env: { SERVICE_TOKEN: "${LEAKY_TOKEN}" },
					},
					queried: { url: `http://127.0.0.1:${closed}/mcp?api_key=\${QUERY_KEY}&team=core` },
					badheaders: { url: "http://127.0.0.1:1/mcp", headers: `Bearer ${secrets.header}` },
				},
			},
		});
		const env = {
			MY_SERVICE_API_KEY: secrets.inherited,
			DEPLOY_TOKEN: secrets.arg,
			LEAKY_TOKEN: secrets.result,
			QUERY_KEY: secrets.query,
		};
		const call = (args: Record<string, unknown>) => () => ({ toolCall: { name: "mcp", arguments: args } });
		const seen: string[] = [];
		const steps = [
			call({ tool: "argsy_anything" }),
			call({ tool: "leaky_leak" }),
			call({ connect: "queried" }),
			call({ connect: "crasher" }),
			call({}),
			(req: Parameters<typeof lastToolMessage>[0]) => ({ text: `done: ${lastToolMessage(req)}` }),
		];
		const pi = await startPiRpc({ home, host, env, steps });
		try {
			await pi.waitFor(
				(e) => e.type === "extension_ui_request" && e.method === "setStatus" && /failed/.test(String(e.statusText)),
			);
			for (const command of ["/mcp status", "/mcp tools", "/mcp-auth queried status", "/mcp reconnect crasher"]) {
				const from = pi.events.length;
				pi.send({ id: command, type: "prompt", message: command });
				seen.push(
					String(
						(await pi.waitFor((e) => e.type === "extension_ui_request" && e.method === "notify", from, 150_000))
							.message,
					),
				);
			}
			const from = pi.events.length;
			pi.send({ id: "model", type: "prompt", message: "use the servers" });
			await pi.waitFor((e) => e.type === "agent_end", from, 150_000);
		} finally {
			await pi.close();
		}
		const toModel = JSON.stringify(home.model.requests);
		const channels = [
			{ path: "what the model was sent", text: toModel },
			{ path: "rpc events", text: JSON.stringify(pi.events) },
			{ path: "pi stderr", text: pi.stderr() },
			// Every file the adapter (or Pi) wrote: not the config the user wrote the secret into.
			...filesUnder(home.agentDir).filter((f) => !f.path.endsWith("/mcp.json")),
			...outputGuardFiles(),
		];
		try {
			// The leaks really happened, scrubbed: otherwise this test proves nothing.
			expect(toModel).toContain("Cannot find module");
			expect(toModel).toContain("upstream rejected token *** (401)");
			expect(toModel).toContain("MY_SERVICE_API_KEY=***"); // the crashing server printed its environment
			expect(toModel).toContain("/nonexistent/***/server.js");
			expect(seen.join("\n")).toContain("api_key=***&team=***");
			// The listing echoed the token (schema default, resource URI, prompt argument): cached scrubbed.
			const cache = channels.find((c) => c.path.endsWith(CACHE_FILE))?.text ?? "";
			expect(cache).toContain("leaky://data?key=***");
			expect(seen.join("\n")).toContain('server "badheaders": headers: must be an object, got a string');
			for (const [kind, secret] of Object.entries(secrets)) {
				const hits = channels.filter((c) => c.text.includes(secret)).map((c) => c.path);
				expect(hits, `${kind} secret leaked`).toEqual([]);
			}
		} finally {
			await home.dispose();
		}
	}, 300_000);
});

/** Every text in the messages the model was sent, as plain text. */
function said(requests: readonly ChatRequest[]): string {
	return requests
		.flatMap((r) => r.messages)
		.map((m) =>
			typeof m.content === "string"
				? m.content
				: Array.isArray(m.content)
					? m.content.map((part: { text?: unknown }) => String(part.text ?? "")).join("\n")
					: "",
		)
		.join("\n");
}

/** A secret in the forms servers print it: as is, JSON-escaped (once, and again inside JSON), URL- and form-encoded. */
function textForms(secret: string): string[] {
	const json = JSON.stringify(secret).slice(1, -1);
	return [
		secret,
		json,
		JSON.stringify(json).slice(1, -1),
		encodeURIComponent(secret),
		new URLSearchParams({ s: secret }).toString().slice(2),
	];
}

/** The middle of the secret's base64, alone and after "user:" (a Basic header): what is left if it is not masked. */
function base64Forms(secret: string): string[] {
	return [secret, `user:${secret}`].map((text) => Buffer.from(text).toString("base64").slice(8, -4));
}

describe.each(PI_HOSTS)("a secret in any form on any channel ($name)", (host) => {
	it("results, content for the user, structuredContent, progress, questions, resources, prompts, crashes: zero hits in json and rpc output, session files, cache, logs", async () => {
		const token = "svc-2c8e4f1a9b"; // plain, in the server's env through ${VAR}
		const quoted = 'q"uo\\te/7+c1d 9e2a~x'; // a password with characters JSON and URLs escape
		const crash = `require("fs").writeSync(2, JSON.stringify({ key: process.env.QUOTED_SECRET })); process.exit(1)`;
		const home = await createPiHome({
			mcpConfig: {
				mcpServers: {
					leaky: {
						...fixture("leaky-server.ts"),
						env: { SERVICE_TOKEN: "${LEAKY_TOKEN}", QUOTED_SECRET: "${LEAKY_QUOTED}" },
					},
					crashjson: { command: process.execPath, args: ["-e", crash], env: { QUOTED_SECRET: "${LEAKY_QUOTED}" } },
				},
			},
		});
		const env = { LEAKY_TOKEN: token, LEAKY_QUOTED: quoted };
		const call = (args: Record<string, unknown>) => () => ({ toolCall: { name: "mcp", arguments: args } });
		try {
			const json = await runPi(home, "use leaky", {
				host,
				env,
				mode: "json",
				session: true,
				steps: [
					call({ tool: "leaky_forms" }),
					call({ tool: "leaky_leak" }),
					call({ tool: "leaky_get_data" }),
					call({ tool: "crashjson_anything" }),
					() => ({ text: "done" }),
				],
			});
			const toModel = JSON.stringify(home.model.requests);
			const modelSaw = said(home.model.requests);
			// The prompt's messages go to the model as the user's: over rpc this time.
			const pi = await startPiRpc({ home, host, env, session: true, steps: [() => ({ text: "ok" })] });
			try {
				pi.send({ id: "p", type: "prompt", message: "/leaky:p" });
				await pi.waitFor((e) => e.type === "agent_end", 0, 150_000);
			} finally {
				await pi.close();
			}
			const promptToModel = JSON.stringify(home.model.requests);
			const sessions = filesUnder(join(home.agentDir, "sessions"));
			const channels = [
				{ path: "what the model was sent", text: toModel + promptToModel },
				{ path: "json output", text: json.stdout + json.stderr },
				{ path: "rpc events", text: JSON.stringify(pi.events) + pi.stderr() },
				...filesUnder(home.agentDir).filter((f) => !f.path.endsWith("/mcp.json")),
				...outputGuardFiles(),
			];
			// Each leak happened, masked: otherwise this test proves nothing.
			expect(json.code).toBe(0);
			for (const shown of [
				'json {"secret":"***"}',
				"url https://api.example.test/cb?secret=***",
				"basic Authorization: Basic dXNlcj",
				'structuredContent: {"user":"structured-user","secret":"***"}',
				'asked the user: "confirm the key ***', // the question no one could answer, told in the result
				'upstream rejected token *** (401); config {"secret":"***"}',
				'resource {"secret":"***"}',
				'"key":"***"', // the crash's stderr
			])
				expect(modelSaw, shown).toContain(shown);
			expect(json.stdout).toContain("for the user: ***"); // in the result's details
			expect(json.stdout).toContain("signing in as ***"); // the progress message
			expect(said(home.model.requests)).toContain('prompt {"secret":"***"} and ***');
			expect(sessions.length).toBeGreaterThan(0);
			const forms = [...textForms(token), ...textForms(quoted), ...base64Forms(quoted)];
			for (const form of forms) {
				const hits = channels.filter((c) => c.text.includes(form)).map((c) => c.path);
				expect(hits, `${JSON.stringify(form)} leaked`).toEqual([]);
			}
		} finally {
			await home.dispose();
		}
	}, 400_000);
});
