// Where the install tests get the package from, as a user would: an npm registry (verdaccio, on
// 127.0.0.1, its storage in the test's folder, the package published to it from `npm pack`, every
// other package proxied from the registry npm is configured with) and a git server (the working
// tree committed to a bare repository, served over git's "dumb" HTTP by a static file server).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, createReadStream, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { dirname, join, normalize } from "node:path";
import { ensureNode22 } from "../../scripts/node22.ts";
import { freePort, ROOT, stopChild, waitForPort } from "./helpers.ts";
import { ensurePackage } from "./npm-package.ts";

/**
 * Verdaccio, installed on first use (it needs Node 22: as a devDependency its engines warned at
 * every `npm ci` on Node 20). Its lock was made with `npm install --package-lock-only --omit=dev`
 * on its package.json as ensurePackage writes it; 2.7.0 stands for verdaccio-audit's `node-fetch@cjs`,
 * a dist-tag the registry does not have.
 */
const VERDACCIO_VERSION = "6.10.4";
const verdaccio = () =>
	ensurePackage(
		"verdaccio",
		VERDACCIO_VERSION,
		join(ROOT, "tests", "fixtures", `verdaccio-${VERDACCIO_VERSION}.package-lock.json`),
		{ "verdaccio-audit": { "node-fetch": "2.7.0" } },
	);

const run = (command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): string =>
	execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

export interface LocalRegistry {
	readonly url: string;
	/** The package as `npm pack` made it (published to this registry). */
	readonly tarball: string;
	close(): Promise<void>;
}

/** Packs this package into `dir`, starts verdaccio there and publishes the tarball to it. */
export async function startRegistry(dir: string): Promise<LocalRegistry> {
	const upstream = run("npm", ["config", "get", "registry"], ROOT).trim();
	const port = await freePort();
	const url = `http://127.0.0.1:${port}/`;
	const config = join(dir, "verdaccio.yaml");
	// JSON is YAML, the format verdaccio reads its config in.
	writeFileSync(
		config,
		JSON.stringify({
			storage: join(dir, "storage"),
			uplinks: { upstream: { url: upstream } },
			packages: {
				"pi-mcp-proxy": { access: "$all", publish: "$authenticated" },
				"**": { access: "$all", proxy: "upstream" },
			},
			auth: { htpasswd: { file: join(dir, "htpasswd"), max_users: 1 } },
			log: { type: "stdout", format: "pretty", level: "error" },
		}),
	);
	// Verdaccio 6 needs Node 22.
	const child: ChildProcess = spawn(
		ensureNode22(),
		[join(verdaccio(), "bin", "verdaccio"), "--config", config, "--listen", `127.0.0.1:${port}`],
		{ cwd: dir, stdio: "ignore" },
	);
	try {
		await waitForPort(port, child);
		const user = await fetch(`${url}-/user/org.couchdb.user:tester`, {
			method: "PUT",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ name: "tester", password: "not-a-secret-test" }),
		});
		const { token } = (await user.json()) as { token: string };
		const npmrc = join(dir, "publish.npmrc");
		writeFileSync(npmrc, `//127.0.0.1:${port}/:_authToken=${token}\n`);
		const tarball = join(
			dir,
			run("npm", ["pack", "--pack-destination", dir, "--silent"], ROOT).trim().split("\n").pop() as string,
		);
		run("npm", ["publish", tarball, "--registry", url, "--userconfig", npmrc, "--no-provenance"], dir);
		return { url, tarball, close: () => stopChild(child) };
	} catch (error) {
		await stopChild(child);
		throw error;
	}
}

export interface GitServer {
	/** The repository's address, as `pi install` takes it. */
	readonly url: string;
	close(): Promise<void>;
}

/**
 * This working tree (tracked and untracked files that git does not ignore) as the one commit of a
 * bare repository under `dir`, served over HTTP on 127.0.0.1: what `git clone` of the project gets.
 */
export async function startGitServer(dir: string): Promise<GitServer> {
	const work = join(dir, "tree");
	copyWorkingTree(work);
	const git = (args: string[], cwd: string) =>
		run("git", ["-c", "user.name=test", "-c", "user.email=test@127.0.0.1", ...args], cwd);
	git(["init", "-q", "-b", "main"], work);
	git(["add", "-A"], work);
	git(["commit", "-q", "-m", "the working tree"], work);
	const bare = join(dir, "repos", "team", "pi-mcp-proxy.git");
	git(["clone", "-q", "--bare", work, bare], dir);
	git(["update-server-info"], bare); // the files git's dumb HTTP reads
	const root = join(dir, "repos");
	const server: Server = createServer((req, res) => {
		const path = normalize(join(root, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)));
		const file = path.startsWith(`${root}/`) ? statSync(path, { throwIfNoEntry: false }) : undefined;
		if (!file?.isFile()) {
			res.writeHead(404).end();
			return;
		}
		res.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.size });
		createReadStream(path).pipe(res);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as { port: number };
	return {
		url: `http://127.0.0.1:${port}/team/pi-mcp-proxy.git`,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** This working tree's files that git does not ignore (tracked or not) into `dest`: what a clone holds, without node_modules. */
export function copyWorkingTree(dest: string): void {
	const files = run("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], ROOT)
		.split("\0")
		.filter((file) => file !== "" && statSync(join(ROOT, file), { throwIfNoEntry: false })?.isFile());
	for (const file of files) {
		mkdirSync(dirname(join(dest, file)), { recursive: true });
		cpSync(join(ROOT, file), join(dest, file));
	}
}

/** The size of a folder's files in bytes (what a user's disk holds of an install). */
export function folderBytes(path: string): number {
	let total = 0;
	for (const entry of readdirSync(path, { withFileTypes: true })) {
		const full = join(path, entry.name);
		if (entry.isDirectory()) total += folderBytes(full);
		else if (entry.isFile()) total += statSync(full).size;
	}
	return total;
}
