// Tool search on real vocabulary: tokenizing, stemming, equivalents and ranking over the real
// catalogs (the engine alone; tests/e2e/search-real-server.test.ts lists them through a server).
import { beforeAll, describe, expect, it } from "vitest";
import { ToolCatalog } from "../../catalog/tool-catalog.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { Bm25Index } from "../../search/bm25.ts";
import { indexInfo, prepareSearch, searchCatalog, ToolSearchIndex } from "../../search/engine.ts";
import { readEntities } from "../../search/entities.ts";
import { asksQuestion, expandQuery } from "../../search/query.ts";
import { baseForm, derivedForms, synonymsOf } from "../../search/thesaurus.ts";
import { summaryEnd } from "../../search/tool-text.ts";
import { analyze, isPlural, stem, tokenize } from "../../search/words.ts";
import type { ToolAnnotations } from "../../types.ts";
import { type Catalog, loadCatalogs } from "../support/catalogs.ts";
import { QUERIES } from "../support/search-queries.ts";
import { sessionOf } from "../support/search-session.ts";

describe("tokenizing and stemming", () => {
	it("splits names on _ - . and camelCase, and lowercases", () => {
		expect(tokenize("linear_getIssueById")).toEqual(["linear", "get", "issue", "by", "id"]);
		expect(tokenize("API-retrieve-a-page")).toEqual(["api", "retrieve", "a", "page"]);
		expect(tokenize("git.cherry_pick")).toEqual(["git", "cherry", "pick"]);
		expect(tokenize("getHTTPResponse")).toEqual(["get", "http", "response"]);
	});

	it("reads text beyond ASCII as plain ASCII is read, its lowercase included (the Kelvin sign is a k)", () => {
		// The regexes the one-pass reader stands in for, on text where the two could part.
		const byRegex = (text: string) =>
			text
				.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
				.replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
				.toLowerCase()
				.split(/[^a-z0-9]+/)
				.filter((t) => t.length > 0);
		const texts = ["a1Bc", "aBCd", "ABcDEf", "XMLHttpRequest2Go", "get_HTTP-ok.", "\u212Aelvin"];
		for (const text of texts) expect(tokenize(text), text).toEqual(byRegex(text));
		expect(tokenize("\u212Aelvin")).toEqual(["kelvin"]);
		expect(analyze("Listing the OpenIssues")).toEqual(analyze("listing the open issues"));
		// A Latin letter's accents are dropped (issue 50): café is the cafe an English query asks for.
		expect(analyze("caf\u00e9 OpenIssues")).toEqual(["cafe", "open", "issu"]);
		expect(tokenize("café ordersAPI İstanbul ＡＢＣ")).toEqual(["cafe", "orders", "api", "istanbul", "abc"]);
	});

	it("reads a description's first 300 characters, whitespace runs as one, to the last whole word", () => {
		const words = Array.from({ length: 100 }, (_, i) => `w${i}`).join(" \n\t ");
		const read = analyze(words.slice(0, summaryEnd(words)));
		const flat = words.replace(/\s+/g, " ");
		expect(read).toEqual(analyze(flat.slice(0, flat.lastIndexOf(" ", 300))));
		expect(read.at(-1)).toBe("w76"); // "w0 w1 ... w76" is 297 characters: w77 would end past 300
		expect(summaryEnd("   short  text ")).toBe(15);
		// A first word longer than the limit is cut at it, not read whole.
		expect(summaryEnd(`${"x".repeat(5000)} tail`)).toBe(300);
	});

	it("stems so that word forms meet, and drops stopwords", () => {
		expect(stem("issues")).toBe(stem("issue"));
		expect(stem("directories")).toBe(stem("directory"));
		expect(analyze("list all the open issues")).toEqual(["list", "all", "open", "issu"]);
	});

	it("expands software-domain equivalents, phrases included, below the words themselves", () => {
		const { weights } = expandQuery("make a folder");
		expect(weights.get(stem("folder"))).toBe(1);
		expect(weights.get(stem("directory"))).toBeLessThan(1);
		expect(weights.get(stem("create"))).toBeLessThan(1);
		expect(expandQuery("who changed this line").weights.get(stem("blame"))).toBeGreaterThan(0);
		expect(expandQuery("open a pull request").weights.get(stem("merge"))).toBeGreaterThan(0);
		expect(expandQuery("file a ticket").weights.get(stem("file"))).toBeLessThan(0.5); // "file" is the verb here
	});

	it("takes general-English synonyms from WordNet, below the words themselves", () => {
		expect(synonymsOf("photo", new Set()).map((s) => s.word)).toContain("picture");
		expect(synonymsOf("customer", new Set()).map((s) => s.word)).toContain("client");
		expect(baseForm("meetings")).toBe("meeting");
		const { weights } = expandQuery("add numbers");
		expect(weights.get(stem("sum"))).toBeGreaterThan(0);
		expect(weights.get(stem("sum"))).toBeLessThan(0.5);
		expect(synonymsOf("qwertyuiop", new Set())).toEqual([]);
	});
});

