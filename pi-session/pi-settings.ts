// Pi's own settings files, as this extension reads them: the user's (<agentDir>/settings.json) and
// the project's (.pi/settings.json), each with the folder its relative paths start from. Written
// only for the one change made with the user's yes (pi-session/replaced-builtins.ts), the way Pi's
// settings manager writes it: under the file's lock (proper-lockfile, as Pi takes it), merged into
// the file as it is at that moment, two-space JSON.
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../storage/file-guard.ts";
import { readJsonFile, withFileLock } from "../storage/locked-json.ts";

export type PiSettings = Readonly<Record<string, unknown>>;

export interface PiSettingsFile {
	readonly scope: "user" | "project";
	readonly path: string;
	/** Where its relative paths (a local package's folder) start. */
	readonly dir: string;
	/** Its content; undefined when there is none or it is not a JSON object. */
	readonly settings: PiSettings | undefined;
}

/** The user's settings file, then the project's. */
export function piSettingsFiles(agentDir: string, cwd: string): PiSettingsFile[] {
	return [
		{ scope: "user" as const, path: join(agentDir, "settings.json") },
		{ scope: "project" as const, path: join(cwd, ".pi", "settings.json") },
	].map((file) => ({ ...file, dir: dirname(file.path), settings: asSettings(readJsonFile(file.path)) }));
}

function asSettings(raw: unknown): PiSettings | undefined {
	return raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as PiSettings) : undefined;
}

/** A list setting (`extensions`, `packages`): its entries, or none. */
export function listSetting(settings: PiSettings | undefined, key: string): readonly unknown[] {
	const value = settings?.[key];
	return Array.isArray(value) ? value : [];
}

/**
 * Changes one setting of a settings file under its lock, as Pi does, keeping every other key and
 * the file's mode. Throws when the file is there but is not a JSON object: Pi could not read it either.
 */
export async function updatePiSetting(path: string, key: string, update: (current: unknown) => unknown): Promise<void> {
	await withFileLock(path, () => {
		const raw = readJsonFile(path);
		const settings = raw === "missing" ? {} : asSettings(raw);
		if (!settings) throw new Error(`${path} is not a JSON object; Pi reports what is wrong with it at its start`);
		const mode = raw === "missing" ? 0o644 : statSync(path).mode & 0o777;
		writeFileAtomic(path, JSON.stringify({ ...settings, [key]: update(settings[key]) }, null, 2), { mode });
	});
}
