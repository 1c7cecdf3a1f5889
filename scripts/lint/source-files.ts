// The package's own source files, each read and parsed once (TypeScript's parser, no type check):
// what every rule of `npm run lint` and `npm run deps` reads.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

export const ROOT = join(import.meta.dirname, "..", "..");

/**
 * Not the package: tests, benchmarks, scripts and data may import and do anything; dist/ is the
 * build of the package's modules and a clone's entry for Pi (one re-export of index.ts).
 */
const OUTSIDE = new Set(["node_modules", "tests", "bench", "scripts", "data", "scratch", "dist", "vitest.config.mts"]);

/** A module of the package: its path from the root (forward slashes), its text and its syntax tree. */
export interface Source {
	readonly file: string;
	readonly text: string;
	readonly ast: ts.SourceFile;
}

/** Every file of the package whose name `kind` matches, relative to the root, with forward slashes. */
export function packageFiles(kind: RegExp, dir = ROOT): string[] {
	const files: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		if (entry.name.startsWith(".") || (dir === ROOT && OUTSIDE.has(entry.name))) continue;
		const path = join(dir, entry.name);
		if (entry.isDirectory()) files.push(...packageFiles(kind, path));
		else if (kind.test(entry.name)) files.push(relative(ROOT, path).split("\\").join("/"));
	}
	return files;
}

/** No rule reads a doc comment's tags: not parsing them saves a third of the parse. */
const PARSE = { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone };

/** One module parsed from its text (`file` names it in what the rules report). */
export function parseSource(file: string, text: string): Source {
	const kind = /\.m?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
	return { file, text, ast: ts.createSourceFile(file, text, PARSE, true, kind) };
}

/** The package's modules: TypeScript, `.mts` and the launcher's `.mjs` (declaration files aside). */
export function readSources(): Source[] {
	return packageFiles(/(?<!\.d)\.(ts|mts|mjs)$/).map((file) =>
		parseSource(file, readFileSync(join(ROOT, file), "utf8")),
	);
}

/** Every node of a tree, depth first (forEachChild: no tokens; a stack, not nested generators: one pass). */
export function* nodes(root: ts.Node): Generator<ts.Node> {
	const stack: ts.Node[] = [root];
	for (let node = stack.pop(); node; node = stack.pop()) {
		yield node;
		const children: ts.Node[] = [];
		ts.forEachChild(node, (child) => {
			children.push(child);
		});
		for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
	}
}

/** The 1-based line a node starts on. */
export function lineOf(source: Source, node: ts.Node): number {
	return source.ast.getLineAndCharacterOfPosition(node.getStart(source.ast)).line + 1;
}
