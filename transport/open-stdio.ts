// Opening a stdio server: here through our own transport (linear reading, process-group kill), or
// through the per-user broker when it shares the server. The process starts before the SDK is asked
// for (loading it holds the event loop, and the spawn would wait behind it).
import type { Client, JSONRPCMessage } from "@modelcontextprotocol/client";
import { untilAborted } from "../bounds/waits.ts";
import { resolveCommandValues } from "../config/command-values.ts";
import { resolvedSecrets } from "../config/entry-secrets.ts";
import { describeError } from "../errors.ts";
import { oneLine, terminalSafe } from "../trust/safe-text.ts";
import type { StdioServerEntry } from "../types.ts";
import type { Launch, Opened, OpenOptions } from "./connection-types.ts";
import { startFailure } from "./failure-words.ts";
import { connectClient, definedOnly, newClient } from "./mcp-client.ts";
import type { McpSdk } from "./mcp-sdk.lazy.ts";
import { openShared } from "./open-shared.ts";
import { StdioTransport } from "./stdio.ts";
import { TailBuffer } from "./tail-buffer.ts";

export const STDERR_TAIL_BYTES = 8 * 1024;

export async function openStdio(
	loading: () => Promise<McpSdk>,
	entry: StdioServerEntry,
	launch: Launch,
	options: OpenOptions,
	signal: AbortSignal,
): Promise<Opened> {
	const stderr = new TailBuffer(STDERR_TAIL_BYTES);
	const inherited = definedOnly(options.env);
	const env = await resolveCommandValues(entry.env, "env", inherited);
	options.redactor.add(...resolvedSecrets(entry, env));
	if (signal.aborted) throw signal.reason;
	if (options.broker?.shares(entry)) {
		// The folder it would run in here: the broker's own is not the session's project.
		const launched = {
			command: launch.command,
			args: launch.args,
			env: { ...inherited, ...env },
			cwd: entry.cwd ?? process.cwd(),
		};
		const sdk = await untilAborted(loading(), signal);
		options.onLaunched?.();
		const shared = await openShared(sdk, entry, launched, { ...options, broker: options.broker }, signal);
		if (shared) return shared;
	}
	/** The SDK's message parsing, once it is loaded: the server says nothing before it is asked (a line before then is skipped). */
	let parse: ((line: string) => JSONRPCMessage) | undefined;
	const transport = new StdioTransport({
		command: launch.command,
		args: launch.args,
		env: { ...inherited, ...env },
		cwd: entry.cwd,
		maxMessageBytes: options.maxMessageBytes,
		parse: (line) => {
			if (!parse) throw new Error("not asked yet");
			return parse(line);
		},
		onStderr: (chunk) => {
			stderr.push(chunk);
			if (entry.debug)
				(options.debugLog ?? defaultDebugLog)(entry.name, options.redactor.scrub(chunk.toString("utf8")));
		},
	});
	const killSync = () => transport.killSync();
	options.live?.add(killSync);
	let client: Client | undefined;
	const close = async () => {
		if (client) client.onclose = undefined;
		await client?.close().catch(() => undefined); // the transport below ends the process whatever the client says
		await transport.close();
		options.live?.delete(killSync);
	};
	try {
		// The server starts first, then the SDK loads (the session's first connect) while it boots; the
		// client speaks once both are ready.
		const spawned = transport.start();
		options.onLaunched?.();
		const sdk = await untilAborted(
			Promise.all([loading(), spawned]).then(([loaded]) => loaded),
			signal,
		);
		parse = sdk.deserializeMessage;
		client = newClient(sdk, entry, options.requests);
		// A server that stopped reading gets its moment to exit before it is ended: its exit code is the news.
		await connectClient(client, transport, options, signal, () => transport.settle().then(close));
	} catch (error) {
		if (!client) await close(); // stopped before the client owned the transport
		const tail = stderr.text().trim();
		const why = startFailure(error, transport.exit);
		if (!tail && why === describeError(error)) throw error;
		throw new Error(tail ? `${why}\nServer stderr:\n${tail}` : why, { cause: error });
	}
	return {
		client,
		kind: "stdio",
		pid: transport.pid,
		stderrTail: () => stderr.text(),
		transportFailure: () => transport.failure,
		exitStatus: () => transport.exit,
		settle: () => transport.settle(),
		close,
		killSync,
	};
}

function defaultDebugLog(server: string, text: string): void {
	process.stderr.write(terminalSafe(text).replace(/^(?=.)/gm, `[mcp:${oneLine(server)}] `));
}
