// Every place a server name is defined, in the order the config is read (the last one wins, as
// config.ts merges them): the Pi files and 2.36's shared files, and the hosts they import. What
// `loadConfig` keeps is the winner alone; `doctor` and `get` show the rest: a project's entry
// that replaces your own, an override that adjusts it, a name written twice in one file, an
// imported server hidden by a file's. Reads only; nothing here decides what runs.
import { homedir } from "node:os";
import { readTextFile } from "../storage/file-guard.ts";
import type { ConfigSource } from "../types.ts";
import { fileFrom236 } from "./compat-236.ts";
import { IMPORT_HOSTS, type ImportHost, readImport } from "./imports.ts";
import { jsoncParser } from "./parsers.lazy.ts";

/** One definition of a server name. */
export interface Definition {
	readonly name: string;
	readonly path: string;
	readonly scope: ConfigSource["scope"];
	/** A whole entry; a project's adjustment of the user's server (no command, url or type); an import's entry. */
	readonly kind: "entry" | "override" | "import";
	/** The host an imported entry comes from. */
	readonly host?: string;
	/** A 1-based line where the name is written (files read as JSON), for a duplicate's report. */
	readonly line?: number;
}

export interface DefinitionsOptions {
	readonly cwd: string;
	readonly home?: string;
	readonly env?: Readonly<Record<string, string | undefined>>;
}

/** A config file as config.ts reads it (`piConfigPaths`), lowest precedence first. */
export interface ConfigFileRef {
	readonly path: string;
	readonly scope: ConfigSource["scope"];
}

/** Every definition of every name in `files`, lowest precedence first; imports after the files, as config.ts reads them. */
export function definitions(files: readonly ConfigFileRef[], options: DefinitionsOptions): Definition[] {
	const home = options.home ?? homedir();
	const found: Definition[] = [];
	const hosts = new Set<string>();
	for (const file of files) {
		const read = readTextFile(file.path);
		if (read.kind !== "ok") continue;
		const { findNodeAtLocation, parseTree } = jsoncParser();
		const tree = parseTree(read.text, [], { allowTrailingComma: true });
		// 2.36's spelling ("mcp-servers") counts as mcpServers, as config.ts reads it.
		const mapped = fileFrom236(jsoncParser().parse(read.text, [], { allowTrailingComma: true })).value as {
			imports?: unknown;
		};
		if (file.scope === "user" && Array.isArray(mapped?.imports))
			for (const host of mapped.imports) if (typeof host === "string") hosts.add(host);
		const servers =
			(tree && findNodeAtLocation(tree, ["mcpServers"])) || (tree && findNodeAtLocation(tree, ["mcp-servers"]));
		for (const property of servers?.type === "object" ? (servers.children ?? []) : []) {
			const [key, value] = property.children ?? [];
			if (typeof key?.value !== "string") continue;
			const fields = new Set((value?.children ?? []).map((p) => p.children?.[0]?.value));
			const whole = fields.has("command") || fields.has("url") || fields.has("type");
			found.push({
				name: key.value,
				path: file.path,
				scope: file.scope,
				kind: whole || file.scope === "user" ? "entry" : "override",
				line: read.text.slice(0, property.offset).split("\n").length,
			});
		}
	}
	const ctx = { cwd: options.cwd, home, env: options.env ?? process.env, platform: process.platform };
	for (const host of hosts) {
		if (!IMPORT_HOSTS.includes(host as ImportHost)) continue;
		for (const file of readImport(host as ImportHost, ctx))
			for (const name of Object.keys(file.servers))
				found.push({ name, path: file.path, scope: file.scope, kind: "import", host });
	}
	return found;
}

/** One finding about the definitions of a name: a doubt (`warning`) or what the user should know (`note`). */
export interface Shadowing {
	readonly level: "warning" | "note";
	readonly name: string;
	readonly text: string;
}

/**
 * What the definitions say beyond the winner: a name written twice in one file (the last one is
 * read, silently), a name defined in two of the user's files, a project's entry replacing or
 * adjusting the user's, an imported server hidden by a file's entry.
 */
export function shadowings(all: readonly Definition[]): Shadowing[] {
	const out: Shadowing[] = [];
	const byName = new Map<string, Definition[]>();
	for (const d of all) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);
	for (const [name, defs] of byName) {
		const files = defs.filter((d) => d.kind !== "import");
		for (const path of new Set(files.map((d) => d.path))) {
			const lines = files.filter((d) => d.path === path).map((d) => d.line);
			if (lines.length > 1)
				out.push({
					level: "warning",
					name,
					text: `"${name}" is written ${lines.length} times in ${path} (lines ${lines.join(", ")}): only the last is read; remove the others`,
				});
		}
		const paths = [...new Set(files.map((d) => d.path))];
		const winner = files.at(-1);
		for (const path of paths.slice(0, -1)) {
			const hidden = files.find((d) => d.path === path) as Definition;
			if (!winner) break;
			if (winner.kind === "override")
				out.push({
					level: "note",
					name,
					text: `"${name}" from ${hidden.path} is adjusted by the project's ${winner.path}`,
				});
			else if (hidden.scope === "user" && winner.scope === "project")
				out.push({
					level: "note",
					name,
					text: `"${name}" in the project's ${winner.path} replaces your own in ${hidden.path}`,
				});
			else
				out.push({
					level: "warning",
					name,
					text: `"${name}" is defined in ${hidden.path} and again in ${winner.path}: the second is used; remove one`,
				});
		}
		if (winner)
			for (const imported of defs.filter((d) => d.kind === "import"))
				out.push({
					level: "note",
					name,
					text: `"${name}" imported from ${imported.host} (${imported.path}) is hidden by ${winner.path}`,
				});
	}
	return out;
}
