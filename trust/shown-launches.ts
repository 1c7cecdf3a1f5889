// What the user was shown, so a yes given later without a dialog covers exactly that. Each time
// launches awaiting approval are printed (the start of `pi -p`, `/mcp approve` where Pi cannot
// ask, the shell's `approve`) they get a short random code, kept with each server's launch
// identity and a digest of every line shown in <agentDir>/mcp-shown-launches.json. `approve
// <code>` approves those launches and nothing else; when the config changed since, nothing is
// approved and the lines that are new are named. The code is a handle, not a secret: the yes is
// bound by the full launch hash kept with it, so a config cannot be made to match a code.
import { createHash, randomInt } from "node:crypto";
import { join } from "node:path";
import { readJsonFile, updateJsonFile } from "../storage/locked-json.ts";
import type { ServerEntry } from "../types.ts";
import { parseProjectsFile } from "./project-approval.ts";

export const SHOWN_FILE = "mcp-shown-launches.json";

/** Displays kept per project: enough for a few clones' worth of runs, small enough to read at once. */
const KEPT_PER_PROJECT = 16;
/** Letters and digits that read unambiguously ("k7m-q2x"): 31^6, about 900 million codes. */
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const CODE = /^[a-z2-9]{3}-[a-z2-9]{3}$/;

export function isShownCode(text: string): boolean {
	return CODE.test(text);
}

interface ShownServer {
	/** The launch identity shown (`LaunchIdentity.hash`): what `approve <code>` approves. */
	readonly hash: string;
	/** A digest of each line shown, to tell which lines are new when the config changed. */
	readonly lines: readonly string[];
}

export interface ShownRecord {
	readonly at: number;
	readonly servers: Readonly<Record<string, ShownServer>>;
}

const parseShown = (raw: unknown) => parseProjectsFile<ShownRecord>(raw);

/** One project's displays of launches awaiting approval. */
export class ShownLaunches {
	private readonly path: string;

	constructor(
		agentDir: string,
		private readonly project: string,
		private readonly now: () => number = Date.now,
	) {
		this.path = join(agentDir, SHOWN_FILE);
	}

	/**
	 * Keeps what is being shown (each entry with the text it is shown as) and returns its code. The
	 * same launches shown again keep their code, so every run of an unchanged project prints the same.
	 */
	async record(shown: readonly { entry: ServerEntry; text: string }[]): Promise<string> {
		const servers = Object.fromEntries(
			shown.map(({ entry, text }) => [entry.name, { hash: entry.launch.hash, lines: lineDigests(text) }]),
		);
		const key = sameKey(servers);
		let code = "";
		await updateJsonFile(this.path, parseShown, (file) => {
			const displays = { ...(file.projects[this.project] ?? {}) };
			code = Object.keys(displays).find((c) => sameKey(displays[c].servers) === key) ?? newCode(displays);
			displays[code] = { at: this.now(), servers };
			const kept = Object.entries(displays)
				.sort(([, a], [, b]) => b.at - a.at)
				.slice(0, KEPT_PER_PROJECT);
			return { version: 1 as const, projects: { ...file.projects, [this.project]: Object.fromEntries(kept) } };
		});
		return code;
	}

	/** What was shown with `code` in this project, if it was. */
	lookup(code: string): ShownRecord | undefined {
		const projects = parseShown(readJsonFile(this.path)).projects;
		return Object.hasOwn(projects[this.project] ?? {}, code) ? projects[this.project][code] : undefined;
	}
}

/** How the config now stands against what was shown. */
export interface ShownComparison {
	/** Entries whose launch is the one shown: the ones a yes to that display covers. */
	readonly same: ServerEntry[];
	/** Entries whose launch changed since: with the lines of their description that were not shown. */
	readonly changed: { entry: ServerEntry; newLines: string[] }[];
	/** Servers shown that the config no longer has. */
	readonly gone: string[];
}

export function compareShown(
	record: ShownRecord,
	current: (name: string) => ServerEntry | undefined,
	describe: (entry: ServerEntry) => string,
): ShownComparison {
	const result: ShownComparison = { same: [], changed: [], gone: [] };
	for (const [name, shown] of Object.entries(record.servers)) {
		const entry = current(name);
		if (!entry) result.gone.push(name);
		else if (entry.launch.hash === shown.hash) result.same.push(entry);
		else {
			const seen = new Set(shown.lines);
			const newLines = describe(entry)
				.split("\n")
				.filter((line) => !seen.has(digest(line)));
			result.changed.push({ entry, newLines });
		}
	}
	return result;
}

function lineDigests(text: string): string[] {
	return text.split("\n").map(digest);
}

function digest(line: string): string {
	return createHash("sha256").update(line.trim()).digest("hex").slice(0, 16);
}

function sameKey(servers: Readonly<Record<string, ShownServer>>): string {
	return Object.entries(servers)
		.map(([name, s]) => `${name}\u0000${s.hash}`)
		.sort()
		.join("\n");
}

function newCode(taken: Readonly<Record<string, unknown>>): string {
	for (;;) {
		const letters = Array.from({ length: 6 }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
		const code = `${letters.slice(0, 3)}-${letters.slice(3)}`;
		if (!Object.hasOwn(taken, code)) return code;
	}
}
