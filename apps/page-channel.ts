// The channel an MCP App's view's messages travel between Pi and its page (apps/page-server.ts):
// an SDK `Transport` for the AppBridge, messages from the page arriving as POSTs, messages to it
// leaving on a server-sent events stream. One stream at a time: while the page's stream is open a
// second opener is refused (something else holding the page's address), and each stream starts
// with a key of its own that the page's POSTs carry, so a request with the address but without the
// open stream's key reaches nothing. A reload's new stream is taken once the old one has ended.
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";

/** Messages kept for a page that has not connected its stream yet. */
const MAX_PENDING = 256;

/** The header a page's POST names its stream's key in. */
export const STREAM_KEY_HEADER = "x-mcp-app-stream";

/** What became of a stream's opening: taken, refused while another is open, or the app has closed. */
export type Attached = "attached" | "busy" | "closed";

/** A POST's key: the open stream's, one of an earlier stream of this page (a reload's race), or none of ours. */
export type KeyCheck = "current" | "stale" | "unknown";

export class PageChannel implements Transport {
	onmessage?: (message: JSONRPCMessage) => void;
	onclose?: () => void;
	onerror?: (error: Error) => void;
	private stream?: { readonly res: ServerResponse; readonly key: string };
	/** Every key this page's streams were given (a POST with an older one is late, not foreign). */
	private readonly keys = new Set<string>();
	/** What the host sent before a page first connected (the view's answers come after). */
	private pending: string[] = [];
	private attached = false;
	private closed = false;

	async start(): Promise<void> {}

	async send(message: JSONRPCMessage): Promise<void> {
		const event = `data: ${JSON.stringify(message)}\n\n`;
		if (this.stream) this.stream.res.write(event);
		else if (!this.attached && this.pending.length < MAX_PENDING) this.pending.push(event);
	}

	/** A page's events stream: taken when none is open (its first event is its key), else not answered here. */
	attach(res: ServerResponse): Attached {
		if (this.closed) return "closed";
		if (this.stream) return "busy";
		const key = randomBytes(18).toString("base64url");
		this.keys.add(key);
		res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
		res.write(`event: key\ndata: ${key}\n\n`);
		for (const event of this.pending.splice(0)) res.write(event);
		this.attached = true;
		const stream = { res, key };
		this.stream = stream;
		res.on("close", () => {
			if (this.stream === stream) this.stream = undefined;
		});
		return "attached";
	}

	/** Whether a POST's key is the open stream's. */
	checkKey(key: string | string[] | undefined): KeyCheck {
		if (typeof key !== "string" || !this.keys.has(key)) return "unknown";
		return this.stream?.key === key ? "current" : "stale";
	}

	receive(message: JSONRPCMessage): void {
		if (!this.closed) this.onmessage?.(message);
	}

	connected(): boolean {
		return this.stream !== undefined;
	}

	/** Tells the page the app closed, and why (shown on the page). */
	end(reason: string): void {
		this.stream?.res.end(`event: closed\ndata: ${reason.replace(/[\r\n]+/g, " ")}\n\n`);
		this.stream = undefined;
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		this.end("closed");
		this.onclose?.();
	}
}
