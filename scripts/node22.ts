// Node >= 22.19 for what needs it (Pi 1.5, the MCP conformance suite) while the project itself
// runs on the user's Node (20 on CI). Installed on first use from npm's per-platform Node
// packages into node_modules/.cache/node-22, not as a devDependency: that package links
// node_modules/.bin/node, which would silently run every npm script on Node 22.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const VERSION = "22.23.3";
const PLATFORM = `${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;
const DIR = join(ROOT, "node_modules", ".cache", `node-${VERSION}`);
const BINARY = join(DIR, "node_modules", `node-${PLATFORM}`, "bin", process.platform === "win32" ? "node.exe" : "node");

/** Whether this process's Node can run Pi 1.5 (>= 22.19). */
export function isNode22(version: string = process.versions.node): boolean {
	const [major, minor] = version.split(".").map(Number);
	return major > 22 || (major === 22 && minor >= 19);
}

/** A Node >= 22.19 binary: this one if new enough, else one installed once from npm. */
export function ensureNode22(): string {
	if (isNode22()) return process.execPath;
	if (existsSync(BINARY)) return BINARY;
	const staging = `${DIR}.${process.pid}.tmp`;
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	execFileSync(
		"npm",
		[
			"install",
			"--prefix",
			staging,
			"--no-save",
			"--no-package-lock",
			"--no-audit",
			"--no-fund",
			`node-${PLATFORM}@${VERSION}`,
		],
		{
			stdio: ["ignore", "pipe", "pipe"],
		},
	);
	rmSync(DIR, { recursive: true, force: true });
	renameSync(staging, DIR);
	if (!existsSync(BINARY)) throw new Error(`npm installed node-${PLATFORM}@${VERSION} but ${BINARY} is missing`);
	return BINARY;
}