describe("coordination", () => {
	it("a tool answering two of the query's words ranks above one answering one word three ways", () => {
		const index = new Bm25Index(1);
		index.add(0, [["make", "create", "build"]]); // one word of the query, through its synonyms
		index.add(1, [["make", "folder"]]); // both words
		for (let id = 2; id < 6; id++) index.add(id, [["other", `word${id}`]]);
		const term = (word: string, group: number) => ({
			term: word,
			boost: 1,
			prefix: false,
			fuzzy: false,
			groups: [group],
		});
		const results = index.search([term("make", 0), term("create", 0), term("build", 0), term("folder", 1)], {
			fieldBoosts: [1],
			prefixWeight: 0,
			fuzzyWeight: 0,
		});
		expect(results.next()).toBe(1);
		expect(results.next()).toBe(0);
	});
});

describe("WordNet beyond synonyms, and a tool's name", () => {
	it("reads a verb and its particle as WordNet's phrasal verb (look for: search, shut down: close), below the words", () => {
		expect(expandQuery("look for code").weights.get(stem("search"))).toBeGreaterThan(0);
		expect(expandQuery("look for code").weights.get(stem("search"))).toBeLessThan(0.5);
		expect(expandQuery("shut down the server").weights.get(stem("close"))).toBeGreaterThan(0);
		expect(expandQuery("look code").weights.has(stem("search"))).toBe(false);
	});

	it("adds the forms WordNet derives from a query word (payment: pay), below the word itself", () => {
		expect(derivedForms("payment").map((d) => d.word)).toContain("pay");
		const { weights } = expandQuery("make a payment");
		expect(weights.get(stem("pay"))).toBeGreaterThan(0);
		expect(weights.get(stem("pay"))).toBeLessThan(weights.get(stem("payment")) as number);
	});

	it("of two tools answering a query alike, puts first the one whose name asks for nothing more", () => {
		const tool = (name: string, description: string) => ({
			server: "code",
			name,
			qualifiedName: `code_${name}`,
			description,
			inputSchema: { type: "object", properties: {} },
		});
		// The review tool's description says "pull request" three times: by words alone it would win.
		const index = new ToolSearchIndex([
			tool(
				"create_pull_request_review",
				"Create a review on a pull request: approve the pull request or request changes to the pull request.",
			),
			tool("create_pull_request", "Create a new pull request."),
		]);
		expect(index.search("create a pull request")[0].tool.name).toBe("create_pull_request");
	});

	it("counts a word the query did not say only where the tool says what it is: a synonym not in its parameters or usage notes", () => {
		const tool = (name: string, description: string, params: Record<string, object> = {}) => ({
			server: "k8s",
			name,
			qualifiedName: `k8s_${name}`,
			description,
			inputSchema: { type: "object", properties: params },
		});
		const index = new ToolSearchIndex([
			tool("exec_in_pod", "Execute a command in a pod.", { name: { type: "string", description: "Name of the pod" } }),
			tool("pod_status", "Show pods. Give each one's name to see more."),
			tool("pod_names", "Name the pods of a cluster."),
			tool("make_node", "Add a node. Each goes in a folder of its own."),
		]);
		const coverage = (query: string, name: string) =>
			index.search(query).find((h) => h.tool.name === name)?.coverage ?? 0;
		// "list" as WordNet's "name": not the parameter called name, nor a note after the first sentence...
		expect(coverage("list pods", "exec_in_pod")).toBeLessThan(1);
		expect(coverage("list pods", "pod_status")).toBeLessThan(1);
		// ...but where the tool says what it does.
		expect(coverage("list pods", "pod_names")).toBe(1);
		// The query's own words, and the idiom lexicon's software senses (folder: directory), count in the description too.
		expect(coverage("name pods", "pod_status")).toBe(1);
		expect(coverage("make a directory node", "make_node")).toBe(1);
	});

	it("reads what a parameter's description says it is, below the tool's own text, without its examples", () => {
		const tool = (name: string, description: string, note: string) => ({
			server: "code",
			name,
			qualifiedName: `code_${name}`,
			description,
			inputSchema: { type: "object", properties: { target: { type: "string", description: note } } },
		});
		const others = [
			tool("open_other", "Open an item.", "The item to open (e.g. a spreadsheet or a chart)"),
			tool("show_spreadsheet", "Show a spreadsheet.", "What to show"),
		];
		const index = new ToolSearchIndex([tool("open_item", "Open an item.", "The spreadsheet to open"), ...others]);
		const names = (query: string) => index.search(query).map((h) => h.tool.name);
		// Only a parameter says what open_item opens; the example of open_other's is no evidence.
		expect(names("open spreadsheet")[0]).toBe("open_item");
		const other = index.search("open spreadsheet").find((h) => h.tool.name === "open_other");
		expect(other?.coverage).toBeLessThan(1);
		// A tool's description says more than a parameter's.
		expect(names("spreadsheet")[0]).toBe("show_spreadsheet");
		// A changed note is a changed listing: the index reads it again.
		index.update([tool("open_item", "Open an item.", "The chart to open"), ...others]);
		expect(names("open chart")[0]).toBe("open_item");
		expect(names("open spreadsheet")[0]).not.toBe("open_item");
	});

	it("weighs a description's first sentence (what the tool does) above the rest of it", () => {
		const tool = (name: string, description: string) => ({
			server: "work",
			name,
			qualifiedName: `work_${name}`,
			description,
			inputSchema: { type: "object", properties: {} },
		});
		const index = new ToolSearchIndex([
			tool("change", "Change a project: its name, its owner or its state. Archive it with state archived."),
			tool("shelve", "Archive a project. It can be restored later: nothing is deleted."),
		]);
		expect(index.search("archive project")[0].tool.name).toBe("shelve");
	});

	it("an action said in a description's first sentence is what the tool does; later, it is not", () => {
		const tool = (name: string, description: string) => ({
			server: "billing",
			name,
			qualifiedName: `billing_${name}`,
			description,
			inputSchema: { type: "object", properties: {} },
		});
		// "create" starts three names: one of the catalog's actions, answered only where a tool says what it does.
		const index = new ToolSearchIndex([
			tool("create_customer", "Create a customer."),
			tool("create_refund", "Create a refund."),
			tool("create_coupon", "Create a coupon."),
			tool("list_customers", "List customers."),
			tool("list_refunds", "List refunds."),
			tool("delete_coupon", "Delete a coupon."),
			tool(
				"billing_lines",
				"Show an invoice: its lines, its invoice total and its invoice status. The billing run can also create invoices.",
			),
			tool("billing_entry", "Create an invoice."),
		]);
		expect(index.search("create invoice")[0].tool.name).toBe("billing_entry");
	});
});

