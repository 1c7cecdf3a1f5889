// A tool's successful output carries no secret the adapter knows: not an inherited API key a
// server prints, not the token its own config gave it. URLs in the data stay as they are.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { McpRuntime } from "../../mcp-runtime.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { everythingStdio, tempDir } from "../support/helpers.ts";

const dir = tempDir();
afterAll(() => dir.remove());

it("get-env's successful output shows *** for OPENAI_API_KEY and the config's token", async () => {
	const agentDir = join(dir.path, "agent");
	mkdirSync(agentDir, { recursive: true });
	const config = {
		mcpServers: { everything: { ...everythingStdio(), env: { SERVICE_TOKEN: "svc-token-5e6f7a8b9c" } } },
	};
	writeFileSync(join(agentDir, "mcp.json"), JSON.stringify(config));
	const env = {
		...process.env,
		PI_CODING_AGENT_DIR: agentDir,
		OPENAI_API_KEY: "sk-live-0a1b2c3d4e5f",
		DOCS_URL: "https://docs.example.test/a?b=c",
	};
	const runtime = new McpRuntime({ cwd: dir.path, env });
	try {
		const result = await runProxy(runtime.lifecycle, { tool: "everything_get-env" });
		const text = contentText(result.content);
		expect(result.isError).toBe(false);
		expect(text).toContain("OPENAI_API_KEY");
		expect(text).toContain("SERVICE_TOKEN");
		expect(text).not.toContain("sk-live-0a1b2c3d4e5f");
		expect(text).not.toContain("svc-token-5e6f7a8b9c");
		expect(text).toContain("https://docs.example.test/a?b=c");
	} finally {
		await runtime.shutdown();
	}
});
