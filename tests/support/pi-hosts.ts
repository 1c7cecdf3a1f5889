// The two Pi lines the extension supports, as the tests run them: pi 0.73.1 from devDependencies
// on this Node, and Pi 1.5.2 from its npm tarball on Node >= 22.19 (both installed once per clone
// by tests/support/global-setup.ts, since two of Pi 1.5's workspace packages are not published to npm).
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
const PI15_CLI = join(PI15_DIR, "package", "dist", "bundle", "cli.js");
/** Its dependencies' lock (made once with `npm install --package-lock-only` on the package.json below). */
const PI15_LOCK = join(ROOT, "tests", "fixtures", `pi-${PI15_VERSION}.package-lock.json`);

export const PI_073: PiHost = {
	name: "pi-0.73",
	node: process.execPath,
	cli: join(ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js"),
};

/** Pi 1.5 on Node >= 22.19 (this Node if new enough; else installed by global setup, already there in workers). */
export const PI_15: PiHost = {
	name: "pi-1.5",
	get node() {
		return ensureNode22();
	},
	cli: PI15_CLI,
};

/** Both Pi lines: the real-Pi CLI and rpc tests run on each. */
export const PI_HOSTS: readonly PiHost[] = [PI_073, PI_15];

/**
 * Installs Pi 1.5.2 under node_modules/.cache (once; `npm ci` clears it): `npm pack`, then its
 * dependencies from the lock in tests/fixtures, without the two unpublished workspace packages
 * (its bundle contains them).
 */
export function ensurePi15(): void {
	ensureNode22();
	if (existsSync(PI15_CLI) && existsSync(join(PI15_DIR, "package", "node_modules", "jiti"))) return;
	const staging = `${PI15_DIR}.${process.pid}.tmp`;
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
	rmSync(PI15_DIR, { recursive: true, force: true });
	renameSync(staging, PI15_DIR);
}
