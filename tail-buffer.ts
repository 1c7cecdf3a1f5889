// The last few KB a server wrote to stderr, kept for error messages without growing memory.
/** Keeps only the last `limit` bytes written, so a chatty server cannot grow memory. */
export class TailBuffer {
	private chunks: Buffer[] = [];
	private size = 0;
	/** Bytes were dropped: the first kept line may begin mid-word. */
	private cut = false;
	constructor(private readonly limit: number) {}
	push(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.size += chunk.length;
		if (this.size > this.limit) this.cut = true;
		while (this.size > this.limit && this.chunks.length > 1) this.size -= (this.chunks.shift() as Buffer).length;
		if (this.size > this.limit) {
			const only = this.chunks[0];
			this.chunks = [only.subarray(only.length - this.limit)];
			this.size = this.limit;
		}
	}
	/**
	 * What was kept; once bytes were dropped, from the first whole line (or, in one long line, the
	 * first whole word) on: the scrubber cannot recognise the tail half of a cut token.
	 */
	text(): string {
		const text = Buffer.concat(this.chunks).toString("utf8");
		if (!this.cut) return text;
		const start = text.indexOf("\n") >= 0 ? text.indexOf("\n") : text.search(/\s/);
		return start < 0 ? "" : text.slice(start + 1);
	}
}
