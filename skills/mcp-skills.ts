// A session's MCP skills (SEP-2640) as Pi skills. At discovery each skill the allowed servers
// listed (from the cache, or the live listing) gets a folder with a SKILL.md holding only its Pi
// name and listed description, which is all Pi reads at start; nothing is fetched. When the model
// or the user reaches for the skill (a tool call naming its folder or a file in it, `/skill:name`),
// its SKILL.md is fetched from the server and checked against the server's entry (size, digest,
// frontmatter) before it replaces the stub; a supporting file is fetched, and checked, when a tool
// call names it. A skill that fails a check is not loaded, and the tool call that reached for it
// is refused with the reason. Each file's read first meets the approval a read of its resource
// needs (`SkillServers.approve`). Known secrets are masked from what is written.
import type { Client } from "@modelcontextprotocol/client";
import { getSkill, readSkillFile, type Skill, type SkillFile } from "../transport/skill-client.ts";
import { declined, entryDeclined, failureText } from "./skill-checks.ts";
import { loadedMarkdown, type SkillFolder, stubMarkdown } from "./skill-folder.ts";
import { type NamedSkill, nameSkills, type ServerSkills } from "./skill-names.ts";
import { clashingPaths, type Mention, mentions, skillFilePath } from "./skill-paths.ts";

/** A server's live connection, as far as skills need it. */
export interface SkillConnection {
	readonly client: Client;
	/** The entries it listed, as it sent them: a loaded skill's files are checked against its entry. */
	readonly skillEntries: readonly Skill[];
}

/** What loading a skill needs of the session: the same gate, connection and masking its tools have. */
export interface SkillServers {
	/** Why this server may not be reached now (awaiting approval, denied, not configured), if so. */
	blocked(server: string): string | undefined;
	connect(server: string, signal?: AbortSignal): Promise<SkillConnection>;
	/**
	 * Why a read of this skill file may not go out, if so: the approval its server's `approveTools`
	 * asks of the same read through `read_mcp_resource` (the user declined, or no one can be asked).
	 */
	approve(server: string, uri: string, signal?: AbortSignal): Promise<string | undefined>;
	/** The text with the session's known secrets masked. */
	mask(text: string): string;
	readonly requestTimeoutMs: number;
}

/** A loaded skill: the entry it was loaded under (every later file is checked against it), and what was written. */
interface Held {
	readonly entry: Skill;
	/** Each listed file's place in the folder, and its URI. */
	readonly files: ReadonlyMap<string, string>;
	/** What was written of each file (its digest): a file changed on disk since is fetched again. */
	readonly written: Map<string, string>;
}

export class McpSkills {
	private named = new Map<string, NamedSkill>();
	private declinedSkills: { server: string; name: string; why: string }[] = [];
	private readonly held = new Map<string, Held>();
	private readonly pending = new Map<string, Promise<unknown>>();
	private readonly failures = new Map<string, string>();

	constructor(
		private readonly folder: SkillFolder,
		private readonly servers: () => Promise<SkillServers>,
	) {}

	/** The folder for Pi's `skillPaths`, with a stub per offered skill (none when no server lists one). */
	discover(listings: readonly ServerSkills[], taken: ReadonlySet<string> = new Set()): string[] {
		this.held.clear();
		this.failures.clear();
		this.declinedSkills = [];
		const offered = listings.map(({ server, skills }) => ({
			server,
			skills: skills.filter((skill) => {
				const why = declined(skill);
				if (why) this.declinedSkills.push({ server, name: skill.name, why });
				return !why;
			}),
		}));
		this.named = new Map(nameSkills(offered, taken).map((skill) => [skill.piName, skill]));
		this.folder.reset();
		for (const skill of this.named.values())
			this.folder.write(
				skill.piName,
				"SKILL.md",
				stubMarkdown(skill.piName, skill.description, skill.server, skill.uri),
			);
		return this.named.size > 0 ? [this.folder.root] : [];
	}

	/** The skills offered, by Pi name. */
	get offered(): readonly NamedSkill[] {
		return [...this.named.values()];
	}

	/** Whether a tool call names an offered skill's folder or a file in it. */
	reachesFor(input: unknown, cwd: string): boolean {
		return this.mentioned(input, cwd).length > 0;
	}

	/**
	 * Fetches what a tool call names of the skills (their SKILL.md first); undefined when it may
	 * run, else why not (a check failed, the server is not reachable). Called once every hook has
	 * let the call through (pi-session/skill-events.ts).
	 */
	async beforeToolCall(input: unknown, cwd: string, signal?: AbortSignal): Promise<string | undefined> {
		const named = this.mentioned(input, cwd);
		const refusals = await Promise.all(named.map((m) => this.reasonIfFailed(m.piName, m.path, signal)));
		return refusals.find((why) => why !== undefined);
	}

