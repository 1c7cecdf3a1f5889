// How an `mcp` call looks in Pi's TUI: `mcp everything echo(message: "hi")` instead of a bare
// `mcp`, and its result as one line (the first line of the answer, or the error) until expanded.
// Components are plain objects with Pi's Component shape (render, invalidate): no runtime import
// of a Pi package, so the same code serves every Pi line. A component's lines are kept per width
// until invalidated: Pi 1.6 takes `render()`'s array as read-only and keeps a container's lines while
// its children return the same arrays (#9549), so a long transcript is not drawn again at each frame
// of a fullscreen scroll; older lines copy what a child returns.

import type { ProxyInput } from "../proxy/surface.ts";
import { oneLine } from "../trust/safe-text.ts";

/** What a renderer uses of Pi's theme (both Pi lines have these). */
export interface ThemeLike {
	fg(color: "toolTitle" | "accent" | "muted" | "dim" | "error" | "success" | "toolOutput", text: string): string;
	bold(text: string): string;
}

export interface LineComponent {
	/** Pi 1.6's `readonly string[]`, typed as the older lines' Component (whose containers copy it). */
	render(width: number): string[];
	invalidate(): void;
}

/** A piece of a line: its text and how to color it. */
type Piece = readonly [text: string, style?: (text: string) => string];

/** Finds which server and tool a name the model used means (from the session's catalog). */
export type ToolLookup = (name: string) => { server: string; tool: string } | undefined;

interface ResultLike {
	readonly content?: readonly { type: string; text?: string }[];
	readonly details?: unknown;
	readonly isError?: boolean;
}

const ARG_CHARS = 40;

/** The call line: mode, server and tool, and a short view of the arguments. */
export function renderProxyCall(args: ProxyInput, theme: ThemeLike, lookup: ToolLookup): LineComponent {
	const head: Piece = ["mcp", (t) => theme.fg("toolTitle", theme.bold(t))];
	const accent = (t: string) => theme.fg("accent", t);
	const muted = (t: string) => theme.fg("muted", t);
	let pieces: Piece[];
	if (args.tool) {
		const found = lookup(args.tool);
		const target: Piece[] = found ? [[` ${found.server}`, accent], [` ${found.tool}`]] : [[` ${args.tool}`]];
		pieces = [head, ...target, [`(${argsPreview(args.args)})`, muted]];
	} else if (args.connect) pieces = [head, [" connect"], [` ${args.connect}`, accent]];
	else if (args.describe) pieces = [head, [" describe"], [` ${args.describe}`, accent]];
	else if (args.search)
		pieces = [
			head,
			[" search"],
			[` ${JSON.stringify(args.search)}`, muted],
			...(args.server ? [[` in ${args.server}`, accent] as Piece] : []),
		];
	else if (args.server) pieces = [head, [" list"], [` ${args.server}`, accent]];
	else pieces = [head, [" status"]];
	return lines(() => [pieces]);
}

/** The result: one line collapsed (the answer's first line, or the error); all of it expanded. */
export function renderProxyResult(
	result: ResultLike,
	options: { expanded: boolean; isPartial: boolean },
	theme: ThemeLike,
): LineComponent {
	const text = (result.content ?? []).map((c) => (c.type === "text" ? (c.text ?? "") : `[${c.type}]`)).join("\n");
	const all = text.split("\n");
	const first = all.find((l) => l.trim() !== "") ?? "(no output)";
	const failed = result.isError === true || (result.details as { error?: boolean } | undefined)?.error === true;
	if (options.isPartial) return lines(() => [[[first, (t) => theme.fg("muted", t)]]]);
	if (!options.expanded) {
		const more = all.filter((l) => l.trim() !== "").length - 1;
		const tail: Piece[] =
			more > 0 ? [[` (+${more} more line${more === 1 ? "" : "s"})`, (t) => theme.fg("dim", t)]] : [];
		return lines(() => [[[first, (t) => theme.fg(failed ? "error" : "toolOutput", t)], ...tail]]);
	}
	return lines((width) =>
		all
			.flatMap((line) => wrap(line, width))
			.map((l): Piece[] => [[l, (t) => theme.fg(failed ? "error" : "toolOutput", t)]]),
	);
}

