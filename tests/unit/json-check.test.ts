// The schema checker agrees with TypeBox's own Value.Check on every config and cache schema, for
// valid entries and for each way an entry goes wrong.
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import { checks, failingFields } from "../../config/json-check.ts";
import { FileSchema, OutputGuardSchema, RawServerSchema, SettingsSchema } from "../../config/schema.ts";

const servers: unknown[] = [
	{ command: "npx", args: ["-y", "x"], env: { A: "1" } },
	{ url: "https://x/mcp", headers: { Authorization: "Bearer t" }, type: "sse" },
	{
		command: "x",
		lifecycle: "eager",
		idleTimeout: 0,
		timeout: 2.5,
		directTools: ["a", "b"],
		exposure: "direct",
		toolExposure: { "get_*": "hidden" },
	},
	{ command: "" },
	{ command: "x", args: "not-a-list" },
	{ command: "x", args: [1] },
	{ command: "x", env: { A: 1 } },
	{ command: "x", lifecycle: "sometimes" },
	{ command: "x", timeout: 0 },
	{ command: "x", idleTimeout: -1 },
	{ command: "x", directTools: "yes" },
	{ command: "x", exposure: "everywhere" },
	{ command: "x", toolExposure: { a: "visible" } },
	{ url: "http://x", headers: "Bearer t" },
	{ command: "x", unknownField: true },
	{ command: "x", oauth: { clientId: "c", callbackPort: 8765 } },
	[],
	null,
	"text",
];
const settings: unknown[] = [
	{ toolPrefix: "short" },
	{ toolPrefix: "long" },
	{ outputGuard: false },
	{ outputGuard: { maxBytes: 10 } },
	{ outputGuard: true },
	{ maxMessageMB: 0 },
];
const files: unknown[] = [
	{ mcpServers: {} },
	{ mcpServers: [] },
	{ imports: ["cursor"] },
	{ imports: "cursor" },
	{},
	{ settings: 3 },
];

describe("json-check", () => {
	it.each([
		["RawServerSchema", RawServerSchema, servers],
		["SettingsSchema", SettingsSchema, settings],
		["FileSchema", FileSchema, files],
		["OutputGuardSchema", OutputGuardSchema, [{ maxLines: 5 }, { maxLines: 50 }, {}]],
	] as const)("%s: the same verdict as TypeBox's Value.Check on every sample", (_name, schema, samples) => {
		for (const sample of samples)
			expect(checks(schema, sample), JSON.stringify(sample)).toBe(Value.Check(schema, sample));
	});

	it("names the failing top-level fields", () => {
		expect(
			failingFields(RawServerSchema, { command: "x", args: "no", lifecycle: "sometimes", env: { A: "1" } }),
		).toEqual(["args", "lifecycle"]);
		expect(failingFields(RawServerSchema, [])).toEqual([""]);
	});
});
