// A server's config identity: the fields that decide what it exposes, hashed over a canonical
// JSON. The metadata cache keys entries by it, the broker keys shared servers by it, and the
// project approvals key by `launchIdentity`: the launch hashed the same canonical way, and every line of
// it as written, for the question.
import { createHash } from "node:crypto";
import { visible } from "../trust/safe-text.ts";
import type { LaunchIdentity, ServerEntry } from "../types.ts";
import { isCommandValue } from "./command-values.ts";

/** The fields that change what a server exposes; lifecycle, idleTimeout and debug do not. */
export function configHash(entry: ServerEntry): string {
	// A server offered no roots may list other tools (server-everything's get-roots-list); only
	// `false` is hashed, so the entries of every other server keep their hash.
	const roots = entry.roots === false ? { roots: false } : {};
	const launch =
		entry.transport === "stdio"
			? {
					command: entry.command,
					args: entry.args,
					env: entry.env,
					cwd: entry.cwd,
					exposeResources: entry.exposeResources,
				}
			: {
					url: entry.url,
					headers: entry.headers,
					auth: entry.auth,
					bearerToken: entry.bearerToken,
					bearerTokenEnv: entry.bearerTokenEnv,
					exposeResources: entry.exposeResources,
				};
	return createHash("sha256")
		.update(stableStringify({ ...launch, ...roots }))
		.digest("hex");
}

/** JSON with object keys sorted at every level, so equal configs hash equally. */
export function stableStringify(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
	if (value && typeof value === "object") {
		const entries = Object.entries(value as Record<string, unknown>)
			.filter(([, v]) => v !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
	}
	return JSON.stringify(value) ?? "null";
}

/** The fields of a raw entry that decide what runs or where credentials go, as written. */
export interface RawLaunch {
	readonly command?: string;
	readonly args?: readonly string[];
	readonly env?: Readonly<Record<string, string>>;
	readonly cwd?: string;
	readonly url?: string;
	readonly type?: string;
	readonly headers?: Readonly<Record<string, string>>;
	readonly bearerToken?: string;
	readonly bearerTokenEnv?: string;
	readonly auth?: string;
	readonly oauth?: unknown;
}

export function launchIdentity(raw: RawLaunch): LaunchIdentity {
	const { command, args, env, cwd, url, type, headers, bearerToken, bearerTokenEnv, auth, oauth } = raw;
	const hash = createHash("sha256")
		.update(stableStringify({ command, args, env, cwd, url, type, headers, bearerToken, bearerTokenEnv, auth, oauth }))
		.digest("hex")
		.slice(0, 32);
	// Everything as written, whole: these are the repository's words, and the yes is for exactly them.
	const lines: string[] = [];
	if (command)
		lines.push(
			`runs: ${[command, ...(args ?? [])].map(quoteArg).join(" ")}${sendsVariables([command, ...(args ?? [])])}`,
		);
	if (cwd) lines.push(`in folder: ${quoteArg(cwd)}${sendsVariables([cwd])}`);
	for (const [name, value] of Object.entries(env ?? {})) lines.push(`env ${quoteArg(name)}: ${valueLine(value)}`);
	if (url) lines.push(`connects to: ${url}${type === "sse" ? " (SSE)" : ""}${sendsVariables([url])}`);
	for (const [name, value] of Object.entries(headers ?? {}))
		lines.push(`header ${quoteArg(name)}: ${valueLine(value)}`);
	if (bearerTokenEnv) lines.push(`sends your $${bearerTokenEnv} as a bearer token`);
	else if (bearerToken !== undefined) lines.push(`bearer token: ${valueLine(bearerToken)}`);
	if (auth) lines.push(`auth: ${auth}`);
	if (oauth !== undefined) lines.push(`oauth: ${JSON.stringify(oauth)}${sendsVariables(textsOf(oauth))}`);
	return { hash, summary: lines.map(visible).join("\n") };
}

/** How one env or header value reads: a `!command` is a shell command run at start; a `${VAR}` sends that variable. */
function valueLine(value: string): string {
	if (isCommandValue(value)) return `${JSON.stringify(value)} (runs this shell command at start and sends its output)`;
	return `${JSON.stringify(value)}${sendsVariables([value])}`;
}

/** Names the user's environment variables a text would expand to (and send). */
function sendsVariables(texts: readonly string[]): string {
	const names = [...new Set(texts.flatMap(variablesIn))];
	return names.length > 0 ? ` (sends your ${names.map((n) => `$${n}`).join(", ")})` : "";
}

/** The texts of an `oauth` object, where `${VAR}` expands too. */
function textsOf(value: unknown): string[] {
	return typeof value === "object" && value !== null
		? Object.values(value).filter((v): v is string => typeof v === "string")
		: [];
}

function quoteArg(arg: string): string {
	return /^[\w@%+=:,./${}~-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

function variablesIn(value: string): string[] {
	return [...value.matchAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)|\$env:([A-Za-z_][A-Za-z0-9_]*)/g)].map(
		(m) => m[1] ?? m[2],
	);
}
