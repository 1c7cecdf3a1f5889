// Installs through the slow npm stand-in (tests/fixtures/slow-npm.mjs): `npx` and `npm` scripts
// that run it, put first on PATH; its own npm cache; the log of the installs it started; and the
// gate that holds an install at its dangerous point (the package written, its dependency not yet)
// until the test lets it go on.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { npxInstallDir } from "../../npx-resolver.ts";
import { EVERYTHING, ROOT, waitUntil } from "./helpers.ts";

const SLOW_NPM = join(ROOT, "tests/fixtures/slow-npm.mjs");

export interface SlowNpm {
	readonly npmCache: string;
	/** The environment of everything that runs npm or npx here: PATH, npm's cache, the stand-in's settings. */
	readonly env: Record<string, string>;
	/** npm's npx folder for a spec, and the package's own folder in it. */
	folder(spec: string): string;
	packageDir(spec: string, name: string): string;
	/** The installs started so far, as `<npx|exec> <spec>`. */
	installs(): string[];
	/** Resolves once an install waits at the gate (it writes `<gate>.paused` first). */
	paused(): Promise<void>;
	/** Lets the install go on. */
	open(): void;
}

/** The stand-in under `root`: with `gate`, each install waits at the dangerous point for `open()`; else it takes INSTALL_MS. */
export function slowNpm(root: string, options: { gate?: boolean; env?: Record<string, string> } = {}): SlowNpm {
	const bin = join(root, "bin");
	const npmCache = join(root, "npm-cache");
	const log = join(root, "installs.log");
	const gate = join(root, "gate", "open");
	mkdirSync(bin, { recursive: true });
	mkdirSync(join(root, "gate"), { recursive: true });
	for (const tool of ["npx", "npm"]) {
		writeFileSync(join(bin, tool), `#!/bin/sh\nexec "${process.execPath}" "${SLOW_NPM}" ${tool} "$@"\n`, {
			mode: 0o755,
		});
	}
	const env = {
		PATH: `${bin}:${process.env.PATH}`,
		npm_config_cache: npmCache,
		SLOW_NPM_SERVER: EVERYTHING,
		SLOW_NPM_LOG: log,
		...(options.gate ? { SLOW_NPM_GATE: gate } : {}),
		...options.env,
	};
	return {
		npmCache,
		env,
		folder: (spec) => npxInstallDir(spec, npmCache),
		packageDir: (spec, name) => join(npxInstallDir(spec, npmCache), "node_modules", name),
		installs: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean) : []),
		paused: () => waitUntil(() => existsSync(`${gate}.paused`), "the install to wait at its gate", 120_000),
		open: () => writeFileSync(gate, ""),
	};
}
