// Installing as a Pi user does, on both Pi lines, from an empty home: `pi install npm:pi-mcp-proxy`
// from a registry (verdaccio on 127.0.0.1, the package published from `npm pack`) and
// `pi install git:<address>` (the working tree as a git repository on 127.0.0.1), each followed by
// one real `pi -p` whose scripted model finds and calls a real server's tool, and the shell
// command of that install (`status`; on Pi 1.5 every line of docs/cli.md's shell block, `demo`
// first). The npm install runs the JavaScript `npm pack` built: Pi's loader compiles nothing into
// an empty temp folder, and a server's sampling request is answered (pi-ai found beside Pi); a git
// install runs the TypeScript. Nothing else is done by hand: the only files written are the user's
// mcp.json, the
// scripted model's models.json, and for the shell block a project's .mcp.json (its `approve` lines
// are about a project server).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING, ROOT, tempDir } from "../support/helpers.ts";
import { emptyHome, type Home, homeEnv, piSession, runCommand, searchThenCall } from "../support/install-harness.ts";
import { type GitServer, type LocalRegistry, startGitServer, startRegistry } from "../support/local-registry.ts";
import { startPiRpc } from "../support/pi-cli-harness.ts";
import { converse, steps, toolResults } from "../support/pi-conversation.ts";
import { PI_HOSTS, type PiHost } from "../support/pi-hosts.ts";

const COMMAND = "pi-mcp-proxy";
/** A code `approve` prints and takes (trust/shown-launches.ts); docs/cli.md shows an example of one. */
const SHOWN_CODE = /\b[a-z2-9]{3}-[a-z2-9]{3}\b/;

/** The commands of docs/cli.md's shell block (`pi-mcp-proxy <args>`), without the command's name. */
function documentedShellLines(): string[] {
	const page = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
	const section = page.slice(page.indexOf("## Commands"));
	const block = section.slice(section.indexOf("```bash"), section.indexOf("```", section.indexOf("```bash") + 3));
	const lines = block.split("\n").filter((line) => line.startsWith(`${COMMAND} `));
	expect(lines.map((line) => line.split(/\s+/)[1])).toEqual(expect.arrayContaining(["demo", "status", "approve"]));
	return lines.map((line) => line.slice(COMMAND.length + 1));
}

/**
 * Runs every line of docs/cli.md's shell block with the installed command, in a project whose
 * .mcp.json holds a server awaiting approval. Each exits as the page says: 0, but a bare
 * `approve` (it approves nothing and prints the code) 1; the line with the page's example code
 * is run with the code the bare `approve` printed, and approves the project's server.
 */
async function runDocumentedShellBlock(bin: string, at: Home, env: NodeJS.ProcessEnv): Promise<void> {
	writeFileSync(
		join(at.cwd, ".mcp.json"),
		JSON.stringify({ mcpServers: { proj: { command: "node", args: [EVERYTHING, "stdio"] } } }),
	);
	let printed: string | undefined;
	for (const line of documentedShellLines()) {
		const words = line.replace(/#.*/, "").trim().split(/\s+/);
		const bareApprove = words.length === 1 && words[0] === "approve";
		const withCode = words[0] === "approve" && SHOWN_CODE.test(line);
		if (withCode) expect(printed, "a bare approve ran first and printed a code").toBeDefined();
		const command = withCode ? line.replace(SHOWN_CODE, printed ?? "") : line;
		const ran = await runCommand("sh", ["-c", `'${bin}' ${command}`], at.cwd, env);
		expect(ran.code, `${COMMAND} ${command}\n${ran.out}`).toBe(bareApprove ? 1 : 0);
		if (words[0] === "demo") expect(ran.out).toContain("The sum of 2 and 3 is 5.");
		if (bareApprove) printed = new RegExp(`${COMMAND} approve (${SHOWN_CODE.source})`).exec(ran.out)?.[1];
		if (withCode) expect(ran.out).toContain("Approved (starting as configured)");
	}
}

/** What Pi's loader (jiti) compiled into its cache in the temp folder `tmp`. */
function compiledBy(tmp: string): string[] {
	const cache = join(tmp, "jiti");
	return existsSync(cache) ? readdirSync(cache) : [];
}

/** The TypeScript files of an installed package (its dependencies aside). */
function typeScriptIn(folder: string): string[] {
	return readdirSync(folder, { recursive: true, encoding: "utf8" }).filter(
		(path) => /\.[cm]?ts$/.test(path) && !path.endsWith(".d.ts") && !path.split(sep).includes("node_modules"),
	);
}

/** An rpc session of Pi loading the installed package: server-everything's sampling request, allowed once, gets the model's reply. */
async function samplingAnswered(host: PiHost, installed: string): Promise<void> {
	const pi = await startPiRpc({
		host,
		extension: installed,
		mcpConfig: { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } },
		steps,
	});
	try {
		const { dialogs, events } = await converse(
			pi,
			'call {"tool":"everything_trigger-sampling-request","args":{"prompt":"say hi"}}',
			() => ({ value: "Allow once" }),
		);
		expect(String(dialogs[0]?.title)).toContain('MCP server "everything" asks to use your model');
		expect(toolResults(events)).toContain("a sampled reply from the session model");
	} finally {
		await pi.close();
	}
}

