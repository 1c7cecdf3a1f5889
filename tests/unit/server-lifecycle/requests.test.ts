// server-lifecycle/requests.ts over the typed fake pool: a request reaches its server as the server
// knows it (a URI with its own token), every answer comes back with known secrets masked, and a
// tool `approveTools` names is asked about first.
import { describe, expect, it } from "vitest";
import { ToolCatalog } from "../../../catalog/tool-catalog.ts";
import type { ApprovalRefusal } from "../../../client/tool-approval.ts";
import { type AskApproval, MaskedRequests } from "../../../server-lifecycle/requests.ts";
import type { ServerEntry } from "../../../types.ts";
import { FakePool, type FakeServer } from "../../support/fake-pool.ts";
import { configOf } from "../../support/helpers.ts";

const SECRET = "sk-live-0123456789abcdef";
const TOOL = { server: "x", name: "t", description: "a tool", inputSchema: { type: "object" } };

/** Requests to fake server `x` (its config entry's extra `fields`), once connected. */
async function requestsTo(
	server: Partial<FakeServer>,
	fields: Record<string, unknown> = {},
	askApproval?: AskApproval,
) {
	const config = configOf({ x: { command: "fake", ...fields } });
	const pool = new FakePool({ x: { tools: [TOOL], ...server } });
	pool.redactor.add(SECRET);
	await pool.connect(config.servers.get("x") as ServerEntry);
	const catalog = new ToolCatalog("server", ["x"]);
	catalog.set("x", { tools: [TOOL], resources: [] }, true);
	const used: string[] = [];
	const read: string[] = [];
	const requests = new MaskedRequests({
		pool,
		catalog,
		config: () => config,
		askApproval,
		onRequest: (name) => used.push(name),
		onRead: (_connection, uri) => read.push(uri),
	});
	return { requests, pool, used, read };
}

describe("the requests to a server, masked (server-lifecycle/requests.ts)", () => {
	it("reads a resource at the URI the server listed, token and all, and answers with the token masked", async () => {
		const uri = `https://api.example.com/doc?key=${SECRET}`;
		const { requests, pool, used, read } = await requestsTo({ resources: [{ uri, name: "doc" }] });
		const shown = pool.redactor.scrubSecrets(uri); // as the catalog keeps it, and the model sees it
		expect(shown).not.toContain(SECRET);
		const result = await requests.readResource("x", shown);
		expect(read).toEqual([uri]); // what the server was asked for, and what the session now follows
		expect(JSON.stringify(result)).not.toContain(SECRET);
		expect(used).toEqual(["x"]);
	});

	it("masks a secret in a tool's answer and in its progress, telling which server was used", async () => {
		const { requests, used } = await requestsTo({
			progress: [`reading with ${SECRET}`],
			answer: () => ({ content: [{ type: "text", text: `token ${SECRET}` }] }),
		});
		const heard: string[] = [];
		const result = await requests.callTool("x", "t", {}, { onProgress: (p) => heard.push(p.message ?? "") });
		expect(JSON.stringify([result, heard])).not.toContain(SECRET);
		expect(heard).toEqual([expect.stringMatching(/^reading with \S+$/)]);
		expect(used).toEqual(["x"]);
	});

	it("asks the user about a tool approveTools names, and no one else's", async () => {
		const asked: string[] = [];
		const refusal: ApprovalRefusal = { error: "approval_denied", message: "The user said no" };
		const ask: AskApproval = async (_entry, tool) => {
			asked.push(tool.name);
			return refusal;
		};
		const named = await requestsTo({}, { approveTools: ["t"] }, ask);
		expect(await named.requests.approveCall(TOOL, {})).toBe(refusal);
		const unnamed = await requestsTo({}, {}, ask);
		expect(await unnamed.requests.approveCall(TOOL, {})).toBeUndefined();
		expect(asked).toEqual(["t"]);
	});

	it("refuses a tool approveTools names when no one can be asked", async () => {
		const { requests, pool } = await requestsTo({}, { approveTools: true });
		expect(await requests.approveCall(TOOL, {})).toEqual({
			error: "approval_required",
			message: 't on "x" needs the user\'s approval ("approveTools"), and no one can be asked here.',
		});
		expect(pool.calls).toEqual([]);
	});
});
