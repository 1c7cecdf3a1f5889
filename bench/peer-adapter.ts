// The other Pi MCP extension, pi-mcp-adapter 2.36.0 from npm, for side-by-side benchmarks on Pi 1.5.
// Installed once under node_modules/.cache from its tarball with a kept lock (every version pinned),
// without its dev and peer dependencies (Pi provides pi-ai, pi-tui and typebox to extensions).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../tests/support/helpers.ts";

export const PEER_VERSION = "2.36.0";
const DIR = join(ROOT, "node_modules", ".cache", `pi-mcp-adapter-${PEER_VERSION}`);
const LOCK = join(ROOT, "bench", `pi-mcp-adapter-${PEER_VERSION}.package-lock.json`);

/** The folder Pi loads the peer from (`pi -e <folder>`), installed on first use. */
export function ensurePeerAdapter(): string {
	const folder = join(DIR, "package");
	if (existsSync(join(folder, "node_modules"))) return folder;
	const staging = `${DIR}.${process.pid}.tmp`;
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	const npm = (args: string[], cwd: string) =>
		execFileSync("npm", args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
	const tarball = npm(["pack", `pi-mcp-adapter@${PEER_VERSION}`, "--silent"], staging)
		.trim()
		.split("\n")
		.pop() as string;
	execFileSync("tar", ["xzf", tarball], { cwd: staging });
	const pkgFile = join(staging, "package", "package.json");
	const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as Record<string, unknown>;
	delete pkg.devDependencies;
	delete pkg.peerDependencies;
	delete pkg.scripts;
	writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
	copyFileSync(LOCK, join(staging, "package", "package-lock.json"));
	npm(["ci", "--omit=dev", "--no-audit", "--no-fund", "--ignore-scripts"], join(staging, "package"));
	rmSync(DIR, { recursive: true, force: true });
	renameSync(staging, DIR);
	return folder;
}
