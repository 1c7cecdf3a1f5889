// The first hour of a new user, as issue 36 tried it: three servers configured as their READMEs
// show them (`npx -y @modelcontextprotocol/server-<name>`, no version), an empty npm cache (a temp
// folder through npm_config_cache) and agent dir, a first `pi -p` that answers at once, then one
// run whose model calls each server. Repeated per Pi line, quiet and with the other core busy (a
// busy loop process). Reports servers answering / runs, and every npx folder npm left: complete,
// or half-installed (node_modules without the folder's package.json). With `--search`, the first
// run searches for each server's tool instead of saying hello (the first search on a cold cache).
// Needs the npm registry. Run: npx tsx bench/cold-npx-trial.ts [runs] [--search] [--host pi-0.73|pi-1.5|pi-1.6]
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { waitUntil } from "../tests/support/helpers.ts";
import { type ChatRequest, lastToolMessage, type Step } from "../tests/support/mock-openai.ts";
import { createPiHome, runPi } from "../tests/support/pi-cli-harness.ts";
import { ensurePi1Lines, PI_HOSTS, type PiHost } from "../tests/support/pi-hosts.ts";

const argv = process.argv.slice(2);
const RUNS = Number(argv.find((a) => /^\d+$/.test(a)) ?? 5);
const SEARCH = argv.includes("--search");
const HOST = argv.includes("--host") ? argv[argv.indexOf("--host") + 1] : undefined;
const LOADS = argv.includes("--quiet") ? [false] : argv.includes("--loaded") ? [true] : [false, true];

/** Each server, the tool a model calls, its arguments, what its answer contains, and a search that finds it. */
const SERVERS = [
	{ name: "memory", tool: "read_graph", args: {}, expect: /entities/, search: "read the knowledge graph" },
	{ name: "everything", tool: "get-sum", args: { a: 2, b: 3 }, expect: /5/, search: "add two numbers" },
	{ name: "files", tool: "list_allowed_directories", args: {}, expect: /work/, search: "allowed directories" },
] as const;

interface Trial {
	readonly answered: number;
	readonly found: number;
	readonly half: string[];
	readonly complete: number;
	readonly errors: string[];
	readonly load: number;
	readonly seconds: number;
}

async function trial(host: PiHost): Promise<Trial> {
	const home = await createPiHome({});
	const started = Date.now();
	const npmCache = join(home.root, "npm-cache");
	const npx = (pkg: string, ...args: string[]) => ({
		command: "npx",
		args: ["-y", `@modelcontextprotocol/${pkg}`, ...args],
	});
	home.writeAgentFile(
		"mcp.json",
		JSON.stringify({
			mcpServers: {
				memory: { ...npx("server-memory"), env: { MEMORY_FILE_PATH: join(home.root, "memory.jsonl") } },
				everything: npx("server-everything"),
				files: npx("server-filesystem", home.cwd),
			},
		}),
	);
	const env = { PI_OFFLINE: "", npm_config_cache: npmCache };
	const errors: string[] = [];
	let found = 0;
	try {
		if (SEARCH) {
			const searches: Step[] = SERVERS.map((s, i) => (req: ChatRequest) => {
				if (i > 0 && new RegExp(`${SERVERS[i - 1].name}_${SERVERS[i - 1].tool}`).test(lastToolMessage(req))) found++;
				return { toolCall: { name: "mcp", arguments: { search: s.search } } };
			});
			const last = SERVERS[SERVERS.length - 1];
			searches.push((req) => {
				if (new RegExp(`${last.name}_${last.tool}`).test(lastToolMessage(req))) found++;
				else errors.push(`search ${last.search}: ${lastToolMessage(req).slice(0, 200)}`);
				return { text: "done" };
			});
			const first = await runPi(home, "find tools", { host, steps: searches, env, timeoutMs: 600_000 });
			if (first.code !== 0) errors.push(`search run exit ${first.code}: ${first.stderr.slice(0, 300)}`);
		} else {
			const hello = await runPi(home, "hello", { host, steps: [() => ({ text: "hi" })], env, timeoutMs: 600_000 });
			if (hello.code !== 0) errors.push(`hello exit ${hello.code}: ${hello.stderr.slice(0, 300)}`);
		}
		const results: string[] = [];
		const steps: Step[] = SERVERS.map((s, i) => (req: ChatRequest) => {
			if (i > 0) results.push(lastToolMessage(req));
			return { toolCall: { name: "mcp", arguments: { tool: `${s.name}_${s.tool}`, args: s.args } } };
		});
		steps.push((req) => {
			results.push(lastToolMessage(req));
			return { text: "done" };
		});
		const run = await runPi(home, "call each", { host, steps, env, timeoutMs: 600_000 });
		if (run.code !== 0) errors.push(`call run exit ${run.code}: ${run.stderr.slice(0, 300)}`);
		let answered = 0;
		SERVERS.forEach((s, i) => {
			const text = results[i] ?? "(no answer)";
			if (s.expect.test(text) && !/failed|not available|still starting|Error/i.test(text)) answered++;
			else errors.push(`${s.name}: ${text.slice(0, 300)}`);
		});
		// Installs may outlive the runs (detached, never cut): the folders are judged once they ended.
		const npxDir = join(npmCache, "_npx");
		const busy = () => existsSync(npxDir) && readdirSync(npxDir).some((n) => n.includes(".pi-mcp-install"));
		await waitUntil(() => !busy(), "the installs to end", 600_000).catch(() => errors.push("installs still running"));
		const folders = existsSync(npxDir) ? readdirSync(npxDir).filter((n) => /^[0-9a-f]{16}$/.test(n)) : [];
		const half = folders.filter(
			(f) => existsSync(join(npxDir, f, "node_modules")) && !existsSync(join(npxDir, f, "package.json")),
		);
		return {
			answered,
			found,
			half,
			complete: folders.length - half.length,
			errors,
			load: loadavg()[0],
			seconds: (Date.now() - started) / 1000,
		};
	} finally {
		await home.dispose();
	}
}

function busyLoop(): ChildProcess {
	return spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" });
}

async function main(): Promise<void> {
	ensurePi1Lines();
	const hosts = PI_HOSTS.filter((h) => !HOST || h.name === HOST);
	for (const loaded of LOADS) {
		for (const host of hosts) {
			let answered = 0;
			let found = 0;
			let half = 0;
			for (let i = 0; i < RUNS; i++) {
				const busy = loaded ? busyLoop() : undefined;
				try {
					const t = await trial(host);
					answered += t.answered;
					found += t.found;
					half += t.half.length;
					const searched = SEARCH ? `, first search found ${t.found}/3` : "";
					console.log(
						`${host.name} ${loaded ? "loaded" : "quiet"} run ${i + 1}: ${t.answered}/3 answered${searched}, ` +
							`${t.complete} complete / ${t.half.length} half-installed folders, load ${t.load.toFixed(1)}, ${t.seconds.toFixed(0)} s`,
					);
					for (const e of t.errors) console.log(`   ${e.replace(/\s+/g, " ")}`);
				} finally {
					busy?.kill("SIGKILL");
				}
			}
			const searched = SEARCH ? `; first search found ${found}/${RUNS * 3}` : "";
			console.log(
				`== ${host.name} ${loaded ? "loaded" : "quiet"}: ${answered}/${RUNS * 3} servers answered over ${RUNS} runs${searched}; ${half} half-installed folders`,
			);
		}
	}
}

await main();