	/**
	 * After a tool ran (so every hook let its call through): fetches what it named of the skills
	 * that was not on disk when it ran (its files were not fetched before it, as when another
	 * extension's hook answered the call after ours). Undefined when nothing was missing; else what
	 * the model is told instead of the result: run the call again, or why the skill did not load.
	 */
	async afterToolRan(input: unknown, cwd: string, signal?: AbortSignal): Promise<string | undefined> {
		const missed = this.mentioned(input, cwd).filter((m) => !this.written(m.piName, m.path));
		if (missed.length === 0) return undefined;
		const refusals = await Promise.all(missed.map((m) => this.reasonIfFailed(m.piName, m.path, signal)));
		const names = [...new Set(missed.map((m) => m.piName))];
		return (
			refusals.find((why) => why !== undefined) ??
			`This call ran before the MCP skill ${names.join(", ")} was fetched from its server (another extension's hook had the last word on the call); it is loaded now: run the call again.`
		);
	}

	/** Loads the skill `/skill:<name>` names before Pi reads it; undefined if done or not ours, else why not. */
	async beforeCommand(text: string, signal?: AbortSignal): Promise<string | undefined> {
		const name = /^\/skill:(\S+)/.exec(text)?.[1];
		return name && this.named.has(name) ? this.reasonIfFailed(name, "SKILL.md", signal) : undefined;
	}

	/** For /mcp: a server's skills, under their Pi names, and those not offered. */
	describe(server: string): string[] {
		const skills = this.offered.filter((s) => s.server === server);
		const lines = skills.length
			? [`skills: ${skills.map((s) => `${s.piName}${this.state(s.piName)}`).join(", ")}`]
			: [];
		for (const d of this.declinedSkills.filter((d) => d.server === server))
			lines.push(`skill ${d.name} not offered: ${d.why}`);
		return lines;
	}

	private state(piName: string): string {
		const failure = this.failures.get(piName);
		if (failure) return ` (not loaded: ${failure})`;
		return this.held.has(piName) ? " (loaded)" : "";
	}

	/** What a tool call names of the offered skills. */
	private mentioned(input: unknown, cwd: string): Mention[] {
		return mentions(input, this.folder.root, cwd).filter((m) => this.named.has(m.piName));
	}

	/**
	 * Whether what `path` names in the skill was written before (a tool that ran had it). Not whether
	 * it is unchanged: a tool that wrote there ran after its fetch, and is not asked to run again.
	 */
	private written(piName: string, path: string): boolean {
		const held = this.held.get(piName);
		return held !== undefined && wantedFiles(held, path).every((file) => held.written.has(file));
	}

	/** Removes the folder (the session ends). */
	close(): void {
		this.folder.remove();
	}

	private async reasonIfFailed(piName: string, path: string, signal?: AbortSignal): Promise<string | undefined> {
		try {
			await this.fetch(piName, path, signal);
			return undefined;
		} catch (error) {
			const skill = this.named.get(piName);
			const why = `The MCP skill ${piName} (server "${skill?.server}") was not loaded: ${failureText(error)}`;
			// The model reads this: a server's words, with the session's secrets masked (when the runtime is there to know them).
			return this.servers().then(
				(servers) => servers.mask(why),
				() => why,
			);
		}
	}

	/** What `path` names in the skill ("" the whole folder): fetched and checked unless already written and unchanged. */
	private async fetch(piName: string, path: string, signal?: AbortSignal): Promise<void> {
		const held = await this.load(piName, signal);
		await Promise.all(
			wantedFiles(held, path).map((file) =>
				this.once(`${piName}/${file}`, () => this.fetchFile(piName, held, file, signal)),
			),
		);
	}

	/** The skill's held entry, loading it (its SKILL.md fetched and checked) if it is not loaded. */
	private async load(piName: string, signal?: AbortSignal): Promise<Held> {
		const loaded = this.held.get(piName);
		if (loaded) return loaded;
		await this.once(`${piName}/`, () => this.loadSkill(piName, signal));
		const held = this.held.get(piName);
		if (!held) throw new Error(this.failures.get(piName) ?? "it could not be loaded");
		return held;
	}

	/** One run of `work` per key at a time: parallel tool calls naming one file fetch it once. */
	private async once(key: string, work: () => Promise<void>): Promise<void> {
		const running = this.pending.get(key);
		if (running) return void (await running);
		const run = work().finally(() => this.pending.delete(key));
		this.pending.set(key, run);
		await run;
	}