describe("pi install, as a user runs it, on both Pi lines", () => {
	const dir = tempDir("pi-mcp-install-");
	let registry: LocalRegistry;
	let git: GitServer;

	beforeAll(async () => {
		registry = await startRegistry(dir.path);
		git = await startGitServer(dir.path);
	}, 300_000);
	afterAll(async () => {
		await registry?.close();
		await git?.close();
		dir.remove();
	});

	/** The shell command of an npm install: Pi 1.5 installs under <agentDir>/npm, pi 0.73 with `npm install -g`. */
	const installedBin = (host: PiHost, at: Home) =>
		host.pi1
			? join(at.agentDir, "npm", "node_modules", ".bin", "pi-mcp-proxy")
			: join(at.home, "global", "bin", "pi-mcp-proxy");

	it.each(PI_HOSTS)(
		"$name: pi install npm:pi-mcp-proxy, then a session finds and calls a server's tool, compiling nothing; the shell command runs",
		async (host) => {
			const at = emptyHome(dir.path, `npm-${host.name}`);
			const env = homeEnv(at, registry.url);
			const install = await runCommand(host.node, [host.cli, "install", "npm:pi-mcp-proxy"], at.cwd, env);
			expect(install.code, install.out).toBe(0);
			// A temp folder of its own, empty as after a reboot: Pi's loader keeps what it compiles there.
			const tmp = join(at.home, "tmp");
			mkdirSync(tmp);
			const session = await piSession(host, at, { ...env, TMPDIR: tmp }, searchThenCall(host));
			expect(session.code, session.out).toBe(0);
			expect(session.out).toContain("RESULT The sum of 2 and 3 is 5.");
			expect(session.out).not.toMatch(/peerDependencies|Cannot find module|cannot run|compiled/);
			expect(compiledBy(tmp)).toEqual([]);
			// The install holds what runs, built: no TypeScript, no dev dependency, no TypeBox of its own, no tests.
			const modules = host.pi1 ? join(at.agentDir, "npm") : join(at.home, "global", "lib");
			const installed = join(modules, "node_modules", "pi-mcp-proxy");
			expect(existsSync(join(installed, "dist", "index.js"))).toBe(true);
			expect(typeScriptIn(installed)).toEqual([]);
			for (const absent of ["tsx", "esbuild", "verdaccio", "vitest", "@sinclair/typebox", "typebox-for-cli"]) {
				expect(existsSync(join(modules, "node_modules", absent)), absent).toBe(false);
				expect(existsSync(join(installed, "node_modules", absent)), absent).toBe(false);
			}
			expect(existsSync(join(installed, "tests"))).toBe(false);
			// A server's sampling request, answered with the session's model: Pi lends pi 0.73's pi-ai only
			// to the code its loader compiles; the built package finds it beside Pi.
			await samplingAnswered(host, installed);
			const status = await runCommand(installedBin(host, at), ["status"], at.cwd, env);
			expect(status.code, status.out).toBe(0);
			expect(status.out).toContain("- everything: ");
			if (!host.pi1) return;
			// Every line of docs/cli.md's shell block, as written (the demo first: it fetches server-everything).
			await runDocumentedShellBlock(installedBin(host, at), at, env);
		},
		600_000,
	);

	it.each(PI_HOSTS)(
		"$name: pi install git:<address> (npm installs its dependencies), then a session finds and calls a server's tool",
		async (host) => {
			const at = emptyHome(dir.path, `git-${host.name}`);
			const env = homeEnv(at, registry.url);
			const install = await runCommand(host.node, [host.cli, "install", `git:${git.url}`], at.cwd, env);
			expect(install.code, install.out).toBe(0);
			const session = await piSession(host, at, env, searchThenCall(host));
			expect(session.code, session.out).toBe(0);
			expect(session.out).toContain("RESULT The sum of 2 and 3 is 5.");
		},
		300_000,
	);
});
