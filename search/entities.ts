// Identifiers an agent pastes into a search ("read package.json", "post in #deploys", "open
// localhost:3000", "comment on ENG-41") are names, not words: `package` and `json` would find the
// npm and JSON tools, `deploys` the deployment tools. Each is read as what it is (a file, a web
// address, a channel, a ticket) before the query's words are read. Chosen on the tuning sets
// (issue 41, fifth round); every pattern is a shape, not a word a tool uses.

/** Extensions read as a file's, not a library's or a domain's (`next.js` is a library; `.js` is left out). */
const FILE_EXTENSIONS =
	"json|jsonl|ya?ml|toml|ini|env|md|txt|csv|tsv|log|tsx?|jsx|mjs|cjs|py|rb|go|rs|java|kt|swift|c|h|cpp|cs|php|sh|sql|html?|css|scss|xml|svg|png|jpe?g|gif|webp|pdf|docx?|xlsx?|pptx?|zip|tar|gz|lock";

/**
 * A dotted name that is a web address: one ending in .com, .org, .edu or .gov; or in a top-level
 * domain libraries and apps also end in (.io, .net, .app, ...: socket.io, ASP.NET, Calculator.app)
 * only with a path, a `www.` or a subdomain (docs.example.io).
 */
function isWebAddress(name: string): boolean {
	const [host, ...path] = name.split("/");
	if (/\.(com|org|edu|gov)$/i.test(host)) return true;
	if (!/\.(net|io|dev|ai|app|co)$/i.test(host)) return false;
	return path.length > 0 || /^www\./i.test(host) || host.split(".").length >= 3;
}

/** Standards written like a tracker key (UTF-8, SHA-256, GPT-4, ISO-8601, CVE-2024-3094): not a ticket. */
const STANDARDS =
	"UTF|UCS|SHA|MD|ISO|RFC|GPT|CVE|CWE|AES|RSA|TLS|SSL|HTTP|IPV|ES|PEP|ECMA|IEEE|WCAG|OWASP|PCI|SOC|COVID|X";

/** Each shape, in order (an email address before the domain in it), and the word it reads as (a name it is not: itself). */
const SHAPES: readonly (readonly [RegExp, string | ((match: string) => string)])[] = [
	// An address whose domain ends in letters (deploy@10.0.0.5 is a login, not an email).
	[/\b[\w.+-]+@[\w-]+(\.[\w-]+)*\.[a-z]{2,}\b/gi, "email"],
	[/\bhttps?:\/\/\S+|\blocalhost(:\d+)?\b/gi, "url"],
	// A domain: dotted names read whole, then checked (isWebAddress).
	[/\b[\w-]+(\.[\w-]+)+(\/\S*)?/g, (name) => (isWebAddress(name) ? "url" : name)],
	// A file name, quoted or not, before a space, punctuation or the end ("what is in package.json?").
	[new RegExp(`(^|[\\s"'\`(\\[])[\\w./~-]*\\.(${FILE_EXTENSIONS})(?=[\\s,;:)\\].?!'"\`]|$)`, "gi"), "file"],
	// One character class, no nested repetition: `([\w.-]+\/?)+` took 51 s on "/" and 28 letters.
	[/(^|\s)(~|\.{1,2})?\/[\w./-]+(?=\s|$)/g, "path"],
	[/(^|\s)#[a-z][\w-]*/gi, "channel"],
	// A tracker's key: ENG-512, PROJ-7 (not a standard's name, not a date's start: CVE-2024-3094).
	[new RegExp(`\\b(?!(?:${STANDARDS})-)[A-Z][A-Z0-9]+-\\d+\\b(?!-\\d)`, "g"), "issue"],
	// SQL as typed, to its table: `select count(*) from orders`, `SELECT id, name FROM users` (not
	// "select all, then copy from the clipboard").
	[/\bselect\s+(\*|distinct\s+[\w.]+|count\s*\([^)]*\)|[\w.]+(\s*,\s*[\w.]+)*)\s+from\s+[\w.]+/gi, "sql query"],
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
