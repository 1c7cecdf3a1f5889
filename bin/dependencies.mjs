// Which of this package's dependencies Node would not find, and the one line that says how to
// install them. Plain JavaScript: the shell command runs it before it can load TypeScript (its
// loader, jiti, is one of those dependencies); the extension runs it before anything imports one.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** This package's folder. */
export const PACKAGE_ROOT = join(import.meta.dirname, "..");

/**
 * The `dependencies` of the package's manifest that are not installed where Node looks for them
 * (`node_modules` of the package's folder and of each folder above it: a Pi install hoists them).
 * A folder without its package.json counts as missing: npm writes it last, so it marks an install
 * cut short.
 * @param {string} [root]
 * @returns {string[]}
 */
export function missingDependencies(root = PACKAGE_ROOT) {
	const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
	return Object.keys(manifest.dependencies ?? {}).filter((name) => !installed(name, root));
}

/**
 * @param {string} name
 * @param {string} from
 */
function installed(name, from) {
	for (let dir = from; ; dir = dirname(dir)) {
		if (existsSync(join(dir, "node_modules", name, "package.json"))) return true;
		if (dirname(dir) === dir) return false;
	}
}

/**
 * The one line a user sees: what is missing, what runs meanwhile (if anything), and the command
 * that installs it, last, so that it copies whole.
 * @param {readonly string[]} missing
 * @param {{ root?: string, meanwhile?: string }} [options]
 * @returns {string}
 */
export function missingDependenciesLine(missing, { root = PACKAGE_ROOT, meanwhile } = {}) {
	const named =
		missing.length > 3 ? `${missing.slice(0, 3).join(", ")} and ${missing.length - 3} more` : missing.join(", ");
	return `pi-mcp-proxy cannot run: its dependencies are not installed (${named})${meanwhile ? `; ${meanwhile}` : ""}. Fix: npm install --omit=dev --prefix ${shellQuote(root)}`;
}

/** @param {string} text */
function shellQuote(text) {
	return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
