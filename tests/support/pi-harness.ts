// The real Pi in process with the faux model: a session that loads this package as an extension
// from its index.ts, in a temp cwd and agentDir, and records every context the model was sent.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
	type Context,
	type FauxResponseFactory,
	type FauxResponseStep,
	fauxAssistantMessage,
	fauxText,
	registerFauxProvider,
} from "@mariozechner/pi-ai";
import {
	type AgentSession,
	AuthStorage,
	createAgentSession,
	DefaultResourceLoader,
	ModelRegistry,
	SessionManager,
	SettingsManager,
} from "@mariozechner/pi-coding-agent";
import { ROOT, tempDir } from "./helpers.ts";

export interface PiHarness {
	readonly session: AgentSession;
	readonly cwd: string;
	readonly agentDir: string;
	/** Every context the model received, in order. */
	readonly contexts: Context[];
	dispose(): Promise<void>;
}

export interface PiHarnessOptions {
	readonly mcpConfig: unknown;
	/** Each step sees the context the model was sent (tools, messages). */
	readonly responses: FauxResponseStep[];
	readonly env?: Record<string, string>;
	/** Files to write under agentDir before Pi starts (e.g. a warm cache). */
	readonly agentFiles?: Record<string, string>;
	/** Load this package as an extension (default true); false gives a baseline Pi. */
	readonly extension?: boolean;
	/** A folder (holding agent/ and work/) kept across sessions, as a user's machine keeps them; not removed by dispose. */
	readonly home?: string;
}

export async function startPi(options: PiHarnessOptions): Promise<PiHarness> {
	const dir = options.home ? { path: options.home, remove: () => undefined } : tempDir("pi-mcp-pi-");
	const cwd = join(dir.path, "work");
	const agentDir = join(dir.path, "agent");
	mkdirSync(cwd, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(join(agentDir, "mcp.json"), JSON.stringify(options.mcpConfig));
	for (const [name, content] of Object.entries(options.agentFiles ?? {})) writeFileSync(join(agentDir, name), content);
	const saved: Record<string, string | undefined> = {};
	for (const [k, v] of Object.entries({ PI_CODING_AGENT_DIR: agentDir, ...options.env })) {
		saved[k] = process.env[k];
		process.env[k] = v;
	}

	const contexts: Context[] = [];
	const faux = registerFauxProvider();
	faux.setResponses(
		options.responses.map((step) =>
			typeof step === "function"
				? (((context, streamOptions, state, model) => {
						contexts.push(snapshot(context));
						return step(context, streamOptions, state, model);
					}) satisfies FauxResponseFactory)
				: (context: Context) => {
						contexts.push(snapshot(context));
						return step;
					},
		),
	);
	const authStorage = AuthStorage.inMemory();
	authStorage.setRuntimeApiKey("faux", "x");
	const settingsManager = SettingsManager.inMemory({ retry: { enabled: false } });
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		additionalExtensionPaths: options.extension === false ? [] : [join(ROOT, "index.ts")],
		noSkills: true,
		noPromptTemplates: true,
		noContextFiles: true,
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		authStorage,
		modelRegistry: ModelRegistry.inMemory(authStorage),
		model: faux.getModel(),
		settingsManager,
		sessionManager: SessionManager.inMemory(cwd),
		resourceLoader,
	});
	await session.bindExtensions({});
	return {
		session,
		cwd,
		agentDir,
		contexts,
		async dispose() {
			// What Pi's runtime does on quit: session_shutdown to extensions, then dispose.
			await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
			session.dispose();
			faux.unregister();
			for (const [k, v] of Object.entries(saved)) {
				if (v === undefined) delete process.env[k];
				else process.env[k] = v;
			}
			dir.remove();
		},
	};
}

/** The text of the last tool result in a context, and the tool that produced it. */
export function lastToolResult(context: Context): { toolName: string; text: string; isError: boolean } | undefined {
	for (let i = context.messages.length - 1; i >= 0; i--) {
		const m = context.messages[i];
		if (m.role === "toolResult") {
			const text = m.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
			return { toolName: m.toolName, text, isError: m.isError };
		}
	}
	return undefined;
}

/** A copy of what the model was sent; tools carry functions, so only their wire fields are kept. */
function snapshot(context: Context): Context {
	return {
		systemPrompt: context.systemPrompt,
		messages: structuredClone(context.messages),
		tools: context.tools?.map((t) => ({
			name: t.name,
			description: t.description,
			parameters: JSON.parse(JSON.stringify(t.parameters)),
		})),
	};
}

/** A real first session (the model answers at once) in `home`, as a user's first run: it fills the cache. */
export async function firstSession(home: string, mcpConfig: unknown): Promise<void> {
	const pi = await startPi({ home, mcpConfig, responses: [fauxAssistantMessage(fauxText("hello"))] });
	await pi.session.prompt("hi");
	await pi.dispose();
}
