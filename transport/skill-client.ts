// The Skills extension (SEP-2640) through the SDK's SkillsClient: the listing a connection keeps,
// and the reads that check a file against its entry (size, digest, and for SKILL.md the
// frontmatter). The SDK's skills module loads only for a server that declares the extension.
import type { Client } from "@modelcontextprotocol/client";
import type { Skill, SkillFile } from "@modelcontextprotocol/client/ext/skills";
import { once } from "../bounds/waits.ts";
import type { SkillSummary } from "../types.ts";

export type { Skill, SkillFile };

/** The SDK's skills client: at the first listing of a server that offers skills. */
const loadSkillsSdk = once(() => import("@modelcontextprotocol/client/ext/skills"));

/** The extension's identifier, as servers declare it (and this client does) under `capabilities.extensions`. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** What a server lists of its skills: the entries as sent (held to check files against), and each refused one. */
export interface ListedSkills {
	readonly skills: SkillSummary[];
	readonly skillEntries: Skill[];
	/** Entries the SDK refused (a bad URI, name or file list), each with why: they are never offered. */
	readonly skillProblems: string[];
}

export const NO_SKILLS: ListedSkills = { skills: [], skillEntries: [], skillProblems: [] };

/** Whether the server declared the extension (read from its capabilities, no SDK module needed). */
export function declaresSkills(client: Client): boolean {
	const extensions = (client.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined)
		?.extensions;
	return typeof extensions?.[SKILLS_EXTENSION] === "object" && extensions[SKILLS_EXTENSION] !== null;
}

/** Every page of `skills/list`; invalid entries are set aside with the SDK's reason, not fatal to the rest. */
export async function listSkills(client: Client, timeout: number, signal?: AbortSignal): Promise<ListedSkills> {
	if (!declaresSkills(client)) return NO_SKILLS;
	const { SkillsClient } = await loadSkillsSdk();
	const listing = await new SkillsClient(client, { skipInvalid: true }).list({}, { timeout, signal });
	return {
		skills: listing.skills.map(summaryOf),
		skillEntries: listing.skills,
		skillProblems: listing.invalid.map((entry) => `${entry.uri ?? `entry #${entry.index}`}: ${entry.reason}`),
	};
}

function summaryOf(skill: Skill): SkillSummary {
	const { uri, frontmatter, resources } = skill;
	const listed = resources === "dynamic" ? {} : { files: resources.length, bytes: totalSize(resources) };
	return { uri, name: frontmatter.name, description: frontmatter.description, ...listed };
}

function totalSize(resources: readonly { size: number }[]): number {
	return resources.reduce((sum, file) => sum + file.size, 0);
}

/** One skill's entry by its SKILL.md URI (`skills/get`): for a skill the listing no longer (or never) held. */
export async function getSkill(client: Client, uri: string, timeout: number, signal?: AbortSignal): Promise<Skill> {
	const { SkillsClient } = await loadSkillsSdk();
	return (await new SkillsClient(client).get(uri, { timeout, signal })).skill;
}

/**
 * One file of `skill` (default its SKILL.md), read and checked by the SDK against the entry: listed,
 * its size, its digest, and for SKILL.md its frontmatter field by field. Any mismatch throws.
 */
export async function readSkillFile(
	client: Client,
	skill: Skill,
	ref: string | undefined,
	timeout: number,
	signal?: AbortSignal,
): Promise<SkillFile> {
	const { SkillsClient } = await loadSkillsSdk();
	return new SkillsClient(client).read(skill, ref, { timeout, signal });
}
