// Signing in to a remote MCP server with OAuth, against a real OAuth-protected server built from
// the SDK's server auth pieces: the call says "needs sign-in" (never waits for a browser); the
// sign-in completes through the loopback callback; tokens are private files, refreshed when they
// expire or the server refuses them (once, even when two sessions refresh at once); a wrong state
// is refused; logout deletes.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { McpRuntime } from "../../mcp-runtime.ts";
import { CACHE_FILE } from "../../metadata-cache.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { ROOT, tempDir } from "../support/helpers.ts";
import { lastToolMessage } from "../support/mock-openai.ts";
import {
	browser,
	markSignInsExpired,
	type OAuthServer,
	oauthRuntimes,
	startOAuthServer,
} from "../support/oauth-fixture.ts";
import { createPiHome, type PiHome, runPi, startPiRpc } from "../support/pi-cli-harness.ts";
import { PI_HOSTS, PI1_HOSTS } from "../support/pi-hosts.ts";

const BIN = join(ROOT, "bin/pi-mcp-proxy.mjs");

/** Every access and refresh token in the sign-in files under an agent dir. */
function storedTokens(agentDir: string): string[] {
	const dir = join(agentDir, "mcp-oauth");
	return readdirSync(dir).flatMap((f) => {
		const tokens = JSON.parse(readFileSync(join(dir, f), "utf8")).tokens ?? {};
		return [tokens.access_token, tokens.refresh_token].filter(Boolean);
	});
}

