// Which `npx` package specs the resolver takes up: a registry name and a plain version, range or
// tag only. Anything else (a git or file spec, a character a shell reads) runs npx as configured
// (issue 35: on Windows the installer ran through cmd.exe, and `pkg@1&calc` passed the check).
import { describe, expect, it } from "vitest";
import { parseNpx } from "../../npx-resolver.ts";

describe("npx package specs", () => {
	it.each([
		["pkg@1.2.3", "1.2.3"],
		["@scope/pkg@^2.0.0", "^2.0.0"],
		["pkg@~1.2", "~1.2"],
		["pkg@1.x", "1.x"],
		["pkg@1.0.0-beta.1+build.5", "1.0.0-beta.1+build.5"],
		["pkg@latest", "latest"],
		["pkg@*", "*"],
		["pkg", undefined],
	])("%s is resolved (range %s)", (spec, range) => {
		expect(parseNpx("npx", ["-y", spec])).toMatchObject({ spec, range });
	});

	it.each([
		"pkg@1&calc",
		"pkg@1|calc",
		"pkg@1;calc",
		'pkg@"1"',
		"pkg@1 2",
		"pkg@$(calc)",
		"pkg@`calc`",
		"pkg@%COMSPEC%",
		"pkg@1>out",
		"pkg@>=1.0.0",
		"pkg@github:user/repo",
		"pkg@file:../x",
		"pkg@https://example.com/x.tgz",
		"pkg@1\ncalc",
		`pkg@${"1".repeat(300)}`,
	])("%j is left to npx as configured", (spec) => {
		expect(parseNpx("npx", ["-y", spec])).toBeUndefined();
	});
});
