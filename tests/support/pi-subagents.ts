// The real pi-subagents from npm (the version its users run), installed once under node_modules/.cache
// (`npm ci` clears it) as Pi installs a package: its dependencies, not its dev dependencies (which
// pin an unpublished Pi) nor its peers (Pi itself). Tests run its own code, never a copy of it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers.ts";

export const PI_SUBAGENTS_VERSION = "0.67.0";
const DIR = join(ROOT, "node_modules", ".cache", `pi-subagents-${PI_SUBAGENTS_VERSION}`);

/** The installed package's folder (installed on first use). */
export function ensurePiSubagents(): string {
	const pkg = join(DIR, "package");
	if (existsSync(join(pkg, "node_modules", "yaml"))) return pkg;
	const staging = `${DIR}.${process.pid}.tmp`;
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	const npm = (args: string[], cwd: string) =>
		execFileSync("npm", args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
	const tarball = npm(["pack", `pi-subagents@${PI_SUBAGENTS_VERSION}`, "--silent"], staging)
		.trim()
		.split("\n")
		.pop() as string;
	execFileSync("tar", ["xzf", tarball], { cwd: staging });
	const manifest = join(staging, "package", "package.json");
	const json = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, unknown>;
	delete json.devDependencies;
	delete json.scripts;
	writeFileSync(manifest, JSON.stringify(json, null, 2));
	npm(
		["install", "--omit=dev", "--omit=peer", "--legacy-peer-deps", "--ignore-scripts", "--no-audit", "--no-fund"],
		join(staging, "package"),
	);
	rmSync(DIR, { recursive: true, force: true });
	renameSync(staging, DIR);
	return pkg;
}
