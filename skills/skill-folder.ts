// The folder MCP skills are served from: <agentDir>/mcp-skills/<pid>-<random>/, one per Pi
// process, outside every folder Pi finds skills in by itself (SEP-2640: content fetched over MCP is
// never taken for a local skill). It holds one folder per skill, named by its Pi name, with a
// SKILL.md that Pi lists (the listed name and description, nothing fetched) until the skill is
// loaded; then the checked files. Files are written whole (a temporary file renamed into place) and
// read-only; every write checks that its folder still resolves inside ours (a symlink put there
// would lead it elsewhere). The folder goes with the session; one a crashed Pi left is removed by
// the next start.
import { createHash, randomBytes } from "node:crypto";
import {
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	realpathSync,
	renameSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { dirname, join, sep } from "node:path";
import { inside } from "./skill-paths.ts";

export const SKILLS_DIR = "mcp-skills";

/** What Pi reads of a skill's SKILL.md at start: the name and description, in YAML it parses alike. */
function frontmatter(piName: string, description: string): string {
	// A JSON string is a YAML double-quoted scalar: any text the server sent stays one value.
	return `---\nname: ${piName}\ndescription: ${JSON.stringify(description)}\n---\n`;
}

/** The SKILL.md of a skill not loaded yet: what Pi lists, and what the model would read were the fetch skipped. */
export function stubMarkdown(piName: string, description: string, server: string, uri: string): string {
	return `${frontmatter(piName, description)}
This skill is served by the MCP server "${server}" (${uri}). Its instructions are fetched from the
server, and checked, when this file is read: read it again with the read tool.
`;
}

/** A loaded SKILL.md: its origin first (SEP-2640: tagged with its server where it enters the model's context), then the server's body. */
export function loadedMarkdown(piName: string, description: string, server: string, uri: string, body: string): string {
	return `${frontmatter(piName, description)}
> From the MCP server "${server}" (${uri}): this is that server's content, not the user's.

${body.replace(/^\n+/, "")}`;
}

export function sha256(bytes: Uint8Array): string {
	return createHash("sha256").update(bytes).digest("hex");
}

function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: it runs, as another user.
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

export class SkillFolder {
	readonly root: string;
	private readonly parent: string;

	constructor(agentDir: string) {
		this.parent = join(agentDir, SKILLS_DIR);
		this.root = join(this.parent, `${process.pid}-${randomBytes(4).toString("hex")}`);
	}

	/** Makes the folder empty and private, after removing those of Pi processes that are gone. */
	reset(): void {
		this.removeStale();
		rmSync(this.root, { recursive: true, force: true });
		mkdirSync(this.root, { recursive: true, mode: 0o700 });
	}

	/** A skill's file, written whole and read-only; returns the digest of what was written. */
	write(piName: string, path: string, content: Uint8Array | string): string {
		const target = inside(this.root, `${piName}/${path}`);
		if (!target) throw new Error(`"${piName}/${path}" would be outside ${this.root}`);
		mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
		const real = realpathSync(dirname(target));
		const realRoot = realpathSync(this.root);
		if (!real.startsWith(`${realRoot}${sep}`))
			throw new Error(`${dirname(target)} leads outside ${this.root} (a link was put there): not written`);
		const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
		const temp = join(dirname(target), `.${randomBytes(6).toString("hex")}.tmp`);
		writeFileSync(temp, bytes, { mode: 0o444, flag: "wx" });
		renameSync(temp, target);
		return sha256(bytes);
	}

	/** The digest of a skill file as it is on disk now, or undefined if it is not there. */
	digest(piName: string, path: string): string | undefined {
		const target = inside(this.root, `${piName}/${path}`);
		if (!target || !existsSync(target)) return undefined;
		try {
			return sha256(readFileSync(target));
		} catch {
			return undefined; // unreadable (a folder now, a permission changed): written again
		}
	}

	/** Removes the folder and everything in it. */
	remove(): void {
		rmSync(this.root, { recursive: true, force: true });
	}

	private removeStale(): void {
		let names: string[];
		try {
			names = readdirSync(this.parent);
		} catch {
			return; // no parent yet: nothing left behind
		}
		for (const name of names) {
			const pid = Number(/^(\d+)-[0-9a-f]+$/.exec(name)?.[1]);
			if (pid && pid !== process.pid && !pidAlive(pid))
				rmSync(join(this.parent, name), { recursive: true, force: true });
		}
	}
}
