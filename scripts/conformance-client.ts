// The adapter as an MCP client under the official conformance suite: connects to the scenario
// server (the last argument) through McpServerManager, lists its tools and calls each one with
// arguments built from its schema. When the server wants a sign-in, it runs the adapter's own
// OAuth sign-in, with a "browser" that follows the authorization redirect to the loopback
// callback (the suite's authorization endpoint approves at once), and tries again: at most three
// sign-ins, as a user would give up. Scenario settings (a pre-registered client, client
// credentials, the exact tool calls to make) come from MCP_CONFORMANCE_CONTEXT. Exit code 0 when
// every step worked.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientFeatures } from "../client/client-features.ts";
import { defineServer } from "../config.ts";
import { causeChain, isAuthError } from "../errors.ts";
import { signIn } from "../oauth/sign-in.ts";
import { credentialRenewal, signsInWithBrowser } from "../oauth-handler.ts";
import { McpServerManager } from "../server-manager.ts";
import { McpSkills } from "../skills/mcp-skills.ts";
import { SkillFolder } from "../skills/skill-folder.ts";
import type { ServerConnection } from "../transport/open-connection.ts";
import type { HttpServerEntry, JsonSchema } from "../types.ts";

/** Plausible arguments for a tool: the first enum value, 1 for numbers, "test" for strings, ... */
function sampleArgs(schema: JsonSchema): Record<string, unknown> {
	const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
	const out: Record<string, unknown> = {};
	for (const [name, prop] of Object.entries(props)) {
		if (Array.isArray(prop.enum)) out[name] = prop.enum[0];
		else if (prop.type === "number" || prop.type === "integer") out[name] = 1;
		else if (prop.type === "boolean") out[name] = true;
		else if (prop.type === "array") out[name] = [];
		else if (prop.type === "object") out[name] = {};
		else out[name] = "test";
	}
	return out;
}