describe("what a query's form says (issue 41, fifth round)", () => {
	const tool = (server: string, name: string, description: string, annotations?: ToolAnnotations) => ({
		server,
		name,
		qualifiedName: `${server}_${name}`,
		description,
		inputSchema: { type: "object", properties: {} },
		...(annotations ? { annotations } : {}),
	});
	const names = (index: ToolSearchIndex, query: string) => index.search(query).map((h) => h.tool.name);

	it("reads an English clitic after an apostrophe as nothing: what's, a user's, you've, don't", () => {
		expect(tokenize("what's the user's name")).toEqual(["what", "the", "user", "name"]);
		expect(tokenize("it\u2019s Zo\u00eb's")).toEqual(["it", "zoe"]);
		expect(analyze("don't delete what you've kept")).toEqual(["delet", "kept"]);
		// Not a clitic: a quoted letter, a name's part.
		expect(tokenize("unit 's' for O'Reilly")).toEqual(["unit", "s", "for", "o", "reilly"]);
		expect(tokenize("it\u00b4s and it\u02bcs")).toEqual(["it", "and", "it"]);
		// Both readers agree (a character beyond ASCII sends a text to the regex reader, which drops a dash).
		for (const text of [
			"you'rE",
			"WHAT'S",
			"it'sName",
			"O'Reilly's",
			"a['s']",
			"'''s",
			"it's2",
			"Don'T",
			"rock'n'roll",
		])
			expect(tokenize(`${text} \u2014`), text).toEqual(tokenize(text));
		// The "s" of a possessive found nothing but junk: every tool with one in its description.
		const index = new ToolSearchIndex([
			tool("git", "list_changes", "Lists what changed."),
			tool("auth", "get_profile", "Returns a user's profile and the user's settings."),
		]);
		expect(names(index, "what's changed?")).toEqual(["list_changes"]);
	});

	it("reads identifiers as what they are: a file, a web address, a channel, a ticket, an email, SQL", () => {
		expect(tokenize(readEntities("read package.json"))).toEqual(["read", "file"]);
		expect(tokenize(readEntities("rename src/old.ts to ./new.tsx"))).toEqual(["rename", "file", "to", "file"]);
		expect(tokenize(readEntities("open localhost:3000 and https://x.dev/a?b=1"))).toEqual([
			"open",
			"url",
			"and",
			"url",
		]);
		expect(tokenize(readEntities("get the links on example.com"))).toEqual(["get", "the", "links", "on", "url"]);
		expect(tokenize(readEntities("post in #deploys"))).toEqual(["post", "in", "channel"]);
		expect(tokenize(readEntities("comment on ENG-41"))).toEqual(["comment", "on", "issue"]);
		expect(tokenize(readEntities("invite jane@acme.com"))).toEqual(["invite", "email"]);
		expect(tokenize(readEntities("list ~/notes/"))).toEqual(["list", "path"]);
		expect(tokenize(readEntities("run select count(*) from orders"))).toEqual(["run", "sql", "query"]);
		// A query shaped to make a regex backtrack is read at once (a nested repetition took 51 s on 30 characters).
		expect(readEntities(`/${"a".repeat(40)}!`)).toBe(`/${"a".repeat(40)}!`);
		expect(readEntities(`x@${"a.".repeat(1000)}com!`)).toContain("email");
		// Names that only look like one: a library, a version, a browser's select.
		expect(tokenize(readEntities("what is in `package.json`?"))).toEqual(["what", "is", "in", "file"]);
		expect(tokenize(readEntities("open docs.example.io/guide"))).toEqual(["open", "url"]);
		expect(tokenize(readEntities("run select count(*) from orders on the warehouse"))).toEqual([
			"run",
			"sql",
			"query",
			"on",
			"the",
			"warehouse",
		]);
		// Names that only look like one: a library, a version, a standard, a login, a browser's select.
		for (const query of [
			"docs for next.js",
			"v2.3 is out",
			"select the option from the dropdown",
			"select all, then copy from the clipboard",
			"and/or",
			"convert the file to UTF-8",
			"look up CVE-2024-3094",
			"install socket.io client",
			"build an ASP.NET api",
			"ssh deploy@10.0.0.5",
		])
			expect(readEntities(query)).toBe(query);
	});

	it("a file named in the query finds the file tools, not those its name's words match", () => {
		const index = new ToolSearchIndex([
			tool("fs", "read_text_file", "Read the complete contents of a file as text."),
			tool("npm", "package_info", "Show a package's metadata from the registry."),
			tool("data", "json_query", "Query a JSON document with JSONPath."),
		]);
		expect(names(index, "read package.json")[0]).toBe("read_text_file");
	});

	it("marks a plural's terms once, at the higher weight, never a mark of a mark", () => {
		const { weights } = expandQuery("list files and files");
		expect(weights.get(`${stem("file")}#pl`)).toBe(1);
		expect([...weights.keys()].filter((term) => term.endsWith("#pl#pl"))).toEqual([]);
		expect(Math.max(...[...weights].filter(([term]) => term.endsWith("#pl")).map(([, w]) => w))).toBeLessThanOrEqual(1);
	});

	it("tells a plural from a singular", () => {
		for (const word of ["events", "processes", "projects", "calendars", "indexes"])
			expect(isPlural(word), word).toBe(true);
		for (const word of ["status", "process", "class", "was", "analysis"]) expect(isPlural(word), word).toBe(false);
	});

	it("a plural asks for many: a tool named for many ranks above one named for one", () => {
		const index = new ToolSearchIndex([
			tool("calendar", "get-event", "Get an event from a calendar."),
			tool("calendar", "list-events", "List events from a calendar."),
			tool("tracker", "update_project", "Update a project's name."),
			tool("tracker", "find_projects", "Find projects in the organization."),
		]);
		expect(names(index, "upcoming events")[0]).toBe("list-events");
		expect(names(index, "projects in our org")[0]).toBe("find_projects");
	});

	it("a request to change things is done by a tool that changes things, as the catalog's annotations tell", () => {
		/** A mail server's tools, marked by their server or not. */
		const tools: [name: string, description: string, readOnlyHint: boolean][] = [
			["delete_email", "Delete an email.", false],
			["delete_label", "Delete a label.", false],
			["delete_filter", "Delete a filter.", false],
			["list_deleted_emails", "List deleted emails in the trash.", true],
		];
		const mail = (marked: boolean) =>
			new ToolSearchIndex(
				tools.map(([name, description, readOnlyHint]) =>
					tool("mail", name, description, marked ? { readOnlyHint } : undefined),
				),
			);
		expect(names(mail(true), "delete old emails")[0]).toBe("delete_email");
		// Unmarked, the catalog says nothing of "delete": the listing of deleted emails answers more of the query.
		expect(names(mail(false), "delete old emails")[0]).toBe("list_deleted_emails");
	});

	it("the words after 'for' or 'about' say what the request is for: they count less than what to act on", () => {
		const index = new ToolSearchIndex([
			tool("web", "web_search", "Search the web for pages and news."),
			tool("tracker", "get_release_notes", "Get the release notes of a release."),
			tool("tracker", "search_release_notes", "Search release notes."),
		]);
		expect(names(index, "search the web for the latest release notes")[0]).toBe("web_search");
		// After a lone verb, "for" is a phrasal verb's: what follows is what to act on.
		expect(names(index, "search for release notes")[0]).toBe("search_release_notes");
		expect(names(index, "please search for release notes")[0]).toBe("search_release_notes");
		// What is said before the purpose keeps its weight, through any word that stands for it too.
		const { weights } = expandQuery("create a ticket about the login bug");
		expect(weights.get(stem("ticket"))).toBe(1);
		expect(weights.get(stem("login"))).toBe(0.25);
	});

	it("a question is answered by a tool that reads, not by one its server marks as changing things", () => {
		expect(asksQuestion("what is assigned to me", ["what", "is", "assigned", "to", "me"])).toBe(true);
		expect(asksQuestion("issues assigned to me?", ["issues", "assigned", "to", "me"])).toBe(true);
		expect(asksQuestion("how many docs", ["how", "many", "docs"])).toBe(true);
		for (const request of [
			"can you assign it",
			"can you create an issue in linear?",
			"which tool creates an issue",
			"is there a tool to delete a branch",
			"do a deep research",
			"how to assign an issue",
			"assign it to me",
		])
			expect(asksQuestion(request, tokenize(request)), request).toBe(false);
		const index = new ToolSearchIndex([
			tool("tracker", "assign_issue", "Assign an issue to a user.", { readOnlyHint: false }),
			tool("tracker", "search_issues", "Search issues by assignee, state or text.", { readOnlyHint: true }),
		]);
		expect(names(index, "assign issue to me")[0]).toBe("assign_issue");
		expect(names(index, "which issues are assigned to me")[0]).toBe("search_issues");
	});
});

