import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// Scratch tool, run once by hand (README.md beside it): argv[2] is the folder holding MCP-Bench's
// Node servers (copied from its mcp_servers/, each `npm install --omit=dev`d), argv[3] the output.
const [ROOT, OUT] = process.argv.slice(2);
const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const servers: Record<string, { dir: string; cmd: string[]; env?: Record<string, string>; http?: number }> = {
	"OpenAPI Explorer": { dir: "openapi-mcp-server", cmd: ["node", "index.js", "run"] },
	Context7: { dir: "context7-mcp", cmd: [TSX, "src/index.ts"] },
	"DEX Paprika": { dir: "dexpaprika-mcp", cmd: ["node", "src/index.js"] },
	"Huge Icons": { dir: "hugeicons-mcp-server", cmd: [TSX, "src/index.ts"] },
	"Math MCP": { dir: "math-mcp", cmd: [TSX, "src/index.ts"] },
	"National Parks": { dir: "mcp-server-nationalparks", cmd: [TSX, "src/index.ts"], env: { NPS_API_KEY: "dummy" } },
	"Metropolitan Museum": { dir: "metmuseum-mcp", cmd: [TSX, "src/index.ts"] },
	"OKX Exchange": { dir: "okx-mcp", cmd: [TSX, "src/index.ts"] },
	"Google Maps": {
		dir: "mcp-google-map",
		cmd: [TSX, "src/cli.ts", "--port", "39311"],
		env: { GOOGLE_MAPS_API_KEY: "dummy" },
		http: 39311,
	},
};
const out: Record<string, unknown> = {};
for (const [name, s] of Object.entries(servers)) {
	const client = new Client({ name: "harvest", version: "1" });
	let child: ReturnType<typeof spawn> | undefined;
	try {
		if (s.http) {
			child = spawn(s.cmd[0], s.cmd.slice(1), {
				cwd: join(ROOT, s.dir),
				env: { ...process.env, ...s.env },
				stdio: "ignore",
			});
			// The server listens over HTTP only; its start is not announced on any stream we read.
			await new Promise((r) => setTimeout(r, 12000));
			await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${s.http}/mcp`)));
		} else {
			await client.connect(
				new StdioClientTransport({
					command: s.cmd[0],
					args: s.cmd.slice(1),
					cwd: join(ROOT, s.dir),
					env: { ...process.env, ...s.env } as Record<string, string>,
					stderr: "ignore",
				}),
			);
		}
		const listed = await client.listTools();
		out[name] = { serverInfo: client.getServerVersion(), instructions: client.getInstructions(), tools: listed.tools };
		console.log(name, listed.tools.map((t) => t.name).join(", "));
	} catch (e) {
		console.log(name, "FAILED", (e as Error).message);
	} finally {
		await client.close().catch(() => {});
		child?.kill();
	}
}
writeFileSync(OUT, JSON.stringify(out, null, 1));
