// What a user downloads and keeps: the package as `npm pack` makes it (packed and unpacked), and
// what `pi install npm:pi-mcp-proxy` puts on disk with its production dependencies, installed
// from that tarball the way Pi 1.5 installs a package (`npm install <spec> --prefix <dir>
// --omit=dev --legacy-peer-deps`), from the registry npm is configured with (the tarball holds the
// JavaScript `npm pack` built: scripts/build.ts). Also the CLI's start: its first run, then the next.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { folderBytes } from "../tests/support/local-registry.ts";

const ROOT = join(import.meta.dirname, "..");
const MB = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** The packages a folder's node_modules holds, scoped ones by their scope's members. */
function packages(modules: string): string[] {
	return readdirSync(modules)
		.filter((name) => !name.startsWith("."))
		.flatMap((name) => (name.startsWith("@") ? readdirSync(join(modules, name)).map((s) => `${name}/${s}`) : [name]));
}

export async function main(): Promise<void> {
	const dir = mkdtempSync(join(tmpdir(), "pi-mcp-size-"));
	try {
		const [packed] = JSON.parse(
			execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: ROOT, encoding: "utf8" }),
		) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
		const prefix = join(dir, "pi");
		mkdirSync(prefix);
		writeFileSync(join(prefix, "package.json"), JSON.stringify({ name: "pi-extensions", private: true }));
		const npm = ["install", join(dir, packed.filename), "--prefix", prefix, "--omit=dev", "--legacy-peer-deps"];
		execFileSync("npm", [...npm, "--no-audit", "--no-fund"], { cwd: dir, stdio: "ignore" });
		const modules = join(prefix, "node_modules");
		const sizes = packages(modules)
			.map((name) => ({ name, bytes: folderBytes(join(modules, name)) }))
			.sort((a, b) => b.bytes - a.bytes);
		const total = sizes.reduce((sum, p) => sum + p.bytes, 0);
		console.log("Package size (npm pack; pi install npm:pi-mcp-proxy, as Pi 1.5 installs it)");
		console.log(`  packed ${MB(packed.size)}, unpacked ${MB(packed.unpackedSize)} (${packed.entryCount} files)`);
		console.log(`  installed with production dependencies: ${MB(total)} in ${sizes.length} packages`);
		console.log(
			`  largest: ${sizes
				.slice(0, 6)
				.map((p) => `${p.name} ${MB(p.bytes)}`)
				.join(", ")}`,
		);
		// The shell command: its first run, then the next (a clone's would compile its TypeScript into jiti's cache first).
		const bin = join(modules, ".bin", "pi-mcp-proxy");
		const env = {
			...process.env,
			HOME: dir,
			PI_CODING_AGENT_DIR: join(dir, "agent"),
			JITI_FS_CACHE: join(dir, "jiti"),
		};
		const timed = () => {
			const start = performance.now();
			execFileSync(bin, ["status"], { cwd: dir, env, stdio: "ignore" });
			return performance.now() - start;
		};
		const cold = timed();
		const warm = [timed(), timed(), timed()].sort((a, b) => a - b)[1];
		console.log(`  \`pi-mcp-proxy status\` (no server): first run ${cold.toFixed(0)} ms, then ${warm.toFixed(0)} ms`);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
