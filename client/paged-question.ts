// A question that always fits the screen. Pi draws a dialog whole: one taller than the terminal
// loses its top (pi 0.73 scrolls it off) or its bottom with the choices (Pi 1.5 clips it), and
// Enter picks whatever the first choice was. So every consent the adapter shows (project servers,
// sampling, a page to open, answers to send) goes through here: the text is wrapped to the
// screen's width and cut into pages that fit with the dialog's own lines, read with "Next page";
// the choices come on the last page, at most a screenful at a time; and the first choice, the one
// Enter takes, is always the safe answer (Esc or a closed dialog give no answer at all).
import type { DialogOptions, Dialogs } from "./user-dialogs.ts";

/** What a question must fit in: the terminal's rows and columns. */
export interface Screen {
	readonly rows: number;
	readonly columns: number;
	/**
	 * Whether Pi draws the dialog on this very terminal (the TUI): lines are then cut to its width
	 * so Pi never wraps them. Otherwise (rpc: the client draws) lines are kept whole and the pages
	 * are reckoned for this size.
	 */
	readonly drawnHere?: boolean;
}

/** Without a terminal of our own (rpc: the client draws), pages for the smallest usual one. */
const USUAL_SCREEN: Screen = { rows: 24, columns: 80, drawnHere: false };

/** The terminal Pi draws on (the extension runs in Pi's process), or the usual size when it is not one. */
export function terminalScreen(): Screen {
	const { isTTY, rows, columns } = process.stdout;
	return isTTY && rows > 0 && columns > 0 ? { rows, columns, drawnHere: true } : USUAL_SCREEN;
}

/**
 * Rows a dialog needs besides its text and choices: Pi's frame (2 borders, 4 spacers, the key
 * hints) and what stays below it (the footer: folder, usage, the extensions' status line), with
 * one to spare.
 */
const FRAME_ROWS = 7;
const BELOW_ROWS = 5;
/** Columns Pi's dialog takes from each line (one of padding on each side), and one to spare each side. */
const SIDE_COLUMNS = 4;
/** Choices shown at once; Pi 1.5 shows at most 10 and scrolls the rest out of sight. */
const MAX_CHOICES = 9;

export interface PagedQuestion {
	/**
	 * The whole question: every line is shown, on one page or several. Given as blocks (a server
	 * and its launch, say), a block is kept on one page when it fits on one.
	 */
	readonly text: string | readonly string[];
	/** The answer Enter gives on the last page: never a yes. Shown first on every page. */
	readonly safe?: string;
	/** The other answers. */
	readonly choices: readonly string[];
}

export interface PagedOptions extends DialogOptions {
	readonly screen?: Screen;
}

/** One dialog as it will be asked: its title, its options, and where each option leads. */
export interface Page {
	readonly title: string;
	readonly options: readonly string[];
	/** For each option: the answer it gives (`safe`, or one of `choices`), or the page it turns to. */
	readonly leads: readonly Lead[];
}

export type Lead = { readonly answer: string } | { readonly page: number };

/**
 * Asks `question` in pages that fit `screen`; returns the answer picked (`safe` or one of
 * `choices`), or undefined when the user pressed Esc or the dialog was closed.
 */
export async function askPaged(
	dialogs: Pick<Dialogs, "select">,
	question: PagedQuestion,
	options: PagedOptions = {},
): Promise<string | undefined> {
	const pages = paginate(question, options.screen ?? terminalScreen());
	for (let index = 0; ; ) {
		const page = pages[index];
		const picked = await dialogs.select(page.title, [...page.options], { signal: options.signal });
		const lead = picked === undefined ? undefined : page.leads[page.options.indexOf(picked)];
		if (lead === undefined) return undefined;
		if ("answer" in lead) return lead.answer;
		index = lead.page;
	}
}

