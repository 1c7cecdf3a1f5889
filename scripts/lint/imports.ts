// The relative imports a module makes, read from its syntax: static, `import type`, `export from`,
// a side-effect import, `import()` (a load at first use) and a type's `import("x")`. A seam that
// loads a module at first use (`x.lazy.ts`, beside it) is read as that load: importing it is lazy.
import { dirname, join, normalize } from "node:path";
import ts from "typescript";
import { lineOf, nodes, type Source } from "./source-files.ts";

export interface Import {
	/** The importing module, from the root. */
	readonly from: string;
	/** The module imported, from the root. */
	readonly to: string;
	readonly line: number;
	/** Loaded at first use (an `import()` call), not with the module. */
	readonly lazy?: true;
}

/** A specifier of `file` as a path from the root (`../errors.ts` in `proxy/calls.ts` is `errors.ts`). */
export function fromRoot(file: string, specifier: string): string {
	return normalize(join(dirname(file), specifier))
		.split("\\")
		.join("/");
}

const isRelative = (specifier: string) => /^\.{1,2}\//.test(specifier);

/** The module specifier a node names, and whether it loads at first use; undefined for any other node. */
export function specifierOf(node: ts.Node): { specifier: string; lazy: boolean } | undefined {
	let named: ts.Node | undefined;
	let lazy = false;
	if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) named = node.moduleSpecifier;
	else if (ts.isExternalModuleReference(node)) named = node.expression;
	else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) named = node.argument.literal;
	else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
		named = node.arguments[0];
		lazy = true;
	}
	return named && ts.isStringLiteralLike(named) ? { specifier: named.text, lazy } : undefined;
}

/** The relative imports a module makes (those `only` keeps, when given), as paths from the root. */
export function importsOf(source: Source, only?: (node: ts.Node) => boolean): Import[] {
	const found: Import[] = [];
	for (const node of nodes(source.ast)) {
		const named = only && !only(node) ? undefined : specifierOf(node);
		if (!named || !isRelative(named.specifier)) continue;
		const to = fromRoot(source.file, named.specifier);
		const line = lineOf(source, node);
		const lazy = named.lazy || to.endsWith(".lazy.ts");
		found.push(lazy ? { from: source.file, to, line, lazy: true } : { from: source.file, to, line });
	}
	return found;
}
