// pi/session.ts through the extension's factory (index.ts createMcpExtension), with a stand-in for
// Pi's API and real runtimes over a config with no server (nothing starts): a reload that needs a
// new runtime ends the last one before it makes the next, and the session's end ends the runtime.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMcpExtension } from "../../index.ts";
import { McpRuntime } from "../../mcp-runtime.ts";
import { tempDir } from "../support/helpers.ts";
import { piStandIn } from "../support/pi-stand-in.ts";

/** Pi's API for a session: tools and commands kept, handlers fired by the test. */
function standInPi() {
	const host = piStandIn();
	return { pi: host.pi, fire: (event: string, payload: unknown, ctx: unknown) => host.emit(event, payload, ctx) };
}

let dir: ReturnType<typeof tempDir> | undefined;
afterEach(() => dir?.remove());

describe("a session's lifetime (pi/session.ts)", () => {
	it("ends the last runtime before it makes the next, and ends the runtime with the session", async () => {
		dir = tempDir();
		const agentDir = join(dir.path, "agent");
		const cwd = join(dir.path, "work");
		mkdirSync(agentDir, { recursive: true });
		mkdirSync(cwd, { recursive: true });
		const config = (settings: Record<string, unknown>) =>
			writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: {}, settings }));
		config({});
		const told: string[] = [];
		const createRuntime = (options: ConstructorParameters<typeof McpRuntime>[0]) => {
			const runtime = new McpRuntime(options);
			const n = told.filter((t) => t.endsWith("made")).length + 1;
			const shutdown = runtime.shutdown.bind(runtime);
			runtime.shutdown = async () => {
				told.push(`runtime ${n} ends`);
				await shutdown();
				told.push(`runtime ${n} ended`);
			};
			told.push(`runtime ${n} made`);
			return runtime;
		};
		const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir };
		const { pi, fire } = standInPi();
		await createMcpExtension({ argv: [], env, createRuntime })(pi);
		const ctx = { cwd, hasUI: false, ui: { setStatus() {}, notify() {} } };
		await fire("session_start", {}, ctx);
		expect(told).toEqual(["runtime 1 made"]);

		config({ idleTimeout: 7 }); // a change of settings: the running runtime cannot take it
		await fire("mcp_servers_change", { servers: [] }, ctx);
		expect(told).toEqual(["runtime 1 made", "runtime 1 ends", "runtime 1 ended", "runtime 2 made"]);

		await fire("session_shutdown", {}, ctx);
		expect(told.slice(4)).toEqual(["runtime 2 ends", "runtime 2 ended"]);
	});
});
