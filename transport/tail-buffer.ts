// The last few KB a server wrote to stderr, kept for error messages without growing memory.
/** Keeps only the last `limit` bytes written, so a chatty server cannot grow memory. */
export class TailBuffer {
	private chunks: Buffer[] = [];
	private size = 0;
	/** The byte just before what is kept, once bytes were dropped: does the kept text begin mid-word? */
	private lastDropped?: number;

	constructor(private readonly limit: number) {}

	push(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.size += chunk.length;
		while (this.size > this.limit && this.chunks.length > 1) {
			const dropped = this.chunks.shift() as Buffer;
			this.size -= dropped.length;
			if (dropped.length > 0) this.lastDropped = dropped[dropped.length - 1];
		}
		if (this.size > this.limit) {
			const only = this.chunks[0];
			this.lastDropped = only[only.length - this.limit - 1];
			this.chunks = [only.subarray(only.length - this.limit)];
			this.size = this.limit;
		}
	}

	/**
	 * What was kept. When it begins inside a word (bytes before it were dropped), that first word is
	 * left out: the scrubber cannot recognise the tail half of a cut token.
	 */
	text(): string {
		const text = Buffer.concat(this.chunks).toString("utf8");
		if (this.lastDropped === undefined || /\s/.test(String.fromCharCode(this.lastDropped))) return text;
		const start = text.search(/\s/);
		return start < 0 ? "" : text.slice(start + 1);
	}
}