describe("OAuth sign-in", () => {
	let server: OAuthServer;
	let dir: ReturnType<typeof tempDir>;
	let agentDir: string;
	const runtimes: McpRuntime[] = [];
	const open = () => {
		const runtime = new McpRuntime({ cwd: dir.path, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir } });
		runtimes.push(runtime);
		return runtime;
	};
	const ask = async (runtime: McpRuntime, input: Parameters<typeof runProxy>[1]) =>
		contentText((await runProxy(runtime.lifecycle, input)).content);
	const cli = (...args: string[]) =>
		new Promise<{ code: number | null; out: string }>((resolve) => {
			const child = spawn(process.execPath, [BIN, ...args], {
				cwd: dir.path,
				env: { ...process.env, PI_CODING_AGENT_DIR: agentDir },
			});
			let out = "";
			child.stdout.on("data", (c) => {
				out += c;
				const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\S+)$/m.exec(out)?.[1];
				if (url && !out.includes("[opened]")) {
					out += "[opened]";
					browser(url);
				}
			});
			child.stderr.on("data", (c) => (out += c));
			child.on("close", (code) => resolve({ code, out }));
		});

	const setUp = async (env?: Record<string, string>) => {
		server = await startOAuthServer(3600, env);
		writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { prot: { url: server.url } } }));
	};
	beforeEach(() => {
		dir = tempDir();
		agentDir = join(dir.path, "agent");
		mkdirSync(agentDir);
	});
	afterEach(async () => {
		for (const runtime of runtimes.splice(0)) await runtime.shutdown();
		await server?.stop();
		dir.remove();
	});

	it("a call answers 'needs sign-in' at once; after the sign-in the next call works; files are private; no token shows", async () => {
		await setUp();
		const runtime = open();
		const before = await ask(runtime, { tool: "prot_whoami" });
		expect(before).toContain('Server "prot" needs sign-in: ask the user to run /mcp-auth prot');
		expect(runtime.lifecycle.state("prot")).toBe("needs-auth");
		let shown = "";
		await runtime.signIn("prot", { show: (url) => (shown = url), openBrowser: browser });
		expect(shown).toMatch(
			/^http:\/\/127\.0\.0\.1:\d+\/authorize\?response_type=code&client_id=.+&code_challenge=.+&code_challenge_method=S256&redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Fcallback&state=.+&resource=/,
		);
		const after = await ask(runtime, { tool: "prot_whoami" });
		expect(after).toBe("hello, client signed in");
		const files = readdirSync(join(agentDir, "mcp-oauth"));
		expect(files).toHaveLength(1);
		expect(statSync(join(agentDir, "mcp-oauth")).mode & 0o777).toBe(0o700);
		expect(statSync(join(agentDir, "mcp-oauth", files[0])).mode & 0o777).toBe(0o600);
		// The cache is written in the background after the connect: waited for, not assumed.
		const cache = await vi.waitFor(() => readFileSync(join(agentDir, CACHE_FILE), "utf8"), { timeout: 10_000 });
		const everywhere = [
			before,
			after,
			await ask(runtime, {}),
			runtime.lifecycle.failure("prot")?.message ?? "",
			cache,
		].join("\n");
		for (const token of storedTokens(agentDir)) expect(everywhere).not.toContain(token);
	});

	it("the short link the sign-in shows (one line to copy) leads to the sign-in page from this machine", async () => {
		await setUp();
		const runtime = open();
		let short = "";
		await runtime.signIn("prot", {
			// No browser opens: the user copies the short link into one, which follows it to the sign-in page.
			show: (_url, shortUrl) => {
				short = shortUrl;
				browser(shortUrl);
			},
			openBrowser: () => undefined,
		});
		expect(short).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sign-in\/[0-9a-f]+$/);
		expect(await ask(runtime, { tool: "prot_whoami" })).toBe("hello, client signed in");
	});

	// Expiry without waiting for it: the fixture refuses its tokens on command, and the sign-in file
	// says they ran out (the client's clock). Tokens issued after that live an hour, so a slow machine
	// cannot see the new one expire too.
	it("an expired access token is refreshed before it is sent: the call still works", async () => {
		await setUp();
		const runtime = open();
		await runtime.signIn("prot", { show: () => undefined, openBrowser: browser });
		await runtime.lifecycle.manager.closeAll(); // the next call connects with the (expired) token
		await server.expireTokens();
		markSignInsExpired(agentDir);
		expect(await ask(runtime, { tool: "prot_whoami" })).toBe("hello, client signed in");
		expect(await server.stats()).toMatchObject({ signIns: 1, refreshes: 1, refusedTokens: 0 });
	});

	it("an access token the server refuses before its time is refreshed once: the call still works", async () => {
		await setUp();
		const runtime = open();
		await runtime.signIn("prot", { show: () => undefined, openBrowser: browser });
		await runtime.lifecycle.manager.closeAll();
		await server.expireTokens(); // the client still holds it valid for an hour
		expect(await ask(runtime, { tool: "prot_whoami" })).toBe("hello, client signed in");
		expect(await server.stats()).toMatchObject({ signIns: 1, refreshes: 1, refusedTokens: 1 });
	});

	it("two sessions (processes) whose token is refused at once both keep working; the refresh token rotates exactly once", async () => {
		await setUp();
		const login = await cli("login", "prot");
		expect(login.code, login.out).toBe(0);
		expect(login.out).toContain('Signed in to "prot".');
		// Both refusals are answered together: each session holds the old token when it goes to refresh.
		await server.expireTokens(2);
		const [a, b] = await Promise.all([cli("call", "prot_whoami"), cli("call", "prot_whoami")]);
		expect(a.code, a.out).toBe(0);
		expect(b.code, b.out).toBe(0);
		expect(a.out).toContain("hello, client signed in");
		expect(b.out).toContain("hello, client signed in");
		expect(await server.stats()).toMatchObject({ signIns: 1, refreshes: 1, refusedRefreshes: 0, refusedTokens: 2 });
	}, 120_000); // three CLI runs; a loaded machine takes 10-25 s per run

	it("a sign-in after one that did not finish works: the registered client's redirect port is used again", async () => {
		await setUp({ EXACT_REDIRECT: "1" });
		const runtime = open();
		const stop = new AbortController();
		// The first sign-in registers a client and is given up before the browser comes back.
		const first = runtime.signIn("prot", {
			show: () => undefined,
			openBrowser: () => stop.abort(new Error("cancelled")),
			signal: stop.signal,
		});
		await expect(first).rejects.toThrow(/stopped/);
		await runtime.signIn("prot", { show: () => undefined, openBrowser: browser });
		expect(await ask(runtime, { tool: "prot_whoami" })).toBe("hello, client signed in");
	});

	it("a callback with another state is answered 400 and ignored: the real one still signs in; logout deletes the tokens", async () => {
		await setUp();
		const runtime = open();
		const forgedStatus: number[] = [];
		const forgedThenReal = (url: string) => {
			const callback = new URL(new URL(url).searchParams.get("redirect_uri") as string);
			callback.searchParams.set("code", "stolen-code");
			callback.searchParams.set("state", "not-the-state");
			void fetch(callback).then((res) => {
				forgedStatus.push(res.status);
				browser(url);
			});
		};
		await runtime.signIn("prot", { show: () => undefined, openBrowser: forgedThenReal });
		expect(forgedStatus).toEqual([400]);
		expect(await ask(runtime, { tool: "prot_whoami" })).toBe("hello, client signed in");
		expect(await runtime.signOut("prot")).toBe(true);
		expect(readdirSync(join(agentDir, "mcp-oauth"))).toEqual([]);
		expect(await ask(runtime, { tool: "prot_whoami" })).toContain("needs sign-in");
	});
});

