// The extension as a clone runs it (`pi install git:...`, `pi install <folder>`, `pi -e <folder>`):
// package.json points Pi at this folder, and Pi loads a folder's index.ts before its index.js, so a
// clone runs its sources, never a dist/index.js an earlier build left here. A package `npm pack`
// made leaves this file out and runs the JavaScript built beside it (scripts/build.ts).
// Pi's loader compiles the sources at the first start after the temp folder (its cache) was
// cleared: when that made the start wait, one line says what and why.

/** A start longer than this was compiling: a cached start takes well under a second. */
const TOLD_AFTER_MS = 3000;

const started = performance.now();
const { default: extension } = await import("../index.ts");
const waited = performance.now() - started;
if (waited > TOLD_AFTER_MS) {
	console.error(
		`pi-mcp-proxy: this start waited ${(waited / 1000).toFixed(1)} s while Pi compiled the extension's TypeScript (a git or folder install is compiled at the first start after the temp folder was cleared; pi install npm:pi-mcp-proxy installs it compiled).`,
	);
}

export default extension;