/** The `oauth` settings a scenario's context calls for. */
function oauthFor(scenario: string, context: Record<string, string | undefined>): Record<string, unknown> {
	if (scenario.startsWith("auth/client-credentials")) {
		return {
			grantType: "client_credentials",
			clientId: context.client_id,
			clientSecret: context.client_secret,
			privateKey: context.private_key_pem,
			algorithm: context.signing_algorithm,
		};
	}
	// Workload identity and the enterprise sign-in read their JWT from the environment, as a CI job would.
	if (scenario.startsWith("auth/wif-")) {
		process.env.CONFORMANCE_WORKLOAD_TOKEN = context.valid_jwt;
		return { grantType: "jwt_bearer", clientId: context.client_id, assertionEnv: "CONFORMANCE_WORKLOAD_TOKEN" };
	}
	if (scenario === "auth/enterprise-managed-authorization") {
		process.env.CONFORMANCE_ID_TOKEN = context.idp_id_token;
		return {
			grantType: "enterprise",
			clientId: context.client_id,
			clientSecret: context.client_secret,
			idp: {
				tokenEndpoint: context.idp_token_endpoint,
				clientId: context.idp_client_id,
				idTokenEnv: "CONFORMANCE_ID_TOKEN",
			},
		};
	}
	if (context.client_id) return { clientId: context.client_id, clientSecret: context.client_secret };
	// The suite checks that this exact document URL is used where the server supports documents.
	return { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" };
}

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, string | undefined> & {
	toolCalls?: { name: string; arguments: Record<string, unknown> }[];
};
const agentDir = mkdtempSync(join(tmpdir(), "pi-mcp-conformance-"));
const entry = defineServer("conformance", { url, oauth: oauthFor(scenario, context) }) as HttpServerEntry;
const auth = { agentDir, env: process.env };
// The adapter's own client features, with a user who keeps every field's default (the SDK fills in
// the schema's defaults, SEP-1034) and then sends the answers. Enter alone would not: the safe
// choice ("Don't send") is listed first.
const features = new ClientFeatures({ agentDir, cwd: process.cwd() });
const pick = (options: string[]) =>
	options.find((o) => o.endsWith("(default)") || o === "(leave empty)" || o.startsWith("Done") || o === "Send") ??
	options[0];
features.host = {
	dialogs: {
		select: async (_t, options) => pick(options),
		input: async () => "",
		confirm: async () => true,
		notify: () => undefined,
	},
};
const manager = new McpServerManager({
	requestTimeoutMs: 20_000,
	auth,
	renewCredentials: credentialRenewal(auth),
	requests: features.requests(),
});
const started = performance.now();
const log = (text: string) => process.stderr.write(`[client +${Math.round(performance.now() - started)} ms] ${text}\n`);
const browser = (authorizationUrl: string) => {
	log(`opening ${new URL(authorizationUrl).origin}${new URL(authorizationUrl).pathname}`);
	void fetch(authorizationUrl).catch((error) => log(`browser: ${(error as Error).message}`));
};

/**
 * The skills scenarios (SEP-2640) where the model reaches for each listed skill: loaded as Pi loads
 * them (skills/mcp-skills.ts), its SKILL.md first, then every file of its folder. A skill that fails
 * a check is refused, and nothing more of it is fetched; the refusal is the expected outcome.
 */
async function loadEverySkill(connection: ServerConnection): Promise<void> {
	const skills = new McpSkills(new SkillFolder(agentDir), async () => ({
		blocked: () => undefined,
		connect: () => manager.connect(entry),
		approve: async () => undefined, // no approveTools here: the suite's server is the only one
		mask: (text) => text,
		requestTimeoutMs: 20_000,
	}));
	const [root] = skills.discover([{ server: entry.name, skills: connection.skills }]);
	for (const skill of skills.offered) {
		const folder = join(root, skill.piName);
		const refused =
			(await skills.beforeToolCall({ path: join(folder, "SKILL.md") }, process.cwd())) ??
			(await skills.beforeToolCall({ command: `ls -R ${folder}` }, process.cwd()));
		log(refused ? `skill refused: ${refused}` : `skill ${skill.piName} loaded, every file checked`);
	}
	skills.close();
}

/** Connects, lists, calls every tool; a refusal that needs a user becomes a sign-in, then the whole run again. */
async function run(signIns = 0): Promise<number> {
	try {
		const connection = await manager.connect(entry);
		log(
			`${scenario}: connected over ${connection.transportKind}, ${connection.tools.length} tools, ${connection.skills.length} skills`,
		);
		if (scenario.startsWith("sep-2640-client-verify")) await loadEverySkill(connection);
		let code = 0;
		// The scenario's own calls where it names them (exact values: nulls, non-ASCII text), else every tool once.
		const calls =
			context.toolCalls ?? connection.tools.map((t) => ({ name: t.name, arguments: sampleArgs(t.inputSchema) }));
		// JSON Schema 2020-12 preservation: the focal tool's schema, as the adapter holds it, sent back verbatim.
		const focal = connection.tools.find((t) => t.name === "json_schema_2020_12_tool");
		if (scenario === "json-schema-2020-12-preservation" && focal)
			calls.splice(0, calls.length, { name: "json_schema_echo", arguments: { schema: focal.inputSchema } });
		for (const call of calls) {
			log(`calling ${call.name}`);
			const result = await manager.callTool(entry.name, call.name, call.arguments);
			log(`${call.name}: ${JSON.stringify(result.content).slice(0, 200)}`);
			if (result.isError) code = 1;
		}
		return code;
	} catch (error) {
		// A grant that needs no user (client credentials, workload, enterprise) has no sign-in to fall back on.
		if (!isAuthError(error) || signIns >= 3 || !signsInWithBrowser(entry)) throw error;
		const challenge = manager.challenge(entry.name);
		log(`needs sign-in (${challenge?.status ?? "?"} ${challenge?.error ?? ""} ${challenge?.scope ?? ""}): signing in`);
		await manager.close(entry.name);
		const refusedScope = challenge?.scope;
		await signIn({ agentDir, entry, refusedScope, show: () => undefined, openBrowser: browser, timeoutMs: 15_000 });
		return run(signIns + 1);
	}
}

let code = 0;
try {
	code = await run();
} catch (error) {
	const causes = [...causeChain(error)]
		.filter((e): e is Error & { code?: string } => e instanceof Error)
		.map((e) => `${e.message}${e.code ? ` (${e.code})` : ""}`);
	log(`failed: ${causes.join(" <- ")}`);
	code = 1;
} finally {
	await manager.closeAll();
	rmSync(agentDir, { recursive: true, force: true });
}
process.exit(code);