describe.each(PI1_HOSTS)("Pi 1.x's own sign-in (pi mcp login, $name)", (host) => {
	let server: OAuthServer | undefined;
	let home: PiHome | undefined;
	afterEach(async () => {
		await home?.dispose();
		await server?.stop();
	});

	it("a token `pi mcp login` stored in mcp-auth.json is used: the call works without signing in again", async () => {
		server = await startOAuthServer();
		home = await createPiHome({ mcpConfig: { mcpServers: { prot: { url: server.url } } } });
		const login = spawn(host.node, [host.cli, "mcp", "login", "prot"], {
			cwd: home.cwd,
			env: { ...process.env, PI_CODING_AGENT_DIR: home.agentDir, HOME: home.root, BROWSER: "none" },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let out = "";
		login.stdout.on("data", (chunk) => {
			out += chunk;
			const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\S+)$/m.exec(out)?.[1];
			if (url && !out.includes("[opened]")) {
				out += "[opened]";
				browser(url);
			}
		});
		const code = await new Promise<number | null>((resolve) => login.on("close", resolve));
		expect(code, out).toBe(0);
		expect(out).toContain('Signed in to MCP server "prot"');
		const call = () => ({ toolCall: { name: "mcp", arguments: { tool: "prot_whoami" } } });
		const run = await runPi(home, "who", {
			host,
			steps: [call, (req) => ({ text: `said: ${lastToolMessage(req)}` })],
		});
		expect(run.stdout).toContain("said: hello, client signed in");
	}, 90_000);
});

describe("a hostile authorization server", () => {
	let server: OAuthServer | undefined;
	let dir: ReturnType<typeof tempDir>;
	let runtime: McpRuntime | undefined;
	const signInAgainst = async (env: Record<string, string>, opened: string[] = []) => {
		server = await startOAuthServer(3600, env);
		const agentDir = join(dir.path, "agent");
		mkdirSync(agentDir, { recursive: true });
		writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { prot: { url: server.url } } }));
		runtime = new McpRuntime({ cwd: dir.path, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir } });
		return runtime.signIn("prot", {
			show: (url) => void opened.push(url),
			openBrowser: (url) => void opened.push(url),
		});
	};
	beforeEach(() => {
		dir = tempDir();
	});
	afterEach(async () => {
		await runtime?.shutdown();
		await server?.stop();
		dir.remove();
	});

	it("a 400 MB metadata document is refused after 1 MB", async () => {
		await expect(signInAgainst({ HUGE_METADATA: "1" })).rejects.toThrow(
			/more than the 1048576 bytes an OAuth document may have/,
		);
	});

	it("a metadata document that trickles forever ends the sign-in with a clear error", async () => {
		await expect(signInAgainst({ TRICKLE_METADATA: "1" })).rejects.toThrow(/did not answer within 15 s/);
	}, 30_000);

	it("a sign-in page that is not a web address (file:) is neither shown nor opened", async () => {
		const opened: string[] = [];
		await expect(signInAgainst({ FILE_AUTHORIZE: "1" }, opened)).rejects.toThrow(
			/sign-in page is not a web address \(file:\)/,
		);
		expect(opened).toEqual([]);
	});
});

describe("Pi 1.5's oauth settings", () => {
	const prot = oauthRuntimes();

	it("callbackUrl without a port: the redirect URI is sent as written with a free port added, on localhost, with a registered client", async () => {
		const rt = await prot.configure({ callbackUrl: "http://localhost/oauth/done" });
		let shown = "";
		await rt.signIn("prot", { show: (url) => (shown = url), openBrowser: browser });
		const redirect = new URL(shown).searchParams.get("redirect_uri") ?? "";
		expect(redirect).toMatch(/^http:\/\/localhost:\d+\/oauth\/done$/);
		// Pi's document lists only /callback: a client was registered for this URI instead.
		expect(new URL(shown).searchParams.get("client_id")).not.toContain("pi.dev");
		expect(await prot.call(rt)).toBe("hello, client signed in");
	});

	it("a callbackUrl off this machine, or cimd with a clientId, is refused before anything is sent", async () => {
		const rt = await prot.configure({ callbackUrl: "https://example.com/callback" });
		await expect(rt.signIn("prot", { show: () => undefined, openBrowser: browser })).rejects.toThrow(
			/callbackUrl must use http on localhost, 127\.0\.0\.1 or \[::1\]/,
		);
		prot.writeConfig({ clientRegistration: "cimd", clientId: "mine" });
		await expect(prot.open().signIn("prot", { show: () => undefined, openBrowser: browser })).rejects.toThrow(
			/"cimd" cannot be combined with clientId or clientName/,
		);
		expect(await prot.fixture().stats()).toMatchObject({ signIns: 0, requests: 0 });
	});

	it("cimd against a server that does not accept documents fails and says how to fix it", async () => {
		const rt = await prot.configure({ clientRegistration: "cimd" });
		await expect(rt.signIn("prot", { show: () => undefined, openBrowser: browser })).rejects.toThrow(
			/does not accept Client ID Metadata Documents .*use "dcr" or "auto"/,
		);
	});

	it("a server advertising a wrong authorization server: sign-in fails, and works with authServerMetadataUrl", async () => {
		const rt = await prot.configure({}, { WRONG_AS: "1" });
		await expect(rt.signIn("prot", { show: () => undefined, openBrowser: browser })).rejects.toThrow(
			/Sign-in to "prot" failed/,
		);
		const origin = new URL(prot.fixture().url).origin;
		prot.writeConfig({ authServerMetadataUrl: `${origin}/.well-known/oauth-authorization-server` });
		const again = prot.open();
		let shown = "";
		await again.signIn("prot", { show: (url) => (shown = url), openBrowser: browser });
		expect(shown.startsWith(`${origin}/authorize?`)).toBe(true);
		expect(await prot.call(again)).toBe("hello, client signed in");
		expect(await prot.fixture().stats()).toMatchObject({ signIns: 1 });
	});
});

