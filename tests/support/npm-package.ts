// A published package installed once under node_modules/.cache (`npm ci` clears it), as Pi installs
// a package: its tarball from the registry, its dependencies from a lock kept in the repository
// (every version pinned, with its integrity), never its dev dependencies, peers (Pi provides them)
// or scripts. A run that dies half way leaves only a staging folder the next run replaces. Also
// how dev tools that need Node 22 come (verdaccio, the MCP conformance suite): not devDependencies,
// whose engines would warn at every `npm ci` on Node 20.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers.ts";

/**
 * The package's folder (`<cache>/<name>-<version>/package`), installed on first use. `overrides`:
 * npm's, as the lock was made with them (a dependency's version the registry cannot resolve).
 */
export function ensurePackage(
	name: string,
	version: string,
	lock: string,
	overrides?: Readonly<Record<string, unknown>>,
): string {
	const dir = join(ROOT, "node_modules", ".cache", `${name}-${version}`);
	const folder = join(dir, "package");
	if (existsSync(join(folder, "node_modules"))) return folder;
	const staging = `${dir}.${process.pid}.tmp`;
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	const npm = (args: string[], cwd: string) =>
		execFileSync("npm", args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
	const tarball = npm(["pack", `${name}@${version}`, "--silent"], staging)
		.trim()
		.split("\n")
		.pop() as string;
	execFileSync("tar", ["xzf", tarball], { cwd: staging });
	const pkgFile = join(staging, "package", "package.json");
	const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as Record<string, unknown>;
	delete pkg.devDependencies;
	delete pkg.peerDependencies;
	delete pkg.scripts;
	if (overrides) pkg.overrides = overrides;
	writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
	copyFileSync(lock, join(staging, "package", "package-lock.json"));
	npm(["ci", "--omit=dev", "--no-audit", "--no-fund", "--ignore-scripts"], join(staging, "package"));
	rmSync(dir, { recursive: true, force: true });
	renameSync(staging, dir);
	return folder;
}