	private async loadSkill(piName: string, signal?: AbortSignal): Promise<void> {
		const skill = this.named.get(piName) as NamedSkill;
		try {
			const servers = await this.servers();
			const blocked = servers.blocked(skill.server);
			if (blocked) throw new Error(blocked);
			const connection = await servers.connect(skill.server, signal);
			const entry = await this.entryOf(connection, skill, servers.requestTimeoutMs, signal);
			const files = filesOf(entry);
			const held: Held = { entry, files, written: new Map() };
			await this.fetchFile(piName, held, "SKILL.md", signal, connection);
			this.held.set(piName, held);
			this.failures.delete(piName);
		} catch (error) {
			this.failures.set(piName, failureText(error));
			throw error;
		}
	}

	/** The entry the server lists now (or, if its listing no longer holds it, answers `skills/get` with), checked against the limits. */
	private async entryOf(
		connection: SkillConnection,
		skill: NamedSkill,
		timeout: number,
		signal?: AbortSignal,
	): Promise<Skill> {
		const listed = connection.skillEntries.find((e) => sameUri(e.uri, skill.uri));
		const entry = listed ?? (await getSkill(connection.client, skill.uri, timeout, signal));
		const why = entryDeclined(entry);
		if (why) throw new Error(`the server's entry was refused: ${why}`);
		return entry;
	}

	/** One file read, checked by the SDK against the held entry, and written (text with known secrets masked). */
	private async fetchFile(
		piName: string,
		held: Held,
		path: string,
		signal?: AbortSignal,
		open?: SkillConnection,
	): Promise<void> {
		const written = held.written.get(path);
		if (written && this.folder.digest(piName, path) === written) return;
		const skill = this.named.get(piName) as NamedSkill;
		const servers = await this.servers();
		const connection = open ?? (await servers.connect(skill.server, signal));
		const uri = held.files.get(path) as string;
		const refused = await servers.approve(skill.server, uri, signal);
		if (refused) throw new Error(refused);
		const file = await readSkillFile(connection.client, held.entry, uri, servers.requestTimeoutMs, signal);
		const content =
			path === "SKILL.md"
				? loadedMarkdown(piName, skill.description, skill.server, skill.uri, servers.mask(file.body ?? ""))
				: maskedContent(file, servers.mask);
		held.written.set(path, this.folder.write(piName, path, content));
	}
}

/**
 * What is written of a supporting file: its text with known secrets masked. A file sent as a
 * `blob` has no text, but its bytes are often text all the same (a server may send any file so),
 * and the model reads them as such: bytes that decode as UTF-8 are masked as text; others are
 * written as they are.
 */
function maskedContent(file: SkillFile, mask: (text: string) => string): string | Uint8Array {
	if (file.text !== undefined) return mask(file.text);
	const text = utf8(file.bytes);
	const masked = text === undefined ? text : mask(text);
	// Nothing to mask: the bytes as sent (decoding drops a byte-order mark).
	return masked === undefined || masked === text ? file.bytes : masked;
}

function utf8(bytes: Uint8Array): string | undefined {
	try {
		return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
	} catch {
		return undefined; // not UTF-8: binary, written as sent
	}
}

/** The skill's files `path` names: "" the whole folder, a folder all below it, else the file. */
function wantedFiles(held: Held, path: string): string[] {
	const files = [...held.files.keys()];
	return path === "" ? files : files.filter((f) => f === path || f.startsWith(`${path}/`));
}

function sameUri(a: string, b: string): boolean {
	try {
		return new URL(a).href === new URL(b).href;
	} catch {
		return a === b;
	}
}

/**
 * Each listed file's place in the skill's folder. A file whose name could leave the folder, or two
 * that a file system would take for one (the later written over the earlier, SKILL.md included),
 * refuse the skill.
 */
function filesOf(entry: Skill): Map<string, string> {
	const files = new Map<string, string>();
	const paths: string[] = [];
	for (const file of entry.resources === "dynamic" ? [] : entry.resources) {
		const path = sameUri(file.uri, entry.uri) ? "SKILL.md" : skillFilePath(entry.uri, file.uri);
		if (!path)
			throw new Error(
				`the server lists a file whose name would leave the skill's folder, end in a dot or space, or name what Windows writes elsewhere (a device such as CON, a ':' stream): ${file.uri}`,
			);
		files.set(path, file.uri);
		paths.push(path);
	}
	const clash = clashingPaths(paths);
	if (clash)
		throw new Error(
			`the server lists files that macOS or Windows would write over each other: "${clash[0]}" and "${clash[1]}"`,
		);
	return files;
}
