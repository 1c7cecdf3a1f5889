// The two Pi lines the extension supports, as the tests and benchmarks run them: pi 0.73.1 from
// devDependencies on this Node, and Pi 1.5.2 from its npm tarball on Node >= 22.19 (two of Pi 1.5's
// workspace packages are not published to npm). Both are installed once per clone, by the first
// use of PI_15 (tests/support/global-setup.ts makes that use before the test workers start).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureNode22 } from "../../scripts/node22.ts";
import { ROOT } from "./helpers.ts";

export interface PiHost {
	readonly name: "pi-0.73" | "pi-1.5";
	/** The Node binary that runs this Pi. */
	readonly node: string;
	/** Its CLI entry point. */
	readonly cli: string;
}

export const PI15_VERSION = "1.5.2";
const PI15_DIR = join(ROOT, "node_modules", ".cache", `pi-${PI15_VERSION}`);
/** Its dependencies' lock (made once with `npm install --package-lock-only` on the package.json below). */
const PI15_LOCK = join(ROOT, "tests", "fixtures", `pi-${PI15_VERSION}.package-lock.json`);

export const PI_073: PiHost = {
	name: "pi-0.73",
	node: process.execPath,
	cli: join(ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js"),
};

/**
 * Pi 1.5 installed in `dir`, on Node >= 22.19 (this Node if new enough): each is installed by the
 * first read of `node` or `cli`, so whatever runs Pi 1.5 (a test, a benchmark) has it.
 */
export function pi15Host(dir: string): PiHost {
	return {
		name: "pi-1.5",
		get node() {
			return ensureNode22();
		},
		get cli() {
			return ensurePi15(dir);
		},
	};
}

export const PI_15: PiHost = pi15Host(PI15_DIR);

/** Both Pi lines: the real-Pi CLI and rpc tests run on each. */
export const PI_HOSTS: readonly PiHost[] = [PI_073, PI_15];

/**
 * Installs Pi 1.5.2 in `dir` (default under node_modules/.cache; once: `npm ci` clears it) and
 * returns its CLI: `npm pack`, then its dependencies from the lock in tests/fixtures, without the
 * two unpublished workspace packages (its bundle contains them).
 */
export function ensurePi15(dir = PI15_DIR): string {
	ensureNode22();
	const cli = join(dir, "package", "dist", "bundle", "cli.js");
	if (existsSync(cli) && existsSync(join(dir, "package", "node_modules", "jiti"))) return cli;
	const staging = `${dir}.${process.pid}.tmp`;
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	const npm = (args: string[], cwd: string) =>
		execFileSync("npm", args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
	const tarball = npm(["pack", `@earendil-works/pi-coding-agent@${PI15_VERSION}`, "--silent"], staging)
		.trim()
		.split("\n")
		.pop() as string;
	execFileSync("tar", ["xzf", tarball], { cwd: staging });
	const pkgFile = join(staging, "package", "package.json");
	const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as {
		dependencies: Record<string, string>;
		devDependencies?: unknown;
		scripts?: unknown;
	};
	for (const name of Object.keys(pkg.dependencies)) {
		if (name.startsWith("@earendil-works/") || name === "lovely-mermaid") delete pkg.dependencies[name];
	}
	delete pkg.devDependencies;
	delete pkg.scripts;
	writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
	// Every transitive version pinned, with its integrity: the same Pi 1.5 on every machine and every run.
	copyFileSync(PI15_LOCK, join(staging, "package", "package-lock.json"));
	npm(["ci", "--omit=dev", "--no-audit", "--no-fund"], join(staging, "package"));
	rmSync(dir, { recursive: true, force: true });
	renameSync(staging, dir);
	return cli;
}
