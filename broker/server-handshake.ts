// Starting a shared server (broker/shared-server.ts): its process, and the one `initialize` it
// hears, spoken with the first session's capabilities, bounded by the connect deadline and ended
// early by the process exiting. Every other message the server sends goes to the relay.

import { deserializeMessage, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { StdioTransport } from "../transport/stdio.ts";
import type { OpenParams } from "./wire.ts";

const INIT_ID = "pi-broker-initialize";

type Reply = JSONRPCMessage & { id?: unknown; method?: string; result?: unknown; error?: unknown };

/** The server's process, started (its stdio transport: not yet spoken to). */
export function spawnShared(params: OpenParams, onStderr: (chunk: Buffer) => void): StdioTransport {
	const { launch, maxMessageBytes } = params;
	return new StdioTransport({
		command: launch.command,
		args: launch.args,
		env: launch.env,
		cwd: launch.cwd,
		maxMessageBytes,
		parse: deserializeMessage,
		onStderr,
	});
}

export interface HandshakeHooks {
	/** Every message of the server's but the answer to our `initialize`. */
	readonly onMessage: (message: JSONRPCMessage) => void;
	/** The process ended (during the handshake too, after its failure). */
	readonly onExit: () => void;
	/** Why the process ended during the handshake, in words. */
	readonly exitReason: () => string;
}

/** Speaks `initialize` (with `init`, the first session's params) and `initialized`; resolves with the server's result. */
export async function handshake(
	transport: StdioTransport,
	params: OpenParams,
	init: Record<string, unknown>,
	hooks: HandshakeHooks,
): Promise<unknown> {
	let answer: (message: Reply) => void = () => undefined;
	const answered = new Promise<Reply>((resolve) => (answer = resolve));
	transport.onmessage = (message) => {
		const m = message as Reply;
		if (m.id === INIT_ID && m.method === undefined) answer(m);
		else hooks.onMessage(message);
	};
	const ended = new Promise<never>((_, reject) => {
		transport.onclose = () => {
			reject(new Error(hooks.exitReason()));
			hooks.onExit();
		};
	});
	ended.catch(() => undefined); // raced below; after the handshake a late exit is the relay's (`onExit`)
	const { connectTimeoutMs, name } = params;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const timeout = new Promise<never>((_, reject) => {
		const late = () =>
			reject(new Error(`Server "${name}" did not answer initialize within ${Math.round(connectTimeoutMs / 1000)} s`));
		timer = setTimeout(late, connectTimeoutMs);
	});
	timeout.catch(() => undefined); // raced below; firing after the handshake means nothing
	try {
		await transport.start();
		await transport.send({ jsonrpc: "2.0", id: INIT_ID, method: "initialize", params: init } as JSONRPCMessage);
		const reply = await Promise.race([answered, ended, timeout]);
		if (reply.error) throw new Error(`Server "${name}" refused initialize: ${JSON.stringify(reply.error)}`);
		await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage);
		return reply.result;
	} finally {
		clearTimeout(timer);
	}
}
