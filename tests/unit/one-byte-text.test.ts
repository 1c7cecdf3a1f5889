// What we write for the model stays within Latin-1. One character beyond it (an arrow in the `mcp`
// tool's description, an ellipsis in a search answer that stays in the conversation) makes every
// later request of the session a two-byte string, and Pi 1.5 builds each request ~4x slower then
// (JSON.stringify with its body observer: 1.6 ms instead of 0.3-0.5 ms a turn, measured by
// bench/warm-calls.ts and a CPU profile). Text only people see (dialogs, the TUI, the CLI) may use any.
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { PROXY_DESCRIPTION, proxyDescription } from "../../proxy/surface.ts";
import { ROOT } from "../support/helpers.ts";
import { packageFiles } from "../support/package-files.ts";

/** Modules whose text only people read. */
const PEOPLE_ONLY = new Set([
	"cli.ts",
	"shell/output.ts",
	"client/elicitation.ts",
	"client/user-dialogs.ts",
	"pi/tool-render.ts",
	"pi/slash-commands.ts",
	"pi/command-actions.ts",
	"pi/manager-menus.ts",
	"pi/mcp-manager.ts",
]);

// Any UTF-16 code unit above 0xff (surrogates included): what makes a JavaScript string two-byte.
const beyondLatin1 = /[\u0100-\uffff]/;

/** The string and template literals of a module that hold a character beyond Latin-1, with their lines. */
function wideLiterals(file: string): string[] {
	const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node): void => {
		if (
			(ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) &&
			beyondLatin1.test(node.text)
		) {
			const { line } = source.getLineAndCharacterOfPosition(node.getStart());
			found.push(`${relative(ROOT, file)}:${line + 1}: ${node.getText()}`);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

describe("text for the model is one-byte (Latin-1)", () => {
	it("the mcp tool's description, with and without servers", () => {
		expect(PROXY_DESCRIPTION).not.toMatch(beyondLatin1);
		expect(proxyDescription([{ name: "everything", about: "demo server" }, { name: "memory" }])).not.toMatch(
			beyondLatin1,
		);
	});

	it("every string the extension writes, but those only people read", () => {
		// Every module of the package (tests/support/package-files.ts): a new subsystem is read too.
		const files = packageFiles(/(?<!\.d)\.ts$/)
			.filter((file) => !PEOPLE_ONLY.has(file))
			.map((file) => join(ROOT, file));
		expect(files.length).toBeGreaterThan(50);
		expect(files.flatMap(wideLiterals)).toEqual([]);
	});
});
