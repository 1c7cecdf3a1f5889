// What is checked of a skill before any file of it is fetched, and what a failed check says. The
// files themselves are checked by the SDK's SkillsClient as they are read (listed, size, digest,
// and for SKILL.md its frontmatter against the entry: transport/skill-client.ts); this module turns
// its refusal into words a user can act on.
import type { Skill } from "../transport/skill-client.ts";
import type { SkillSummary } from "../types.ts";

/**
 * SEP-2640's per-skill limits, which every host accepts (the SDK's SKILL_LIMITS; its skills module
 * is not loaded to list skills): 512 files and 16 MiB in all. A larger skill is refused before
 * any of it is fetched, and the user is told why.
 */
export const SKILL_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 } as const;

/** Why a listed skill is not offered, or undefined when it is. */
export function declined(skill: SkillSummary): string | undefined {
	if (skill.files === undefined || skill.bytes === undefined)
		return 'its files are "dynamic": they carry no digests, so nothing could check them';
	if (skill.files > SKILL_LIMITS.files) return `it has ${skill.files} files (at most ${SKILL_LIMITS.files} are loaded)`;
	if (skill.bytes > SKILL_LIMITS.bytes)
		return `its files take ${mebibytes(skill.bytes)} (at most ${mebibytes(SKILL_LIMITS.bytes)} are loaded)`;
	return undefined;
}

/** The same checks on an entry as the server sends it when the skill is loaded. */
export function entryDeclined(entry: Skill): string | undefined {
	const { resources } = entry;
	if (resources === "dynamic") return declined({ uri: entry.uri, name: "", description: "" });
	const bytes = resources.reduce((sum, file) => sum + file.size, 0);
	return declined({ uri: entry.uri, name: "", description: "", files: resources.length, bytes });
}

function mebibytes(bytes: number): string {
	return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** What the SDK's SkillVerificationError says went wrong, in words; other errors as they are. */
export function failureText(error: unknown): string {
	const failed = error as { name?: string; reason?: string; message?: string; uri?: string };
	if (failed?.name !== "SkillVerificationError") return error instanceof Error ? error.message : String(error);
	const what: Record<string, string> = {
		size: "its size is not the size the server listed",
		digest: "its content does not match the digest the server listed",
		frontmatter: "its frontmatter differs from what the server listed",
		unlisted: "it is not one of the files the server listed for the skill",
	};
	return `${failed.uri} failed the check: ${what[failed.reason ?? ""] ?? failed.reason} (${failed.message})`;
}
