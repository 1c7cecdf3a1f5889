// What every `mcp` mode answers with: the result shape, its run options, and the notes that say
// which servers an answer could not cover (still starting, failed, awaiting approval).

import type { Servers } from "../lifecycle.ts";
import type { Progress } from "../server-manager.ts";
import type { ToolMetadata } from "../types.ts";
import type { OutputGuard } from "./output-guard.ts";
import { startingText } from "./server-status.ts";
import type { McpResultLike, PiContent } from "./tool-results.ts";

export interface ProxyResult {
	readonly content: PiContent[];
	readonly isError: boolean;
	readonly details: { readonly mode: string; readonly [key: string]: unknown };
}

export interface ProxyRunOptions {
	readonly signal?: AbortSignal;
	/** Progress the server reports during a call. */
	readonly onProgress?: (progress: Progress) => void;
	/** Moves oversized text to a file; without one, results pass whole (the CLI). */
	readonly output?: OutputGuard;
	/** How long a status answer waits for the servers starting with the session (the CLI waits longer: it has nothing else to do). */
	readonly statusWaitMs?: number;
	/** Why an answer is waiting (a server it needs is installing or starting), about once a second. */
	readonly onWait?: (text: string) => void;
	/** What became of a server's questions during a call (declined without a UI, ...), for its result. */
	readonly notes?: (server: string) => string[];
	/** Hears a tool call's whole result as the server sent it (known secrets scrubbed): what codemode scripts get. */
	readonly onResult?: (result: McpResultLike) => void;
	/**
	 * MCP Apps: shows a tool's successful result in the `ui://` view it declares (apps/); answers the
	 * line the result ends with, saying what became of the view (open, not shown and why), if any.
	 */
	readonly showApp?: (call: AppCall, signal?: AbortSignal) => Promise<string | undefined>;
}

/** A call whose tool declares a view (`_meta.ui.resourceUri`), with its result. */
export interface AppCall {
	readonly tool: ToolMetadata & { readonly ui: { readonly resourceUri: string } };
	readonly args: Record<string, unknown>;
	readonly result: McpResultLike;
}

export const text = (t: string): PiContent[] => [{ type: "text", text: t }];
export const ok = (mode: string, body: string, details: Record<string, unknown> = {}): ProxyResult => ({
	content: text(body),
	isError: false,
	details: { mode, ...details },
});
export const failure = (mode: string, body: string, details: Record<string, unknown> = {}): ProxyResult => ({
	content: text(body),
	isError: true,
	details: { mode, error: true, ...details },
});

export function failedNote(lifecycle: Servers): string {
	const names = lifecycle.serverNames();
	const failed = names.filter((n) => ["failed", "needs-auth"].includes(lifecycle.state(n)));
	const waiting = names.filter((n) => lifecycle.state(n) === "awaiting-approval");
	const starting = names.filter((n) => lifecycle.starting(n) && !lifecycle.catalog.has(n));
	const notes: string[] = [];
	// Only a search with a good answer already skips waiting for them: that answer stands.
	if (starting.length > 0)
		notes.push(
			`\n(not searched, still starting: ${starting.map((n) => `${n} (${startingText(lifecycle, n)})`).join(", ")})`,
		);
	if (failed.length > 0) notes.push(`\n(not searched, failed to connect: ${failed.join(", ")})`);
	if (waiting.length > 0)
		notes.push(`\n(not searched, awaiting approval: ${waiting.join(", ")}; ask the user to run /mcp approve)`);
	return notes.join("");
}
