// No secret leaves through an error. Each leak path found in use gets a unique planted secret;
// then every channel a user or the model can see is searched for it: what the model was sent,
// the rpc events (/mcp text, notifications, status line), Pi's stderr, and every file under the
// agent dir (cache, npx cache, approvals) and the output-guard files. Both Pi lines.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, ROOT } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, startPiRpc } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");

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
			arg: "argref-8d2b6e41c0", // reaches a path in args through ${VAR}
			result: "res-3f9a7c2e18", // a server quotes it in an isError result
			query: "qry-6b0e4d9a21", // in a URL's query
			header: "hdr-1a7f3c9e55", // a malformed headers value
		};
		const closed = await freePort();
		const home = await createPiHome({
			mcpConfig: {
				mcpServers: {
					crasher: { command: "sh", args: ["-c", "env >&2; exit 1"], lifecycle: "eager" },
					argsy: { command: process.execPath, args: ["/nonexistent/${DEPLOY_REF}/server.js"] },
					leaky: {
						command: process.execPath,
						args: [TSX, join(ROOT, "tests/fixtures/leaky-server.ts")],
						env: { SERVICE_TOKEN: "${LEAKY_TOKEN}" },
					},
					queried: { url: `http://127.0.0.1:${closed}/mcp?api_key=\${QUERY_KEY}&team=core` },
					badheaders: { url: "http://127.0.0.1:1/mcp", headers: `Bearer ${secrets.header}` },
				},
			},
		});
		const env = {
			MY_SERVICE_API_KEY: secrets.inherited,
			DEPLOY_REF: secrets.arg,
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
			for (const command of ["/mcp", "/mcp tools", "/mcp-auth queried status", "/mcp reconnect crasher"]) {
				const from = pi.events.length;
				pi.send({ id: command, type: "prompt", message: command });
				seen.push(
					String(
						(await pi.waitFor((e) => e.type === "extension_ui_request" && e.method === "notify", from, 30_000)).message,
					),
				);
			}
			const from = pi.events.length;
			pi.send({ id: "model", type: "prompt", message: "use the servers" });
			await pi.waitFor((e) => e.type === "agent_end", from, 40_000);
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
			const cache = channels.find((c) => c.path.endsWith("mcp-cache.json"))?.text ?? "";
			expect(cache).toContain("leaky://data?key=***");
			expect(seen.join("\n")).toContain('server "badheaders": headers: must be an object, got a string');
			for (const [kind, secret] of Object.entries(secrets)) {
				const hits = channels.filter((c) => c.text.includes(secret)).map((c) => c.path);
				expect(hits, `${kind} secret leaked`).toEqual([]);
			}
		} finally {
			await home.dispose();
		}
	}, 120_000);
});