/** `message: "hi", count: 3`: each value cut short, the whole fit to the line later. */
function argsPreview(raw: unknown): string {
	let value = raw;
	if (typeof raw === "string") {
		try {
			value = JSON.parse(raw);
		} catch {
			return short(raw);
		}
	}
	if (typeof value !== "object" || value === null || Array.isArray(value))
		return value === undefined ? "" : short(JSON.stringify(value));
	return Object.entries(value)
		.map(([k, v]) => `${k}: ${short(JSON.stringify(v) ?? "undefined")}`)
		.join(", ");
}

function short(text: string): string {
	const flat = text.replace(/\s+/g, " ");
	return flat.length > ARG_CHARS ? `${flat.slice(0, ARG_CHARS - 1)}…` : flat;
}

/** A component drawing the given lines of pieces, each line cut to the width before it is colored; kept per width. */
function lines(build: (width: number) => Piece[][]): LineComponent {
	let drawn: { readonly width: number; readonly lines: string[] } | undefined;
	return {
		render: (width) => {
			if (drawn?.width !== width) drawn = { width, lines: build(width).map((pieces) => fitLine(pieces, width)) };
			return drawn.lines;
		},
		invalidate: () => {
			drawn = undefined;
		},
	};
}

function fitLine(pieces: readonly Piece[], width: number): string {
	let room = Math.max(1, width);
	let out = "";
	for (const [text, style] of pieces) {
		if (room <= 0) break;
		// Server text may carry terminal sequences (colours, titles, the clipboard): drawn as plain text.
		const cut = cutToWidth(oneLine(text.replace(/[\t\r]/g, " ")), room);
		room -= displayWidth(cut);
		out += style ? style(cut) : cut;
	}
	return out;
}

/** Cuts a text to `width` columns, ending with … when cut. */
function cutToWidth(text: string, width: number): string {
	if (displayWidth(text) <= width) return text;
	let out = "";
	let used = 0;
	for (const ch of text) {
		const w = charWidth(ch);
		if (used + w > width - 1) break;
		out += ch;
		used += w;
	}
	return `${out}…`;
}

function wrap(line: string, width: number): string[] {
	if (line === "") return [""];
	const out: string[] = [];
	let current = "";
	let used = 0;
	for (const ch of line) {
		const w = charWidth(ch);
		if (used + w > width) {
			out.push(current);
			current = "";
			used = 0;
		}
		current += ch;
		used += w;
	}
	out.push(current);
	return out;
}

function displayWidth(text: string): number {
	let width = 0;
	for (const ch of text) width += charWidth(ch);
	return width;
}

/**
 * Terminal columns of one character: 2 for East Asian wide ones and emoji, 0 for combining marks,
 * else 1. Approximate on purpose: string-width would be exact but costs ~45 ms to import, paid by
 * every Pi start for a line that only needs to fit.
 */
function charWidth(ch: string): number {
	const code = ch.codePointAt(0) ?? 0;
	if (code < 0x20 || (code >= 0x300 && code <= 0x36f) || code === 0x200d || (code >= 0xfe00 && code <= 0xfe0f))
		return 0;
	if (
		(code >= 0x1100 && code <= 0x115f) ||
		(code >= 0x2e80 && code <= 0xa4cf) ||
		(code >= 0xac00 && code <= 0xd7a3) ||
		(code >= 0xf900 && code <= 0xfaff) ||
		(code >= 0xfe30 && code <= 0xfe4f) ||
		(code >= 0xff00 && code <= 0xff60) ||
		(code >= 0xffe0 && code <= 0xffe6) ||
		(code >= 0x1f300 && code <= 0x1faff) ||
		(code >= 0x20000 && code <= 0x3fffd)
	) {
		return 2;
	}
	return 1;
}
