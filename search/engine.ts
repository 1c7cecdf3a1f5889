// Ranked tool search, what `mcp({search})`, Pi 1.5's tool_search and codemode scripts'
// searchTools() all rank with. Tool text and the query are analyzed and the query expanded by
// search/query.ts (stems, WordNet synonyms, software idioms); search/bm25.ts scores with BM25 over
// weighted fields (tool name > server > description > parameter names and values) and tolerates
// typos; search/tool-index.ts ranks by what the catalog itself shows (a tool must answer the whole
// query; actions common to many tools weigh less than the thing the query is about). `regex`
// matches a pattern against names and descriptions instead (search/regex-search.ts). One index per
// catalog, updated in place when its tools change (search/catalog-index.ts; in the background:
// prepareSearch). Loaded at the first search (search/engine.lazy.ts).
export { indexInfo, prepareSearch, searchCatalog } from "./catalog-index.ts";
export type { SearchHit, SearchOptions } from "./search-options.ts";
export { type ServerAbout, type ServerTools, ToolSearchIndex } from "./tool-index.ts";
export type { ServerWords } from "./tool-text.ts";
