// Identifiers an agent pastes into a search ("read package.json", "post in #deploys", "open
// localhost:3000", "comment on ENG-41") are names, not words: `package` and `json` would find the
// npm and JSON tools, `deploys` the deployment tools. Each is read as what it is (a file, a web
// address, a channel, a ticket) before the query's words are read. Chosen on the tuning sets
// (issue 41, fifth round); every pattern is a shape, not a word a tool uses.

/** Extensions read as a file's, not a library's or a domain's (`next.js` is a library; `.js` is left out). */
const FILE_EXTENSIONS =
	"json|jsonl|ya?ml|toml|ini|env|md|txt|csv|tsv|log|tsx?|jsx|mjs|cjs|py|rb|go|rs|java|kt|swift|c|h|cpp|cs|php|sh|sql|html?|css|scss|xml|svg|png|jpe?g|gif|webp|pdf|docx?|xlsx?|pptx?|zip|tar|gz|lock";

/** Each shape, in order (an email address before the domain in it), and the word it reads as. */
const SHAPES: readonly (readonly [RegExp, string])[] = [
	[/\b[\w.+-]+@[\w-]+(\.[\w-]+)+\b/g, "email"],
	[
		/\bhttps?:\/\/\S+|\blocalhost(:\d+)?\b|\b[\w-]+(\.[\w-]+)*\.(com|org|net|io|dev|ai|app|co|edu|gov)\b(\/\S*)?/gi,
		"url",
	],
	[new RegExp(`(^|\\s)[\\w./~-]*\\.(${FILE_EXTENSIONS})(?=[\\s,;:)]|$)`, "gi"), "file"],
	[/(^|\s)(~|\.{1,2})?\/([\w.-]+\/?)+(?=\s|$)/g, "path"],
	[/(^|\s)#[a-z][\w-]*/gi, "channel"],
	// A tracker's key: ENG-512, PROJ-7.
	[/\b[A-Z][A-Z0-9]+-\d+\b/g, "issue"],
	// SQL as typed: `select count(*) from orders`, `select id, name from users`, `SELECT ... FROM`.
	[
		/\bselect\s+(\*|distinct\b|count\s*\(|[\w.]+\s*,)[\s\S]*\bfrom\b[\s\S]*|\bSELECT\b[\s\S]*\bFROM\b[\s\S]*/g,
		"sql query",
	],
];

/** The query with each identifier replaced by the word for what it is. */
export function readEntities(query: string): string {
	let read = query;
	for (const [shape, word] of SHAPES) read = read.replace(shape, ` ${word} `);
	return read;
}