describe("ranking over the real catalogs", () => {
	let catalog: ToolCatalog;
	beforeAll(() => {
		const catalogs: Catalog[] = loadCatalogs();
		catalog = new ToolCatalog(
			"server",
			catalogs.map((c) => c.server),
		);
		for (const c of catalogs) catalog.set(c.server, { tools: c.tools, resources: [] }, false);
	});
	const top = (query: string, n = 1, server?: string) =>
		searchCatalog(catalog, query, { limit: n, server }).map((h) => `${h.tool.server}/${h.tool.name}`);

	it.each([
		["make a folder", ["filesystem/create_directory", "commander/create_directory"]],
		["who changed this line", ["git/git_blame"]],
		[
			"take a screenshot",
			["devtools/take_screenshot", "playwright/browser_take_screenshot", "puppeteer/puppeteer_screenshot"],
		],
		["send a slack message", ["slack/slack_post_message"]],
		["refund a payment", ["stripe/create_refund"]],
	])("%s → the right tool first", (query, answers) => {
		expect(answers).toContain(top(query)[0]);
	});

	it("leaving out the hits no answer can use changes nothing an answer shows (the 20 best, every hit near the best)", () => {
		const key = (h: { tool: { qualifiedName: string }; score: number }) => `${h.tool.qualifiedName} ${h.score}`;
		let spared = 0;
		for (const [query] of QUERIES) {
			const all = searchCatalog(catalog, query);
			const kept = searchCatalog(catalog, query, { keep: { top: 20, share: 0.15 } });
			expect(kept.slice(0, 20).map(key), query).toEqual(all.slice(0, 20).map(key));
			const near = (hits: typeof all) => hits.filter((h) => h.score >= all[0].score * 0.15).map(key);
			expect(near(kept), query).toEqual(near(all));
			expect(searchCatalog(catalog, query, { limit: 5 }).map(key)).toEqual(all.slice(0, 5).map(key));
			spared += all.length - kept.length;
		}
		expect(spared).toBeGreaterThan(QUERIES.length * 50); // the point: most hits are never scored
	});

	it("finds an issue tracker's create tool for 'file a ticket' in the top 3", () => {
		expect(top("file a ticket", 3).some((t) => /create_issue|createIssue|jira_issues/.test(t))).toBe(true);
	});

	it("ranks a name match above a description match", () => {
		const hits = searchCatalog(catalog, "blame", { limit: 5 });
		expect(hits[0].tool.name).toBe("git_blame");
		expect(hits[0].score).toBeGreaterThan(hits[1]?.score ?? 0);
	});

	it("tolerates typos in names", () => {
		expect(top("screnshot")[0]).toMatch(/screenshot/);
		expect(top("kubectl rolout")[0]).toBe("kubernetes/kubectl_rollout");
	});

	it("the exact tool name comes first, and `server` narrows the search", () => {
		expect(top("create_issue", 1, "gitlab")).toEqual(["gitlab/create_issue"]);
		expect(top("linear_getActiveCycle")).toEqual(["linear/linear_getActiveCycle"]);
		expect(top("create issue", 5, "github").every((t) => t.startsWith("github/"))).toBe(true);
	});

	it("rebuilds the index when the catalog changes, not before", () => {
		const small = new ToolCatalog("server", ["a"]);
		small.set(
			"a",
			{ tools: [{ server: "a", name: "alpha", description: "first", inputSchema: {} }], resources: [] },
			false,
		);
		expect(searchCatalog(small, "beta").length).toBe(0);
		searchCatalog(small, "alpha");
		expect(indexInfo(small)).toMatchObject({ version: small.version, updates: 1 }); // the second search reused it
		small.set(
			"a",
			{ tools: [{ server: "a", name: "beta", description: "second", inputSchema: {} }], resources: [] },
			false,
		);
		expect(searchCatalog(small, "beta").map((h) => h.tool.name)).toEqual(["beta"]);
		expect(indexInfo(small)).toMatchObject({ version: small.version, updates: 2 });
	});

	it("an index updated in place ranks exactly as one built afresh, after servers change, leave and come back", () => {
		const catalogs = loadCatalogs();
		const live = new ToolCatalog(
			"server",
			catalogs.map((c) => c.server),
		);
		for (const c of catalogs) live.set(c.server, { tools: c.tools, resources: [] }, false);
		searchCatalog(live, "warm up");
		const github = catalogs.find((c) => c.server === "github") as Catalog;
		live.delete("gitlab");
		live.set("github", { tools: github.tools.slice(0, 10), resources: [] }, false);
		const queries = [
			"create a merge request",
			"list pull requests",
			"open an issue",
			"take a screenshot",
			"add numbers",
		];
		const fresh = new ToolCatalog(
			"server",
			catalogs.map((c) => c.server),
		);
		for (const c of catalogs)
			if (c.server !== "gitlab")
				fresh.set(
					c.server,
					{ tools: c.server === "github" ? github.tools.slice(0, 10) : c.tools, resources: [] },
					false,
				);
		const names = (cat: ToolCatalog, q: string) => searchCatalog(cat, q, { limit: 5 }).map((h) => h.tool.qualifiedName);
		for (const q of queries) expect(names(live, q)).toEqual(names(fresh, q));
		expect(searchCatalog(live, "gitlab", { limit: 20 }).some((h) => h.tool.server === "gitlab")).toBe(false);
	});

	it("a changed server costs its own tools: the others are not compared, and the ranking and scores equal a fresh build's", () => {
		const catalogs = loadCatalogs();
		const build = (change?: (c: Catalog) => Catalog["tools"] | undefined) => {
			const catalog = new ToolCatalog(
				"server",
				catalogs.map((c) => c.server),
			);
			for (const c of catalogs) catalog.set(c.server, { tools: change?.(c) ?? c.tools, resources: [] }, false);
			return catalog;
		};
		const live = build();
		searchCatalog(live, "warm up");
		const github = catalogs.find((c) => c.server === "github") as Catalog;
		const changed = github.tools.map((t, i) => (i === 0 ? { ...t, description: `${t.description} Also labels.` } : t));
		live.set("github", { tools: changed, resources: [] }, false);
		const fresh = build((c) => (c.server === "github" ? changed : undefined));
		const ranked = (catalog: ToolCatalog, query: string) =>
			searchCatalog(catalog, query, { limit: 10 }).map((h) => `${h.tool.qualifiedName} ${h.score} ${h.coverage}`);
		for (const [query] of QUERIES) expect(ranked(live, query), query).toEqual(ranked(fresh, query));
		// github's tools were compared with their entries (one analyzed again); no other server's.
		expect(indexInfo(live).lastUpdate).toEqual({ compared: github.tools.length, added: 1 });
	});

	it("prepares the index in the background; a search that comes first finishes it and ranks the same", async () => {
		const catalogs = loadCatalogs();
		const build = () => {
			const c = new ToolCatalog(
				"server",
				catalogs.map((x) => x.server),
			);
			for (const x of catalogs) c.set(x.server, { tools: x.tools, resources: [] }, false);
			return c;
		};
		const early = build();
		void prepareSearch(early);
		const cold = build();
		expect(names(early)).toEqual(names(cold)); // searched before the background steps ran
		const waited = build();
		const ready = prepareSearch(waited);
		expect(indexInfo(waited).version).toBe(-1); // in the background: nothing is built at once
		await ready;
		// Built with no search asking for it; the search that follows finds it done.
		expect(indexInfo(waited)).toMatchObject({ version: waited.version, updates: 1 });
		expect(names(waited)).toEqual(names(cold));
		expect(indexInfo(waited).updates).toBe(1);
		function names(c: ToolCatalog) {
			return searchCatalog(c, "read a file from the repo", { limit: 5 }).map((h) => h.tool.qualifiedName);
		}
	});
});

