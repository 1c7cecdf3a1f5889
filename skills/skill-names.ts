// The names MCP skills get in Pi, which are also their folders' names: the server's name, then the
// skill's (`docs-pdf-processing`), in Pi's alphabet (lowercase letters, digits, single hyphens, at
// most 64 characters), so nothing a server or its config calls itself can reach outside the folder.
// A skill is its server's name plus its URI (SEP-2640): two servers' skills of one name, two skills
// of one name in a server, and a user's own skill of that name never meet under one Pi name, as
// Pi keeps the first of a name it meets; a name already taken gets a suffix from a digest of what
// identifies the skill, so it stays the same from one start to the next.
import { createHash } from "node:crypto";
import type { SkillSummary } from "../types.ts";

/** Pi's longest skill name (the Agent Skills rule). */
export const MAX_SKILL_NAME = 64;

/** One server's listed skills. */
export interface ServerSkills {
	readonly server: string;
	readonly skills: readonly SkillSummary[];
}

/** A listed skill under the name (and folder) Pi knows it by. */
export interface NamedSkill extends SkillSummary {
	readonly server: string;
	readonly piName: string;
}

/** Lowercase letters and digits, every other run of characters one hyphen, none at either end. */
export function slug(text: string): string {
	return text
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, "-")
		.replace(/^-+|-+$/g, "");
}

/** The skill's path in its server's namespace (`acme/billing/refunds`): what tells apart two skills of one name. */
function skillPath(uri: string): string {
	const withoutFile = uri.replace(/\/SKILL\.md$/, "");
	return withoutFile.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
}

function digest(...parts: string[]): string {
	return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 8);
}

/** `base` cut to Pi's length with room for `suffix` (`-1a2b3c4d`), never ending in a hyphen. */
function fitted(base: string, suffix = ""): string {
	const room = MAX_SKILL_NAME - suffix.length;
	return `${base.slice(0, room).replace(/-+$/, "")}${suffix}`;
}

/**
 * Every listed skill of the servers under a Pi name none of `taken` (the user's own skills) holds
 * and no other gets. Servers in name order and skills in URI order, so the names are stable.
 */
export function nameSkills(listings: readonly ServerSkills[], taken: ReadonlySet<string> = new Set()): NamedSkill[] {
	const used = new Set(taken);
	const named: NamedSkill[] = [];
	const servers = [...listings].sort((a, b) => a.server.localeCompare(b.server));
	for (const { server, skills } of servers) {
		const label = slug(server) || "server";
		const sorted = [...skills].sort((a, b) => a.uri.localeCompare(b.uri));
		const sameName = (name: string) => sorted.filter((s) => s.name === name).length > 1;
		for (const skill of sorted) {
			// Two skills of one name in a server: their paths tell them apart (SEP-2640, "Names").
			const own = sameName(skill.name) ? slug(skillPath(skill.uri)) : slug(skill.name);
			const full = `${label}-${own || "skill"}`;
			const wanted = fitted(full);
			// Taken, or cut to Pi's length (two long names may cut alike): the skill's own suffix.
			const piName = used.has(wanted) || wanted !== full ? unique(wanted, server, skill, used) : wanted;
			used.add(piName);
			named.push({ ...skill, server, piName });
		}
	}
	return named;
}

/** A name with the skill's own suffix: a digest of its server and URI (and a count, in the rare case that is taken too). */
function unique(wanted: string, server: string, skill: SkillSummary, used: ReadonlySet<string>): string {
	for (let attempt = 0; ; attempt++) {
		const name = fitted(wanted, `-${digest(server, skill.uri, String(attempt))}`);
		if (!used.has(name)) return name;
	}
}
