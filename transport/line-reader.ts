// Newline-delimited JSON-RPC reading, shared by the stdio transport and the broker's socket:
// each chunk is scanned once (the SDK's ReadBuffer concatenates and re-scans its whole buffer on
// every chunk: 200 MB without a newline cost 152 s of CPU), a line's pieces are joined once, and
// a line over the limit ends the reading with a clear reason instead of growing memory.
import type { JSONRPCMessage } from "@modelcontextprotocol/client";

export interface LineReaderOptions {
	/** A message (one line) longer than this is refused: `onOverflow` is told, the rest is dropped. */
	readonly maxMessageBytes: number;
	/** Turns a line into a message (the SDK's deserializeMessage); throws on a line that is not one. */
	readonly parse: (line: string) => JSONRPCMessage;
	readonly onMessage: (message: JSONRPCMessage) => void;
	readonly onOverflow: () => void;
}

export class LineReader {
	private chunks: Buffer[] = [];
	private pendingBytes = 0;
	/** The longest line accepted; may be raised once the peer is known (the broker's sessions). */
	limit: number;

	constructor(private readonly options: LineReaderOptions) {
		this.limit = options.maxMessageBytes;
	}

	read(chunk: Buffer): void {
		let start = 0;
		for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
			const piece = chunk.subarray(start, newline);
			const line = this.pendingBytes > 0 ? Buffer.concat([...this.chunks, piece]) : piece;
			this.chunks = [];
			this.pendingBytes = 0;
			start = newline + 1;
			this.deliver(line);
		}
		if (start >= chunk.length) return;
		const rest = chunk.subarray(start);
		this.pendingBytes += rest.length;
		this.chunks.push(rest);
		if (this.pendingBytes > this.limit) {
			this.chunks = [];
			this.pendingBytes = 0;
			this.options.onOverflow();
		}
	}

	private deliver(raw: Buffer): void {
		const line = raw.toString("utf8").replace(/\r$/, "");
		if (line.trim() === "") return;
		let message: JSONRPCMessage;
		try {
			message = this.options.parse(line);
		} catch {
			return; // not JSON-RPC (a chatty library printing to stdout): skipped, as the SDK's own transport does
		}
		this.options.onMessage(message);
	}
}
