// What a rule of `npm run lint` finds: where, what, the rule it breaks and how to fix it.

export interface Problem {
	/** `file` or `file:line`, from the package root. */
	readonly where: string;
	readonly what: string;
	readonly rule: string;
	readonly fix: string;
}

/** A rule's words, shared by every problem it finds. */
export interface Rule {
	readonly rule: string;
	readonly fix: string;
}

export const problem = (rule: Rule, where: string, what: string): Problem => ({ where, what, ...rule });

/** Problems as lines for a terminal: each one's place and finding, then its rule and its fix. */
export function formatProblems(problems: readonly Problem[]): string {
	return problems.map((p) => `${p.where}: ${p.what}\n  rule: ${p.rule}\n  fix:  ${p.fix}`).join("\n");
}
