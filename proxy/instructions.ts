// A server's instructions as the model gets them: a summary where it lists the server's tools (a
// listing is asked for often, and server-everything alone sends 1,574 characters), the whole on request.

/** A listing shows instructions up to this long whole; longer ones are summarised. */
export const SUMMARY_CHARS = 240;
/** The most of a server's instructions any answer carries, even on request. */
const WHOLE_CHARS = 16_000;

/** How the model asks for the whole instructions of `server` (said in the listing that summarises them). */
const wholeInstructionsCall = (server: string): string => `mcp({server:"${server}",instructions:true})`;

/**
 * The instructions as a listing shows them: whole when short, else their opening (the first
 * paragraph after any title headings, cut at a sentence or a word) and how to get the rest.
 */
export function instructionsInListing(server: string, instructions: string): string {
	const text = instructions.trim();
	if (text.length <= SUMMARY_CHARS) return `Instructions from "${server}":\n${text}`;
	const size = text.length.toLocaleString("en-US");
	return `Instructions from "${server}", the start (all ${size} characters: ${wholeInstructionsCall(server)}):\n${opening(text)}`;
}

/** The whole instructions, for `instructions: true` (within a cap no real server comes near). */
export function wholeInstructions(server: string, instructions: string): string {
	const text = instructions.trim();
	const cut =
		text.length > WHOLE_CHARS
			? `${text.slice(0, WHOLE_CHARS)}... (${text.length - WHOLE_CHARS} more characters)`
			: text;
	return `Instructions from "${server}":\n${cut}`;
}

/** The first paragraph that is not a heading, whitespace collapsed, within SUMMARY_CHARS. */
function opening(text: string): string {
	const lines = text.split("\n").map((line) => line.trim());
	const start = lines.findIndex((line) => line !== "" && !line.startsWith("#"));
	if (start < 0) return cut(text.replace(/\s+/g, " "));
	const end = lines.findIndex((line, i) => i > start && (line === "" || line.startsWith("#")));
	return cut(
		lines
			.slice(start, end < 0 ? undefined : end)
			.join(" ")
			.replace(/\s+/g, " "),
	);
}

/** Within SUMMARY_CHARS: at the last sentence's end when one ends past a third of it, else at a word. */
function cut(paragraph: string): string {
	if (paragraph.length <= SUMMARY_CHARS) return paragraph;
	const head = paragraph.slice(0, SUMMARY_CHARS);
	const sentence = Math.max(head.lastIndexOf(". "), head.lastIndexOf("! "), head.lastIndexOf("? "));
	if (sentence > SUMMARY_CHARS / 3) return head.slice(0, sentence + 1);
	const word = head.lastIndexOf(" ");
	return `${head.slice(0, word > SUMMARY_CHARS / 3 ? word : SUMMARY_CHARS).replace(/[\s,;:(-]+$/, "")}...`;
}