describe("what the model receives from mcp({search})", () => {
	const answer = async (query: string) => {
		const lifecycle = sessionOf(loadCatalogs());
		return contentText((await runProxy(lifecycle, { search: query })).content);
	};

	it("lists five tools when the catalog has that many plausible ones, in the engine's order, weak ones marked", async () => {
		// The right tool answers under half the words: the old answer put "good" guesses first and cut it.
		const text = await answer("show everything you remember");
		const listed = [...text.matchAll(/^- ([^\s:(]+)/gm)].map((m) => m[1]);
		expect(listed).toHaveLength(5);
		expect(listed).toContain("memory_read_graph");
		expect(text).toContain("(weak match)");
	});

	it("names up to eight more candidates after the five described, by name only, and none after a clear winner", async () => {
		const text = await answer("create an issue");
		const described = [...text.matchAll(/^- ([^\s:(]+)/gm)].map((m) => m[1]);
		const also = /^Also: (.*)$/m.exec(text)?.[1]?.split(", ") ?? [];
		expect(described).toHaveLength(5);
		expect(also).toHaveLength(8);
		for (const name of also) expect(described).not.toContain(name);
		expect(also.join(" ")).toMatch(/issue/i);
		expect(await answer("linear_getActiveCycle")).not.toContain("Also:");
	});

	it("a query no tool answers well names more candidates after the closest too", async () => {
		const tools = Array.from({ length: 9 }, (_, i) => ({
			server: "notes",
			name: `archive_note_${i}`,
			description: "Archive a note.",
			inputSchema: { type: "object" },
		}));
		const lifecycle = sessionOf([{ server: "notes", tools }]);
		const text = contentText((await runProxy(lifecycle, { search: "archive invoices" })).content);
		expect(text).toMatch(/^No tool matches all of "archive invoices"\. Closest:\n/);
		const closest = [...text.matchAll(/^- ([^\s:(]+)/gm)].map((m) => m[1]);
		const also = /^Also: (.*)$/m.exec(text)?.[1]?.split(", ") ?? [];
		expect(closest).toHaveLength(5);
		expect(also).toHaveLength(4);
		expect(new Set([...closest, ...also]).size).toBe(9);
		expect(text).toContain("Or list a server's tools");
	});

	it("a loud top hit that leaves some of the query unanswered is no clear winner: the quieter tools are listed", async () => {
		// jira_links scores over 3x the rest on "page", but says nothing of a paragraph; the tool that appends one comes next.
		const text = await answer("append a paragraph to a page");
		const listed = [...text.matchAll(/^- ([^\s:(]+)/gm)].map((m) => m[1]);
		expect(listed[0]).toBe("jira_jira_links");
		expect(listed).toContain("notion_API-patch-block-children");
	});

	it("one clear winner stays a short answer", async () => {
		const text = await answer("linear_getActiveCycle");
		expect([...text.matchAll(/^- ([^\s:(]+)/gm)].map((m) => m[1])).toEqual(["linear_linear_getActiveCycle"]);
	});
});