/** The pages a question is asked in (exported for tests: each fits the screen, and every line is on one). */
export function paginate(question: PagedQuestion, screen: Screen): Page[] {
	const safe = question.safe === undefined ? [] : [question.safe];
	const room = Math.max(6, screen.rows - FRAME_ROWS - BELOW_ROWS);
	const width = Math.max(20, screen.columns - SIDE_COLUMNS);
	const blocks = (typeof question.text === "string" ? [question.text] : question.text).map((block) =>
		block.split("\n").map((line) => {
			const rows = wrapLines(line, width);
			return screen.drawnHere === false ? { text: line, rows } : { text: rows.join("\n"), rows };
		}),
	);
	const lines = blocks.flat();
	const height = lines.reduce((sum, line) => sum + line.rows.length, 0);
	// The choices, a screenful at a time: each group with the safe answer first and "More choices" last.
	const fitting = Math.min(MAX_CHOICES, room - 2);
	const groups =
		safe.length + question.choices.length <= fitting
			? [[...question.choices]]
			: chunk(question.choices, Math.max(1, fitting - safe.length - 1));
	const choiceRows = safe.length + groups[0].length + (groups.length > 1 ? 1 : 0);
	if (groups.length === 1 && height + choiceRows <= room) {
		return [{ title: lines.map((l) => l.text).join("\n"), ...choicesPage(safe, groups, 0, 0) }];
	}
	// Text pages, each headed by where the reader is; the last one carries the first group of choices.
	const textPages = pack(blocks, Math.max(2, room - 1 - Math.max(1 + safe.length, choiceRows)));
	const total = textPages.length + groups.length - 1;
	const heading = (i: number) => `(page ${i + 1} of ${total})`;
	const pages: Page[] = textPages.slice(0, -1).map((text, i) => ({
		title: [heading(i), ...text].join("\n"),
		options: [`Next page (${i + 2} of ${total})`, ...safe],
		leads: [{ page: i + 1 }, ...safe.map((answer) => ({ answer }))],
	}));
	// Further groups of choices repeat the last text page: the question stays in sight.
	const last = textPages[textPages.length - 1];
	groups.forEach((_, g) => {
		const at = textPages.length - 1 + g;
		pages.push({ title: [heading(at), ...last].join("\n"), ...choicesPage(safe, groups, g, textPages.length - 1) });
	});
	return pages;
}

/** The options of the page showing group `g` of the choices; `first` is the page of group 0. */
function choicesPage(safe: readonly string[], groups: readonly string[][], g: number, first: number) {
	const more =
		groups.length > 1
			? [
					{
						label: g === groups.length - 1 ? "More choices (back to the first)" : "More choices",
						lead: { page: first + ((g + 1) % groups.length) },
					},
				]
			: [];
	return {
		options: [...safe, ...groups[g], ...more.map((m) => m.label)],
		leads: [...safe, ...groups[g]].map((answer): Lead => ({ answer })).concat(more.map((m) => m.lead)),
	};
}

/**
 * The text's lines, each cut to `width` columns (wide characters counted twice) so Pi never wraps
 * them: after a space when there is one in the line's second half, else at the width.
 */
export function wrapLines(text: string, width: number): string[] {
	const out: string[] = [];
	for (const line of text.split("\n")) {
		let rest = [...line];
		for (;;) {
			let used = 0;
			let end = 0;
			while (end < rest.length && used + columnsOf(rest[end]) <= width) used += columnsOf(rest[end++]);
			if (end === rest.length) break;
			const space = rest.lastIndexOf(" ", end - 1);
			const cut = space >= end / 2 ? space + 1 : end;
			out.push(rest.slice(0, cut).join(""));
			rest = rest.slice(cut);
		}
		out.push(rest.join(""));
	}
	return out;
}

/** A line of the question: its text as given to Pi, and the rows it takes on the screen. */
interface Line {
	readonly text: string;
	readonly rows: readonly string[];
}

/**
 * Blocks of lines into pages of at most `size` rows: a block on one page when it fits on one, a
 * line on one page when it fits on one (else cut at the rows it wraps into).
 */
function pack(blocks: readonly Line[][], size: number): [string[], ...string[][]] {
	const pages: [string[], ...string[][]] = [[]];
	let used = 0;
	const newPage = () => {
		pages.push([]);
		used = 0;
	};
	const rowsOf = (lines: readonly Line[]) => lines.reduce((sum, line) => sum + line.rows.length, 0);
	for (const block of blocks) {
		if (used > 0 && used + rowsOf(block) > size && rowsOf(block) <= size) newPage();
		for (const line of block) {
			const pieces = line.rows.length <= size ? [line] : line.rows.map((row) => ({ text: row, rows: [row] }));
			for (const piece of pieces) {
				if (used > 0 && used + piece.rows.length > size) newPage();
				pages[pages.length - 1].push(piece.text);
				used += piece.rows.length;
			}
		}
	}
	return pages;
}

/** Columns a character takes, rounded up: ASCII one, anything else two (never fewer than it takes). */
function columnsOf(char: string): number {
	return (char.codePointAt(0) ?? 0) < 0x7f ? 1 : 2;
}

function chunk<T>(items: readonly T[], size: number): [T[], ...T[][]] {
	const out: [T[], ...T[][]] = [items.slice(0, size)];
	for (let i = size; i < items.length; i += size) out.push(items.slice(i, i + size));
	return out;
}
