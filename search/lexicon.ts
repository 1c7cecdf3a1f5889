// Software idioms for tool search: what WordNet (search-thesaurus.ts) cannot know, because the
// words mean something else in general English: a ticket is an issue, a folder a directory, "who
// changed this line" a blame, rm a delete. Everything general English knows (make/create,
// picture/image, customer/client, total/sum) comes from WordNet instead, so this list stays
// small: add a group only for a sense a general dictionary lacks. Each group is symmetric: any
// word in it also finds the others (at a lower weight than the word itself).

/** Groups of equivalent words or phrases. A word may sit in several groups. */
export const EQUIVALENTS: readonly (readonly string[])[] = [
	// work tracking
	["issue", "ticket", "bug", "defect"],
	["file a", "file an", "create", "report", "open"],
	["pr", "pull request", "merge request", "mr"],
	["sprint", "cycle", "iteration"],
	["ci", "checks", "build", "pipeline"],
	// code and git
	["repo", "repository", "project"],
	["blame", "who changed", "who wrote", "who modified", "annotate"],
	["what changed", "what did i change", "diff", "status", "uncommitted"],
	["stage", "git add", "add to index"],
	["undo", "revert", "reset", "rollback", "roll back"],
	["commit", "revision", "changeset"],
	["clone", "fork", "copy"],
	["pull", "fetch", "sync"],
	["stash", "shelve"],
	["checkout", "switch branch"],
	// files and shell
	["directory", "folder", "dir", "mkdir"],
	["delete", "remove", "rm", "erase", "drop"],
	["move", "rename", "mv"],
	["read", "cat", "view", "open"],
	["list", "ls"],
	["search", "find", "grep", "lookup", "look up", "query"],
	["run", "execute", "exec", "launch"],
	["kill", "terminate", "stop"],
	["command", "cmd", "shell", "terminal", "bash", "cli"],
	["process", "pid", "session", "repl"],
	["env", "environment variable", "config", "setting"],
	// web and browser
	["url", "link", "webpage", "website", "site", "page"],
	["scrape", "crawl", "extract", "fetch page"],
	["screenshot", "screen capture", "snapshot"],
	["navigate", "goto", "go to", "open url", "browse", "visit"],
	["hover", "mouse over"],
	["dropdown", "select", "option"],
	["dialog", "alert", "popup", "confirm"],
	["network request", "api call", "http request", "xhr", "fetch request"],
	["javascript", "js", "script", "evaluate", "eval"],
	["performance", "trace", "lighthouse", "slow"],
	// data and operations
	["database", "db", "sql", "postgres", "mongo"],
	["kv", "key value", "cache", "redis"],
	["record", "row", "document"],
	["pod", "container", "kubernetes", "k8s", "cluster"],
	["deploy", "release", "rollout", "ship"],
	["function", "lambda", "serverless", "edge function"],
	["secret", "token", "credential", "api key"],
	["log", "logs", "history"],
	["dm", "direct message", "message", "chat"],
	["docs", "documentation", "api docs", "library docs"],
	["memory", "remember", "knowledge graph", "knowledge"],
	["meeting", "event", "appointment"],
	["geocode", "coordinates", "latitude", "longitude", "address"],
];

/**
 * Phrases whose words mislead on their own: in "file a ticket" the word "file" is a verb, in
 * "who changed this line" "changed" is not an edit. Their equivalents carry the meaning.
 */
export const IDIOM_PHRASES: readonly string[] = [
	"file a",
	"file an",
	"who changed",
	"who wrote",
	"who modified",
	"what changed",
	"what did i change",
	"how many",
	"how far",
	"number of",
];

/** Common words that carry no meaning for finding a tool. */
export const STOPWORDS: ReadonlySet<string> = new Set(
	`a an the to of for in on at by with from into onto about as and or but is are be been was were it its this that these those
	i me my we our you your they them their he she his her please can could would should will want need let lets using use via
	some any every each which what whats where when how do does did done just also then than there here up out so if not no yes
	don doesn didn isn aren wasn weren hasn haven hadn wouldn shouldn couldn mustn needn`
		.split(/\s+/)
		.filter(Boolean),
);
