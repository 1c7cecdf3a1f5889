// Keeps a huge tool result from flooding the model's context: text over the limits reaches the
// model as a head preview plus the path of a private file holding the whole text, which the model
// can read or grep. Images pass through. Binary resources are saved there too, for the model to
// read by path. Files live in one private temp folder removed at shutdown.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PiContent } from "./tool-results.ts";

export interface OutputLimits {
	/** Text above this many bytes is saved to a file (default 50 KB). */
	readonly maxBytes: number;
	/** ... or above this many lines (default 2000). */
	readonly maxLines: number;
	/** How much of the head the model sees inline (default 8 KB / 200 lines). */
	readonly previewBytes: number;
	readonly previewLines: number;
}

export const DEFAULT_OUTPUT_LIMITS: OutputLimits = {
	maxBytes: 50 * 1024,
	maxLines: 2000,
	previewBytes: 8 * 1024,
	previewLines: 200,
};

export class OutputGuard {
	private dir?: string;
	private count = 0;

	/** `false` turns the guard off. */
	constructor(private readonly limits: OutputLimits | false = DEFAULT_OUTPUT_LIMITS) {}

	/** The content as the model should get it; `label` names the file (the tool's name). */
	apply(content: readonly PiContent[], label: string): PiContent[] {
		if (!this.limits) return [...content];
		const text = content
			.filter((c) => c.type === "text")
			.map((c) => c.text)
			.join("\n");
		const bytes = Buffer.byteLength(text);
		const lines = countLines(text);
		if (bytes <= this.limits.maxBytes && lines <= this.limits.maxLines) return [...content];
		const file = this.save(text, label);
		const preview = head(text, this.limits.previewBytes, this.limits.previewLines);
		const note =
			`\n\n[Output truncated: ${formatBytes(bytes)}, ${lines.toLocaleString("en-US")} lines; showing the first ${countLines(preview)} lines. ` +
			`The whole output is in ${file}; read or grep that file for the rest.]`;
		const images = content.filter((c) => c.type === "image");
		return [{ type: "text", text: preview + note }, ...images];
	}

	/** Saves a binary resource (base64) and returns its path, named after the URI's last segment. */
	saveBlob(base64: string, uri: string | undefined): string {
		const last = uri?.split(/[/?#]/).filter(Boolean).pop() ?? "resource";
		return this.write(Buffer.from(base64, "base64"), (n) => `${n}-${safeName(last)}`);
	}

	/** Removes every file this guard wrote. */
	dispose(): void {
		if (this.dir) rmSync(this.dir, { recursive: true, force: true });
		this.dir = undefined;
	}

	private save(text: string, label: string): string {
		return this.write(text, (n) => `${safeName(label)}-${n}.txt`);
	}

	private write(data: string | Buffer, name: (n: number) => string): string {
		this.dir ??= mkdtempSync(join(tmpdir(), "pi-mcp-output-"));
		const file = join(this.dir, name(++this.count));
		writeFileSync(file, data, { mode: 0o600 });
		return file;
	}
}

/** A file name from a label or URI segment: no path separators, no leading dots. */
function safeName(label: string): string {
	return (
		label
			.replace(/[^A-Za-z0-9_.-]+/g, "_")
			.replace(/^\.+/, "")
			.slice(0, 60) || "output"
	);
}

/** Lines as an editor counts them: a final newline does not start another line. */
function countLines(text: string): number {
	if (text.length === 0) return 0;
	let n = text.endsWith("\n") ? 0 : 1;
	for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
	return n;
}

/** The first lines of a text within both limits, cut at a line end when there is one. */
function head(text: string, maxBytes: number, maxLines: number): string {
	let end = 0;
	let bytes = 0;
	for (let line = 0; line < maxLines && end < text.length; line++) {
		const next = text.indexOf("\n", end);
		const stop = next < 0 ? text.length : next + 1;
		bytes += Buffer.byteLength(text.slice(end, stop)); // each line counted once
		if (bytes > maxBytes) break;
		end = stop;
	}
	// A single line longer than the budget: cut it by characters rather than show nothing.
	if (end === 0) return text.slice(0, maxBytes);
	return text.slice(0, end).replace(/\n$/, "");
}

function formatBytes(bytes: number): string {
	if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
	return `${(bytes / 1024).toFixed(1)} KB`;
}
