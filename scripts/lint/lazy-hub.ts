// lazy.ts, the hub every lazy load goes through today, as the lint reads it: its loaders count as
// imports of their callers, it alone may call import() or createRequire, and the dependency table
// leaves it out. All of it is here, used by scripts/lint/analysis.ts in three marked lines: when
// lazy.ts goes, delete this file, its test (tests/unit/layers-lazy-hub.test.ts), those lines and the
// hub's row in scripts/lint/layer-rule.ts (and lazy.ts from madge's --exclude in package.json's
// lint script); a module's own import() calls are then read as its lazy loads by
// scripts/lint/imports.ts with no change.
import ts from "typescript";
import { fromRoot, type Import, importsOf, specifierOf } from "./imports.ts";
import { type Problem, problem } from "./problem.ts";
import { lineOf, nodes, type Source } from "./source-files.ts";

export const LAZY_HUB = "lazy.ts";

const exported = (node: ts.Node) =>
	ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The first package module a declaration loads (`import()` or a type's `import("x")`), from the root. */
function loadedIn(hub: Source, node: ts.Node): string | undefined {
	for (const inner of nodes(node)) {
		const named = specifierOf(inner);
		if (named && /^\.{1,2}\//.test(named.specifier)) return fromRoot(hub.file, named.specifier);
	}
	return undefined;
}

/** The hub's loaders (and types) by exported name: the module each one loads (packages aside). */
export function hubLoaders(hub: Source): Map<string, string> {
	const loaders = new Map<string, string>();
	for (const statement of hub.ast.statements) {
		if (!exported(statement)) continue;
		const declarations = ts.isVariableStatement(statement)
			? statement.declarationList.declarations
			: ts.isTypeAliasDeclaration(statement)
				? [statement]
				: [];
		for (const declaration of declarations) {
			const target = ts.isIdentifier(declaration.name) ? loadedIn(hub, declaration) : undefined;
			if (target) loaders.set(declaration.name.getText(hub.ast), target);
		}
	}
	return loaders;
}

/** The names a module takes from the hub (`import { a, b as c }`, `export { d } from`); `*` takes them all. */
function namesTaken(source: Source): { name: string; line: number }[] {
	const taken: { name: string; line: number }[] = [];
	for (const statement of source.ast.statements) {
		if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
		const named = specifierOf(statement);
		if (!named || !/^\.{1,2}\//.test(named.specifier) || fromRoot(source.file, named.specifier) !== LAZY_HUB) continue;
		const line = lineOf(source, statement);
		const bindings = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : statement.exportClause;
		if (!bindings || ts.isNamespaceImport(bindings) || ts.isNamespaceExport(bindings)) taken.push({ name: "*", line });
		else
			for (const element of bindings.elements) taken.push({ name: (element.propertyName ?? element.name).text, line });
	}
	return taken;
}

/**
 * The imports of the package with the hub read as what it loads: `{ loadSdk } from "../lazy.ts"` is
 * a lazy import of transport/mcp-sdk.ts, and the hub's own import() calls are its callers', not its.
 */
export function throughHub(sources: readonly Source[], imports: readonly Import[]): Import[] {
	const hub = sources.find((s) => s.file === LAZY_HUB);
	if (!hub) return [...imports];
	const loaders = hubLoaders(hub);
	const resolved = imports.filter((i) => i.from !== LAZY_HUB);
	resolved.push(...ownImports(hub));
	for (const source of sources) {
		if (source === hub) continue;
		for (const { name, line } of namesTaken(source)) {
			const targets = name === "*" ? [...loaders.values()] : [loaders.get(name)].filter((t) => t !== undefined);
			for (const to of targets) resolved.push({ from: source.file, to, line, lazy: true });
		}
	}
	return resolved;
}

/** The hub's own imports: its import declarations (what its loaders load, types too, is its callers'). */
function ownImports(hub: Source): Import[] {
	const declarations = new Set<ts.Node>(
		hub.ast.statements.filter((s) => ts.isImportDeclaration(s) || ts.isExportDeclaration(s)),
	);
	return importsOf(hub, (node) => declarations.has(node));
}

/** The dependency table leaves the hub out: nearly every unit imports it. */
export const inDependencyTable = (found: Import): boolean => found.to !== LAZY_HUB;

const LOADS_IN_HUB = {
	rule: `what loads at first use is named in ${LAZY_HUB} alone (no other module calls import() or createRequire)`,
	fix: `add a once() loader to ${LAZY_HUB} and import it by name, or import the module plainly`,
};

/** Where a module loads another at run time: import() (a type's `import("x")` is no load) or createRequire. */
export function runtimeLoads(source: Source): number[] {
	const lines: number[] = [];
	for (const node of nodes(source.ast)) {
		const isImportCall = ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword;
		const isRequire = ts.isIdentifier(node) && node.text === "createRequire" && !ts.isImportSpecifier(node.parent);
		if (isImportCall || isRequire) lines.push(lineOf(source, node));
	}
	return lines;
}

/** A TypeScript module that loads at run time outside the hub, or a hub the lint reads no loader in. */
export function hubProblems(sources: readonly Source[]): Problem[] {
	const found: Problem[] = [];
	for (const source of sources) {
		if (!source.file.endsWith(".ts")) continue; // bin/pi-mcp-proxy.mjs loads jiti itself
		if (source.file === LAZY_HUB) {
			if (hubLoaders(source).size < 20)
				found.push(problem(LOADS_IN_HUB, LAZY_HUB, "fewer than 20 loaders read: is the lint reading it right?"));
		} else
			for (const line of runtimeLoads(source))
				found.push(problem(LOADS_IN_HUB, `${source.file}:${line}`, "a load at run time"));
	}
	return found;
}
