// Issue 50's search, on the paths a user walks: a request with several needs answered with each
// need's tools (mcp({search}) and Pi's ranker), tool text in Chinese, Japanese or Korean found by
// a query in either language, a server's own words tying its tools to a need, and query words
// that name JavaScript's own object properties.
import { describe, expect, it } from "vitest";
import { type PiToolInfo, PiToolRanker } from "../../pi-tools/tool-ranking.ts";
import { runProxy } from "../../proxy/proxy-tool.ts";
import { contentText } from "../../proxy/tool-results.ts";
import { ToolSearchIndex } from "../../search/engine.ts";
import { splitNeeds } from "../../search/needs.ts";
import type { ToolMetadata } from "../../types.ts";
import { sessionOf } from "../support/search-session.ts";

const tool = (server: string, name: string, description: string): ToolMetadata => ({
	server,
	name,
	description,
	inputSchema: { type: "object", properties: {} },
});

/** Six tools for the first need, one for the second: a whole-query ranking fills its first five with the first. */
const WEB = [
	tool("web", "fetch_page", "Fetch a web page at an address and return its text, links and images."),
	tool("web", "fetch_links", "Fetch the links of a web page at an address."),
	tool("web", "fetch_headers", "Fetch the headers of a web page at an address."),
	tool("web", "fetch_images", "Fetch the images of a web page at an address."),
	tool("web", "fetch_feed", "Fetch the feed a web page at an address links to."),
	tool("web", "fetch_metadata", "Fetch a web page's title, links, headers and images."),
];
const DOCS = [tool("docs", "create_document", "Create a new document with a title and content.")];
const SEVERAL = "Fetch the web page at the address and get its links, headers and images. Then make a document of it.";

/** The tool names `mcp({search})` describes (its `- name` lines). */
async function described(catalogs: Parameters<typeof sessionOf>[0], query: string): Promise<string[]> {
	const text = contentText((await runProxy(sessionOf(catalogs), { search: query })).content);
	return [...text.matchAll(/^- ([^\s:(]+)/gm)].map((m) => m[1]);
}

describe("a request with several needs", () => {
	it("is split where a next step starts, and a request of one need is not", () => {
		expect(splitNeeds(SEVERAL)).toEqual([
			"Fetch the web page at the address and get its links, headers and images",
			"Then make a document of it.",
		]);
		expect(splitNeeds("search files and replace text")).toEqual([]);
		expect(splitNeeds("read package.json. Thanks!")).toEqual([]);
		expect(splitNeeds("1. list the open issues 2. close the stale ones")).toEqual([
			"list the open issues",
			"close the stale ones",
		]);
	});

	it("gets each need's best tool in the five tools mcp({search}) describes, the first need's tools first", async () => {
		const names = await described(
			[
				{ server: "web", tools: WEB },
				{ server: "docs", tools: DOCS },
			],
			SEVERAL,
		);
		expect(names.slice(0, 5)).toContain("docs_create_document");
		expect(names[0]).toMatch(/^web_fetch_/);
	});

	it("gets them in Pi's tool_search and searchTools() too", async () => {
		const pi = (t: ToolMetadata): PiToolInfo => ({
			name: `mcp__${t.server}__${t.name}`,
			description: t.description,
			parameters: t.inputSchema,
			namespace: { name: `mcp__${t.server}`, aliases: [t.server] },
		});
		const ranked = await new PiToolRanker().rank(SEVERAL, [...WEB, ...DOCS].map(pi), 5);
		expect(ranked).toContain("mcp__docs__create_document");
	});
});

describe("text beyond English", () => {
	const index = new ToolSearchIndex(
		[
			tool("finance", "get_history", "获取股票的历史价格数据"),
			tool("weather", "forecast", "查询城市的天气预报"),
			tool("docs", "make", "ドキュメントを作成します"),
			tool("mail", "send", "메일을 보냅니다"),
		].map((t) => ({ ...t, qualifiedName: `${t.server}_${t.name}` })),
	);
	const first = (query: string) => index.search(query)[0]?.tool.qualifiedName;

	it("finds a tool described in Chinese, Japanese or Korean by a query in that language", () => {
		expect(first("股票价格")).toBe("finance_get_history");
		expect(first("明天的天气预报")).toBe("weather_forecast");
		expect(first("ドキュメント作成")).toBe("docs_make");
		expect(first("메일 보내기")).toBe("mail_send");
	});

	it("finds it by an English query through its name and server", () => {
		expect(first("stock price history")).toBe("finance_get_history");
		expect(first("weather forecast")).toBe("weather_forecast");
	});
});

describe("a server's own words", () => {
	const finance = {
		server: "finance",
		tools: [tool("finance", "get_history", "Returns daily open, close, high and low for a symbol.")],
	};
	const other = { server: "charts", tools: [tool("charts", "plot_history", "Plots a price series as a chart.")] };

	it("tie its tools to a need in mcp({search}): its instructions", async () => {
		const bare = await described([finance, other], "stock prices");
		expect(bare[0]).toBe("charts_plot_history");
		const told = await described(
			[{ ...finance, instructions: "Stock market quotes and prices for any ticker." }, other],
			"stock prices",
		);
		expect(told[0]).toBe("finance_get_history");
	});

	it("are searched again when they change, the tools' listing unchanged", () => {
		const tools = [...finance.tools, ...other.tools].map((t) => ({ ...t, qualifiedName: `${t.server}_${t.name}` }));
		const index = new ToolSearchIndex();
		index.update(tools);
		expect(index.search("stock prices")[0]?.tool.name).toBe("plot_history");
		index.update(tools, (server) => (server === "finance" ? { description: "Stock quotes and prices" } : undefined));
		expect(index.search("stock prices")[0]?.tool.name).toBe("get_history");
		index.update(tools, () => undefined);
		expect(index.search("stock prices")[0]?.tool.name).toBe("plot_history");
	});

	it("tie them in Pi's search tools too: the namespace's description", async () => {
		const pi = (t: ToolMetadata, description?: string): PiToolInfo => ({
			name: `mcp__${t.server}__${t.name}`,
			description: t.description,
			namespace: { name: `mcp__${t.server}`, aliases: [t.server], ...(description ? { description } : {}) },
		});
		const tools = [pi(finance.tools[0], "Stock market quotes and prices"), pi(other.tools[0])];
		expect((await new PiToolRanker().rank("stock prices", tools, 2))[0]).toBe("mcp__finance__get_history");
	});
});

describe("query words that are JavaScript's own", () => {
	it("search like any other word (constructor, toString, hasOwnProperty: the thesaurus threw on them)", () => {
		const index = new ToolSearchIndex([
			{ ...tool("code", "build_class", "Builds a class with a constructor."), qualifiedName: "code_build_class" },
		]);
		for (const query of ["constructor", "toString of a class", "hasOwnProperty", "valueOf __proto__ constructor"])
			expect(() => index.search(query), query).not.toThrow();
		expect(index.search("make a constructor")[0]?.tool.name).toBe("build_class");
	});
});
