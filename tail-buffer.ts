// The last few KB a server wrote to stderr, kept for error messages without growing memory.
/** Keeps only the last `limit` bytes written, so a chatty server cannot grow memory. */
export class TailBuffer {
	private chunks: Buffer[] = [];
	private size = 0;
	constructor(private readonly limit: number) {}
	push(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.size += chunk.length;
		while (this.size > this.limit && this.chunks.length > 1) this.size -= (this.chunks.shift() as Buffer).length;
		if (this.size > this.limit) {
			const only = this.chunks[0];
			this.chunks = [only.subarray(only.length - this.limit)];
			this.size = this.limit;
		}
	}
	text(): string {
		return Buffer.concat(this.chunks).toString("utf8");
	}
}
