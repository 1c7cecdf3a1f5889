// The three Pi lines the extension supports, as the tests and benchmarks run them: pi 0.73.1 from
// devDependencies on this Node, and Pi 1.5.2 and Pi 1.6.0 (npm's latest) each from its npm tarball on
// Node >= 22.19 (two of Pi 1.x's workspace packages are left out: its bundle contains them). Each
// Pi 1.x is installed once per clone, by the first use of its host (tests/support/global-setup.ts
// makes that use before the test workers start).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureNode22 } from "../../scripts/node22.ts";
import { ROOT } from "./helpers.ts";

/** The Pi 1.x versions tested, oldest first. */
export const PI1_VERSIONS = ["1.5.2", "1.6.0"] as const;
export type Pi1Version = (typeof PI1_VERSIONS)[number];

export interface PiHost {
	readonly name: "pi-0.73" | "pi-1.5" | "pi-1.6";
	/** Pi 1.x: a built-in MCP the extension replaces, tool exposure, project trust, codemode and tool_search. */
	readonly pi1: boolean;
	/** The Node binary that runs this Pi. */
	readonly node: string;
	/** Its CLI entry point. */
	readonly cli: string;
}

export const PI15_VERSION: Pi1Version = "1.5.2";
export const PI16_VERSION: Pi1Version = "1.6.0";

/** Where a Pi 1.x is installed for the tests (`npm ci` clears it). */
function cacheDir(version: Pi1Version): string {
	return join(ROOT, "node_modules", ".cache", `pi-${version}`);
}

export const PI_073: PiHost = {
	name: "pi-0.73",
	pi1: false,
	node: process.execPath,
	cli: join(ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js"),
};

/**
 * Pi 1.x of `version` installed in `dir`, on Node >= 22.19 (this Node if new enough): each is
 * installed by the first read of `node` or `cli`, so whatever runs it (a test, a benchmark) has it.
 */
export function pi1Host(version: Pi1Version, dir = cacheDir(version)): PiHost {
	return {
		name: version === PI15_VERSION ? "pi-1.5" : "pi-1.6",
		pi1: true,
		get node() {
			return ensureNode22();
		},
		get cli() {
			return ensurePi1(version, dir);
		},
	};
}

export const PI_15: PiHost = pi1Host(PI15_VERSION);
export const PI_16: PiHost = pi1Host(PI16_VERSION);

/** The Pi 1.x lines: what runs Pi 1.5 alone (its built-in MCP beside ours, its exposure, trust) runs on each. */
export const PI1_HOSTS: readonly PiHost[] = [PI_15, PI_16];

/** Every Pi line: the real-Pi CLI, rpc and TUI tests run on each. */
export const PI_HOSTS: readonly PiHost[] = [PI_073, ...PI1_HOSTS];

/**
 * Installs Pi 1.x `version` in `dir` (default under node_modules/.cache; once) and returns its CLI:
 * `npm pack`, then its dependencies from its lock in tests/fixtures (made once with `npm install
 * --package-lock-only` on the package.json written below), without the unpublished workspace
 * packages, which its bundle contains.
 */
export function ensurePi1(version: Pi1Version, dir = cacheDir(version)): string {
	ensureNode22();
	const cli = join(dir, "package", "dist", "bundle", "cli.js");
	if (existsSync(cli) && existsSync(join(dir, "package", "node_modules", "jiti"))) return cli;
	const staging = `${dir}.${process.pid}.tmp`;
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	const npm = (args: string[], cwd: string) =>
		execFileSync("npm", args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
	const tarball = npm(["pack", `@earendil-works/pi-coding-agent@${version}`, "--silent"], staging)
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
	// Every transitive version pinned, with its integrity: the same Pi on every machine and every run.
	const lock = join(ROOT, "tests", "fixtures", `pi-${version}.package-lock.json`);
	copyFileSync(lock, join(staging, "package", "package-lock.json"));
	npm(["ci", "--omit=dev", "--no-audit", "--no-fund"], join(staging, "package"));
	rmSync(dir, { recursive: true, force: true });
	renameSync(staging, dir);
	return cli;
}

/** Installs every Pi 1.x line (before the test workers start, so two never install the same one). */
export function ensurePi1Lines(): void {
	for (const version of PI1_VERSIONS) ensurePi1(version);
}
