// What every request to a server goes out with, decided before it is sent: its timeout (the
// entry's, in seconds, or the settings'), restarted by the server's progress up to a cap; the
// arguments' size limit; and, for a server that needs the user to visit a page first, asking them.
import type { ElicitRequestURLParams } from "@modelcontextprotocol/client";
import type { ClientRequests, ServerConnection } from "../transport/open-connection.ts";
import { DEFAULT_SETTINGS } from "../types.ts";
import type { CallOptions, ServerManagerOptions } from "./pool-types.ts";

export const DEFAULT_MAX_ARGUMENT_BYTES = DEFAULT_SETTINGS.maxArgumentMB * 1024 * 1024;

/** Refuses, before sending, arguments over the limit: with what to do instead. */
export function checkArgumentSize(
	tool: string,
	args: Record<string, unknown>,
	limit = DEFAULT_MAX_ARGUMENT_BYTES,
): void {
	const size = Buffer.byteLength(JSON.stringify(args));
	if (size <= limit) return;
	throw new Error(
		`The arguments for ${tool} are ${formatMb(size)}, over the ${formatMb(limit)} limit: they were not sent. Pass a file path or a smaller piece instead (settings.maxArgumentMB raises the limit).`,
	);
}

/** Per-server `timeout` is in seconds (Pi's mcp.json); settings are in ms. */
export function requestTimeout(connection: ServerConnection, options: ServerManagerOptions): number {
	const seconds = connection.entry.timeout;
	return seconds !== undefined ? seconds * 1000 : (options.requestTimeoutMs ?? DEFAULT_SETTINGS.requestTimeoutMs);
}

/** The SDK's request options for one call: signal, timeout, the progress that restarts it, and its cap. */
export function requestOptions(connection: ServerConnection, call: CallOptions, options: ServerManagerOptions) {
	return {
		signal: call.signal,
		timeout: call.timeoutMs ?? requestTimeout(connection, options),
		// A server that reports progress is working: each report restarts the timeout, up to a cap.
		resetTimeoutOnProgress: true,
		maxTotalTimeout: options.maxTotalTimeoutMs ?? DEFAULT_SETTINGS.maxTotalTimeoutMs,
		onprogress: call.onProgress
			? (p: { progress: number; total?: number; message?: string }) =>
					call.onProgress?.({ progress: p.progress, total: p.total, message: p.message })
			: undefined,
	};
}

/** For a "URL elicitation required" error: asks the user to open each page; true when all were accepted. */
export async function visitRequiredPages(
	requests: ClientRequests | undefined,
	server: string,
	error: unknown,
	signal: AbortSignal | undefined,
): Promise<boolean> {
	const elicit = requests?.elicit;
	const { data } = (error ?? {}) as { data?: { elicitations?: unknown } };
	if (!elicit || !Array.isArray(data?.elicitations) || data.elicitations.length === 0) return false;
	for (const page of data.elicitations as ElicitRequestURLParams[]) {
		if (page?.mode !== "url" || typeof page.url !== "string") return false;
		const answer = await elicit(server, page, signal ?? new AbortController().signal);
		if (answer.action !== "accept") return false;
	}
	return true;
}

function formatMb(bytes: number): string {
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