describe.each(PI_HOSTS)("OAuth sign-in in the real Pi ($name)", (host) => {
	let server: OAuthServer;
	let home: PiHome;
	afterEach(async () => {
		await home?.dispose();
		await server?.stop();
	});

	it("the model is told to ask; /mcp-auth shows the URL, finishes through the callback; the next call works; /mcp logout and /mcp login as in Pi 1.5", async () => {
		server = await startOAuthServer();
		home = await createPiHome({ mcpConfig: { mcpServers: { prot: { url: server.url } } } });
		const call = () => ({ toolCall: { name: "mcp", arguments: { tool: "prot_whoami" } } });
		const pi = await startPiRpc({
			home,
			host,
			env: { BROWSER: "none" },
			steps: [call, (req) => ({ text: lastToolMessage(req) }), call, (req) => ({ text: lastToolMessage(req) })],
		});
		try {
			const notify = (e: { type: string; method?: unknown }) =>
				e.type === "extension_ui_request" && e.method === "notify";
			let from = pi.events.length;
			pi.send({ id: "1", type: "prompt", message: "who am i" });
			await pi.waitFor((e) => e.type === "agent_end", from);
			expect(lastToolMessage(home.model.requests[1])).toContain(
				'Server "prot" needs sign-in: ask the user to run /mcp-auth prot',
			);
			await pi.waitFor(
				(e) =>
					e.type === "extension_ui_request" &&
					e.method === "setStatus" &&
					String(e.statusText).includes("1 need sign-in"),
			);

			from = pi.events.length;
			pi.send({ id: "2", type: "prompt", message: "/mcp-auth prot" });
			const shown = await pi.waitFor((e) => notify(e) && String(e.message).includes("/authorize?"), from);
			browser(/(http:\/\/127\.0\.0\.1:\d+\/authorize\S+)/.exec(String(shown.message))?.[1] as string);
			const done = await pi.waitFor(
				(e) => notify(e) && String(e.message).startsWith('Signed in to "prot"'),
				from,
				30_000,
			);
			expect(String(done.message)).toContain("connected");

			from = pi.events.length;
			pi.send({ id: "3", type: "prompt", message: "who am i now" });
			await pi.waitFor((e) => e.type === "agent_end", from);
			expect(lastToolMessage(home.model.requests[3])).toBe("hello, client signed in");
			const seen = `${JSON.stringify(pi.events)}\n${JSON.stringify(home.model.requests)}\n${pi.stderr()}`;
			const tokens = storedTokens(home.agentDir);
			expect(tokens.length).toBe(2);
			for (const token of tokens) expect(seen).not.toContain(token);

			// Pi 1.5's own spelling works too: /mcp logout, /mcp login.
			from = pi.events.length;
			pi.send({ id: "4", type: "prompt", message: "/mcp logout prot" });
			await pi.waitFor((e) => notify(e) && String(e.message) === 'Signed out of "prot": its tokens are deleted.', from);
			expect(storedTokens(home.agentDir)).toEqual([]);
			pi.send({ id: "5", type: "prompt", message: "/mcp login prot" });
			const again = await pi.waitFor((e) => notify(e) && String(e.message).includes("/authorize?"), from);
			browser(/(http:\/\/127\.0\.0\.1:\d+\/authorize\S+)/.exec(String(again.message))?.[1] as string);
			await pi.waitFor((e) => notify(e) && String(e.message).startsWith('Signed in to "prot"'), from, 30_000);
			expect(storedTokens(home.agentDir)).toHaveLength(2);
		} finally {
			await pi.close();
		}
	}, 90_000);
});
