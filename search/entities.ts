// Identifiers an agent pastes into a search ("read package.json", "post in #deploys", "open
// localhost:3000", "comment on ENG-41") are names, not words: `package` and `json` would find the
// npm and JSON tools, `deploys` the deployment tools. Each is read as what it is (a file, a web
// address, a channel, a ticket) before the query's words are read. Chosen on the tuning sets
// (issue 41, fifth round); every pattern is a shape, not a word a tool uses.

/** Extensions read as a file's, not a library's or a domain's (`next.js` is a library; `.js` is left out). */
const FILE_EXTENSIONS =
	"json|jsonl|ya?ml|toml|ini|env|md|txt|csv|tsv|log|tsx?|jsx|mjs|cjs|py|rb|go|rs|java|kt|swift|c|h|cpp|cs|php|sh|sql|html?|css|scss|xml|svg|png|jpe?g|gif|webp|pdf|docx?|xlsx?|pptx?|zip|tar|gz|lock";

/** A domain's last label that makes a dotted name a web address (`example.com`, not `next.js`). */
const TOP_LEVEL = /\.(com|org|net|io|dev|ai|app|co|edu|gov)$/i;

/** Each shape, in order (an email address before the domain in it), and the word it reads as (a name it is not: itself). */
const SHAPES: readonly (readonly [RegExp, string | ((match: string) => string)])[] = [
	[/\b[\w.+-]+@[\w-]+(\.[\w-]+)+\b/g, "email"],
	[/\bhttps?:\/\/\S+|\blocalhost(:\d+)?\b/gi, "url"],
	// A domain: dotted names read whole, then a web address if the last label is a common top-level domain.
	[/\b[\w-]+(\.[\w-]+)+(\/\S*)?/g, (name) => (TOP_LEVEL.test(name.split("/")[0]) ? "url" : name)],
	[new RegExp(`(^|\\s)[\\w./~-]*\\.(${FILE_EXTENSIONS})(?=[\\s,;:)]|$)`, "gi"), "file"],
	// One character class, no nested repetition: `([\w.-]+\/?)+` took 51 s on "/" and 28 letters.
	[/(^|\s)(~|\.{1,2})?\/[\w./-]+(?=\s|$)/g, "path"],
	[/(^|\s)#[a-z][\w-]*/gi, "channel"],
	// A tracker's key: ENG-512, PROJ-7.
	[/\b[A-Z][A-Z0-9]+-\d+\b/g, "issue"],
	// SQL as typed: `select count(*) from orders`, `select id, name from users`, `SELECT ... FROM`.
	[
		/\bselect\s+(\*|distinct\b|count\s*\(|[\w.]+\s*,)[\s\S]*\bfrom\b[\s\S]*|\bSELECT\b[\s\S]*\bFROM\b[\s\S]*/g,
		"sql query",
	],
];

/**
 * The query with each identifier replaced by the word for what it is. Every shape runs in time
 * linear in the query (or quadratic at worst, over the engine's 2,000 characters): no nested
 * repetition a crafted query could make exponential.
 */
export function readEntities(query: string): string {
	let read = query;
	for (const [shape, word] of SHAPES)
		read = read.replace(shape, (match) => {
			const as = typeof word === "string" ? word : word(match);
			return as === match ? match : ` ${as} `;
		});
	return read;
}
