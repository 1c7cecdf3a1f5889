// The shape the codebase keeps, read from its syntax: index.ts wires (under 250 lines), no module
// runs over 500 lines, no class over 300, no function over 120, and what we write for the model
// stays within Latin-1.
import ts from "typescript";
import { type Problem, problem } from "./problem.ts";
import { lineOf, nodes, type Source } from "./source-files.ts";

/** The longest index.ts may be: it builds a session's parts and hands Pi's events to them, nothing more. */
export const MAX_INDEX_LINES = 249;
/** The longest a function (a method, an arrow, a closure with all it holds) may run. */
export const MAX_FUNCTION_LINES = 120;

/** The longest a module may be: past it, it holds more than one job. */
export const MAX_FILE_LINES = 500;
/** The longest a class may be. */
export const MAX_CLASS_LINES = 300;

const SHORT_MODULES = {
	rule: `no module runs over ${MAX_FILE_LINES} lines`,
	fix: "split it by what each part decides, into modules with one job each (the folder named for what they are)",
};
const SHORT_CLASSES = {
	rule: `no class runs over ${MAX_CLASS_LINES} lines`,
	fix: "move what the class decides apart (its state, its events, what it builds) into parts it holds or calls",
};

const INDEX_WIRES = {
	rule: `index.ts only wires: at most ${MAX_INDEX_LINES} lines`,
	fix: "move what it does into the module whose name says it (pi-session/session.ts, pi-session/registrations.ts, ...) and call that",
};
const SHORT_FUNCTIONS = {
	rule: `no function runs over ${MAX_FUNCTION_LINES} lines (a closure counts with all it holds)`,
	fix: "split it into named functions, each with one job",
};

export function indexProblems(index: Source): Problem[] {
	const lines = index.text.split("\n").length;
	return lines > MAX_INDEX_LINES ? [problem(INDEX_WIRES, index.file, `${lines} lines`)] : [];
}

/** Every function of a module longer than `max` lines: where it starts, and its length. */
export function longFunctions(source: Source, max = MAX_FUNCTION_LINES): Problem[] {
	const found: Problem[] = [];
	for (const node of nodes(source.ast)) {
		if (!ts.isFunctionLike(node) || !("body" in node) || !node.body) continue;
		const first = lineOf(source, node);
		const lines = source.ast.getLineAndCharacterOfPosition(node.getEnd()).line + 2 - first;
		if (lines > max) found.push(problem(SHORT_FUNCTIONS, `${source.file}:${first}`, `a function of ${lines} lines`));
	}
	return found;
}

/** A module longer than `maxFile` lines, and each class in it longer than `maxClass`: where, and its length. */
export function longModules(source: Source, maxFile = MAX_FILE_LINES, maxClass = MAX_CLASS_LINES): Problem[] {
	const found: Problem[] = [];
	const lines = source.text.split("\n").length;
	if (lines > maxFile) found.push(problem(SHORT_MODULES, source.file, `${lines} lines`));
	for (const node of nodes(source.ast)) {
		if (!ts.isClassDeclaration(node) && !ts.isClassExpression(node)) continue;
		const first = lineOf(source, node);
		const length = source.ast.getLineAndCharacterOfPosition(node.getEnd()).line + 2 - first;
		const name = node.name?.text ?? "an anonymous class";
		if (length > maxClass)
			found.push(problem(SHORT_CLASSES, `${source.file}:${first}`, `class ${name}: ${length} lines`));
	}
	return found;
}

/**
 * What we write for the model stays within Latin-1. One character beyond it (an arrow in the `mcp`
 * tool's description, an ellipsis in a search answer that stays in the conversation) makes every
 * later request of the session a two-byte string, and Pi 1.5 builds each request ~4x slower then
 * (JSON.stringify with its body observer: 1.6 ms instead of 0.3-0.5 ms a turn, measured by
 * bench/warm-calls.ts and a CPU profile). Text only people see (dialogs, the TUI, the CLI) may use any.
 */
export const PEOPLE_ONLY: ReadonlySet<string> = new Set([
	"cli.ts",
	"shell/output.ts",
	"client/elicitation.ts",
	"client/user-dialogs.ts",
	"pi-ui/tool-render.ts",
	"pi-commands/slash-commands.ts",
	"pi-commands/command-actions.ts",
	"pi-commands/manager-menus.ts",
	"pi-commands/mcp-manager.ts",
]);

/** Any UTF-16 code unit above 0xff (surrogates included): what makes a JavaScript string two-byte. */
export const BEYOND_LATIN1 = /[\u0100-\uffff]/;

const ONE_BYTE_TEXT = {
	rule: "text for the model stays within Latin-1 (a wider character makes Pi 1.5 build every later request ~4x slower)",
	fix: "write it in Latin-1 (-> for an arrow, ... for an ellipsis), or, if only people read this module, add it to PEOPLE_ONLY in scripts/lint/code-shape.ts",
};

/** The string and template literals of a module (one people alone read aside) holding a character beyond Latin-1. */
export function wideLiterals(source: Source): Problem[] {
	if (!source.file.endsWith(".ts") || PEOPLE_ONLY.has(source.file)) return [];
	const found: Problem[] = [];
	for (const node of nodes(source.ast)) {
		const literal =
			ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node);
		if (literal && BEYOND_LATIN1.test(node.text))
			found.push(problem(ONE_BYTE_TEXT, `${source.file}:${lineOf(source, node)}`, node.getText(source.ast)));
	}
	return found;
}

/** Every code-shape problem of the package's modules. */
export function shapeProblems(sources: readonly Source[]): Problem[] {
	const index = sources.find((s) => s.file === "index.ts");
	const found = index ? indexProblems(index) : [problem(INDEX_WIRES, "index.ts", "not found")];
	for (const source of sources) {
		if (!/\.ts$/.test(source.file)) continue;
		found.push(...longModules(source), ...longFunctions(source), ...wideLiterals(source));
	}
	return found;
}
